//! Explicit flow lists: a CSV file with a header row naming the columns `src`, `dst`,
//! `size`, `start` (required, any order) and optionally `tenant`, `class`, `priority`,
//! `weight`, `deadline`. Hosts are names (`h3`); sizes are bytes (`15000`) or sizes with a
//! unit (`15KB`); `start` and `deadline` are seconds (`0.0012`) or durations with a unit
//! (`1.2ms`); a deadline is relative to the flow's start. An empty optional cell takes the
//! traffic block's value. Parquet flow lists are converted to this form by the Python layer.

use crate::error::{config_err, Error, Result};
use crate::units::{parse_bytes, parse_time, Time};

/// One row of a flow list.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceRow {
    pub src: String,
    pub dst: String,
    pub size: u64,
    pub start: Time,
    pub tenant: Option<String>,
    pub class: Option<String>,
    pub priority: Option<u8>,
    pub weight: Option<f64>,
    /// Relative to `start`.
    pub deadline: Option<Time>,
}

pub const REQUIRED: [&str; 4] = ["src", "dst", "size", "start"];
pub const OPTIONAL: [&str; 5] = ["tenant", "class", "priority", "weight", "deadline"];

fn seconds(s: &str) -> std::result::Result<Time, String> {
    if let Ok(v) = s.parse::<f64>() {
        if !v.is_finite() || !(0.0..=1e6).contains(&v) {
            return Err(format!("expected a time from 0 to 1000000 seconds, got \"{s}\""));
        }
        return Ok(Time((v * Time::PS_PER_SEC as f64).round() as u64));
    }
    parse_time(s).map_err(|e| format!("{e}, or seconds as a number"))
}

/// Reads a flow list file; errors name `path` (the scenario key), the file and the line.
pub fn read(file: &std::path::Path, path: &str) -> Result<Vec<TraceRow>> {
    if file.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet")) {
        return Err(config_err(path, format!("{}: Parquet flow lists are converted by the Python layer (corral.run, `corral run`; Python 3.11+ or tomli); give a CSV file here", file.display())));
    }
    let text = std::fs::read_to_string(file).map_err(|e| config_err(path, format!("cannot read flow list {}: {e}", file.display())))?;
    parse(&text, &file.display().to_string(), path)
}

pub fn parse(text: &str, source: &str, path: &str) -> Result<Vec<TraceRow>> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((_, header)) = lines.next() else {
        return Err(config_err(path, format!("{source}: empty file; expected a header row with columns {}", REQUIRED.join(", "))));
    };
    let cells = |l: &str| -> Vec<String> { l.split(',').map(|c| c.trim().trim_matches('"').to_string()).collect() };
    let names = cells(header);
    let col = |n: &str| names.iter().position(|c| c == n);
    let missing: Vec<&str> = REQUIRED.iter().copied().filter(|n| col(n).is_none()).collect();
    if !missing.is_empty() {
        return Err(config_err(path, format!("{source}: missing column{} {} (the header row must name src, dst, size, start)", if missing.len() > 1 { "s" } else { "" }, missing.join(", "))));
    }
    if let Some(unknown) = names.iter().find(|n| !REQUIRED.contains(&n.as_str()) && !OPTIONAL.contains(&n.as_str())) {
        let all: Vec<&str> = REQUIRED.iter().chain(OPTIONAL.iter()).copied().collect();
        let hint = crate::config::suggest::nearest(unknown, all.iter().copied()).map(|s| format!("did you mean \"{s}\"? ")).unwrap_or_default();
        return Err(config_err(path, format!("{source}: unknown column \"{unknown}\"; {hint}expected {}", all.join(", "))));
    }
    let idx: Vec<Option<usize>> = REQUIRED.iter().chain(OPTIONAL.iter()).map(|n| col(n)).collect();
    let mut rows = Vec::new();
    for (n, line) in lines {
        let bad = |msg: String| -> Error { config_err(path, format!("{source}, line {}: {msg}", n + 1)) };
        let c = cells(line);
        if c.len() != names.len() {
            return Err(bad(format!("{} fields, the header has {}", c.len(), names.len())));
        }
        let get = |k: usize| idx[k].map(|i| c[i].as_str()).filter(|s| !s.is_empty());
        let req = |k: usize| get(k).ok_or_else(|| bad(format!("empty {}", REQUIRED[k])));
        let size = {
            let s = req(2)?;
            let b = s.parse::<u64>().or_else(|_| parse_bytes(s).map(|b| b.0)).map_err(|e| bad(format!("size: {e}")))?;
            if b == 0 {
                return Err(bad("size: must be positive".into()));
            }
            b
        };
        rows.push(TraceRow {
            src: req(0)?.to_string(),
            dst: req(1)?.to_string(),
            size,
            start: seconds(req(3)?).map_err(|e| bad(format!("start: {e}")))?,
            tenant: get(4).map(str::to_string),
            class: get(5).map(str::to_string),
            priority: get(6).map(|s| s.parse::<u8>().map_err(|_| bad(format!("priority: expected an integer 0..255, got \"{s}\"")))).transpose()?,
            weight: get(7)
                .map(|s| match s.parse::<f64>() {
                    Ok(w) if w.is_finite() && w > 0.0 => Ok(w),
                    _ => Err(bad(format!("weight: expected a positive number, got \"{s}\""))),
                })
                .transpose()?,
            deadline: get(8).map(|s| seconds(s).map_err(|e| bad(format!("deadline: {e}")))).transpose()?,
        });
    }
    Ok(rows)
}

/// Writes rows in the same format (round-trip tests, exporting generated workloads).
pub fn write(rows: &[TraceRow]) -> String {
    let mut out = String::from("src,dst,size,start,tenant,class,priority,weight,deadline\n");
    for r in rows {
        let opt = |o: Option<String>| o.unwrap_or_default();
        out.push_str(&format!(
            "{},{},{},{}ps,{},{},{},{},{}\n",
            r.src,
            r.dst,
            r.size,
            r.start.0,
            opt(r.tenant.clone()),
            opt(r.class.clone()),
            opt(r.priority.map(|p| p.to_string())),
            opt(r.weight.map(|w| w.to_string())),
            opt(r.deadline.map(|d| format!("{}ps", d.0))),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_required_and_optional_columns_in_any_order() {
        let rows = parse("start,src,dst,size,class\n0.001,h1,h2,15KB,web\n2ms,h3,h0,100,\n", "f.csv", "k").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].start, Time::from_ms(1));
        assert_eq!(rows[0].size, 15_000);
        assert_eq!(rows[0].class.as_deref(), Some("web"));
        assert_eq!(rows[1].start, Time::from_ms(2));
        assert_eq!(rows[1].class, None);
    }

    #[test]
    fn round_trips() {
        let rows = vec![
            TraceRow { src: "h0".into(), dst: "h5".into(), size: 1234, start: Time(17), tenant: Some("a".into()), class: Some("x".into()), priority: Some(2), weight: Some(1.5), deadline: Some(Time::from_us(300)) },
            TraceRow { src: "h5".into(), dst: "h0".into(), size: 1, start: Time::from_ms(3), tenant: None, class: None, priority: None, weight: None, deadline: None },
        ];
        assert_eq!(parse(&write(&rows), "f", "k").unwrap(), rows);
    }

    #[test]
    fn errors_name_the_column_or_line() {
        let e = parse("src,dst,start\nh0,h1,0\n", "f.csv", "traffic[0].file").unwrap_err().to_string();
        assert!(e.starts_with("traffic[0].file: f.csv: missing column size"), "{e}");
        let e = parse("src,dst,size,start,clas\n", "f.csv", "k").unwrap_err().to_string();
        assert!(e.contains("unknown column \"clas\"") && e.contains("did you mean \"class\""), "{e}");
        let e = parse("src,dst,size,start\nh0,h1,10,0\nh0,h1,ten,0\n", "f.csv", "k").unwrap_err().to_string();
        assert!(e.contains("f.csv, line 3: size:"), "{e}");
        let e = parse("src,dst,size,start\nh0,h1,10\n", "f.csv", "k").unwrap_err().to_string();
        assert!(e.contains("line 2: 3 fields"), "{e}");
    }
}
