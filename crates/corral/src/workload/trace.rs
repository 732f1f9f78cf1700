//! Explicit flow lists: a CSV file with a header row naming the columns `src`, `dst`,
//! `size`, `start` (required, any order) and optionally `tenant`, `class`, `priority`,
//! `weight`, `deadline`. Hosts are names (`h3`); sizes are bytes (`15000`) or sizes with a
//! unit (`15KB`); `start` and `deadline` are seconds (`0.0012`) or durations with a unit
//! (`1.2ms`); a deadline is relative to the flow's start. An empty optional cell takes the
//! traffic block's value. The file is read as RFC 4180 says: fields may be quoted (`"1,000"`,
//! with `""` for a quote inside), lines end in LF or CRLF, and a UTF-8 byte-order mark is
//! skipped; lines that are empty or start with `#` are comments. A Parquet flow list is read
//! by the Python layer, which hands its cells to [`from_cells`] as they are typed in the file
//! ([`Cell`]): whole numbers, numbers and text, so a size or a start time is never turned into
//! text and parsed back; a text cell there reads as in a CSV file (`15KB`, `1.2ms`).

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

/// One cell of a flow list: a CSV file's are text; a Parquet file's keep their column's type.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Float(f64),
    Text(String),
}

impl Cell {
    /// The cell's text, `None` when it is empty (null or ""); numbers as they print.
    fn text(&self) -> Option<String> {
        match self {
            Cell::Null => None,
            Cell::Text(s) if s.is_empty() => None,
            Cell::Text(s) => Some(s.clone()),
            Cell::Int(i) => Some(i.to_string()),
            Cell::Float(f) => Some(f.to_string()),
        }
    }

    fn is_empty(&self) -> bool {
        self.text().is_none()
    }

    /// A number of seconds, or a text cell's time (seconds or a duration with a unit).
    fn seconds(&self) -> std::result::Result<Time, String> {
        match self {
            Cell::Int(i) => seconds_of(*i as f64, &i.to_string()),
            Cell::Float(f) => seconds_of(*f, &f.to_string()),
            other => seconds(&other.text().unwrap_or_default()),
        }
    }

    /// A whole number of bytes, or a text cell's size (`15000`, `1,000`, `15KB`).
    fn bytes(&self) -> std::result::Result<u64, String> {
        match self {
            Cell::Int(i) => u64::try_from(*i)
                .map_err(|_| format!("expected a positive number of bytes, got {i}")),
            Cell::Float(f) if f.fract() == 0.0 && (0.0..1.8e19).contains(f) => Ok(*f as u64),
            Cell::Float(f) => Err(format!("expected a whole number of bytes, got {f}")),
            other => {
                let s = other.text().unwrap_or_default();
                let plain: String = s.chars().filter(|&ch| ch != ',' && ch != '_').collect();
                plain.parse::<u64>().or_else(|_| parse_bytes(&s).map(|b| b.0))
            }
        }
    }

    fn priority(&self) -> std::result::Result<u8, String> {
        let whole = match self {
            Cell::Int(i) => Some(*i),
            Cell::Float(f) if f.fract() == 0.0 => Some(*f as i64),
            Cell::Text(s) => s.parse::<i64>().ok(),
            _ => None,
        };
        whole.and_then(|i| u8::try_from(i).ok()).ok_or_else(|| {
            format!(
                "priority: expected an integer 0..255, got \"{}\"",
                self.text().unwrap_or_default()
            )
        })
    }

    fn weight(&self) -> std::result::Result<f64, String> {
        let w = match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Float(f) => Some(*f),
            Cell::Text(s) => s.parse::<f64>().ok(),
            Cell::Null => None,
        };
        w.filter(|w| w.is_finite() && *w > 0.0).ok_or_else(|| {
            format!(
                "weight: expected a positive number, got \"{}\"",
                self.text().unwrap_or_default()
            )
        })
    }
}

fn seconds_of(v: f64, shown: &str) -> std::result::Result<Time, String> {
    if !v.is_finite() || !(0.0..=1e6).contains(&v) {
        return Err(format!("expected a time from 0 to 1000000 seconds, got \"{shown}\""));
    }
    Ok(Time((v * Time::PS_PER_SEC as f64).round() as u64))
}

fn seconds(s: &str) -> std::result::Result<Time, String> {
    if let Ok(v) = s.parse::<f64>() {
        return seconds_of(v, s);
    }
    parse_time(s).map_err(|e| format!("{e}, or seconds as a number"))
}

/// Reads a flow list file; errors name `path` (the scenario key), the file and the line.
pub fn read(file: &std::path::Path, path: &str) -> Result<Vec<TraceRow>> {
    if file.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet")) {
        return Err(config_err(path, format!("{}: Parquet flow lists are read by the Python layer (corral.run, `corral run`); give a CSV file here", file.display())));
    }
    let bytes = crate::config::input_file::read(file, path, "a flow list")?;
    let text = String::from_utf8(bytes).map_err(|_| {
        config_err(
            path,
            format!("{}: not a UTF-8 text file; expected a CSV flow list", file.display()),
        )
    })?;
    parse(&text, &file.display().to_string(), path)
}

/// The records of CSV text (RFC 4180), each with the line it starts on, comment and empty
/// lines left out.
fn records(text: &str) -> std::result::Result<Vec<(usize, Vec<String>)>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (mut out, mut fields, mut field) = (Vec::new(), Vec::new(), String::new());
    let (mut line, mut start, mut quoted, mut was_quoted) = (1usize, 1usize, false, false);
    let mut chars = text.chars().peekable();
    let end_record = |fields: &mut Vec<String>,
                      field: &mut String,
                      was_quoted: bool,
                      start: usize,
                      out: &mut Vec<(usize, Vec<String>)>| {
        let f = std::mem::take(field);
        fields.push(if was_quoted { f } else { f.trim().to_string() });
        let rec = std::mem::take(fields);
        let blank = rec.len() == 1 && rec[0].is_empty() && !was_quoted;
        if !blank && !rec[0].starts_with('#') {
            out.push((start, rec));
        }
    };
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => {
                if c == '\n' {
                    line += 1;
                }
                field.push(c);
            }
            (false, '"') if field.trim().is_empty() => {
                field.clear();
                quoted = true;
                was_quoted = true;
            }
            (false, ',') => {
                let f = std::mem::take(&mut field);
                fields.push(if was_quoted { f } else { f.trim().to_string() });
                was_quoted = false;
            }
            (false, '\r') if chars.peek() == Some(&'\n') => {}
            (false, '\n') => {
                end_record(&mut fields, &mut field, was_quoted, start, &mut out);
                was_quoted = false;
                line += 1;
                start = line;
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err(format!("line {start}: a quoted field is not closed"));
    }
    if !field.is_empty() || !fields.is_empty() || was_quoted {
        end_record(&mut fields, &mut field, was_quoted, start, &mut out);
    }
    Ok(out)
}

/// Parses CSV text (see the module doc).
pub fn parse(text: &str, source: &str, path: &str) -> Result<Vec<TraceRow>> {
    let mut recs =
        records(text).map_err(|e| config_err(path, format!("{source}, {e}")))?.into_iter();
    let Some((_, names)) = recs.next() else {
        return Err(config_err(
            path,
            format!(
                "{source}: empty file; expected a header row with columns {}",
                REQUIRED.join(", ")
            ),
        ));
    };
    from_cells(
        &names,
        recs.map(|(n, r)| (n, r.into_iter().map(Cell::Text).collect())),
        source,
        "line",
        path,
    )
}

/// Rows from a header and cells (the CSV reader's text, or a Parquet file's typed cells):
/// each record carries the number that names it in errors (`unit` "line" or "row").
pub fn from_cells(
    names: &[String],
    records: impl Iterator<Item = (usize, Vec<Cell>)>,
    source: &str,
    unit: &str,
    path: &str,
) -> Result<Vec<TraceRow>> {
    let col = |n: &str| names.iter().position(|c| c == n);
    let missing: Vec<&str> = REQUIRED.iter().copied().filter(|n| col(n).is_none()).collect();
    if !missing.is_empty() {
        return Err(config_err(
            path,
            format!(
                "{source}: missing column{} {} (the header row must name src, dst, size, start)",
                if missing.len() > 1 { "s" } else { "" },
                missing.join(", ")
            ),
        ));
    }
    if let Some(unknown) =
        names.iter().find(|n| !REQUIRED.contains(&n.as_str()) && !OPTIONAL.contains(&n.as_str()))
    {
        let all: Vec<&str> = REQUIRED.iter().chain(OPTIONAL.iter()).copied().collect();
        let hint = crate::config::suggest::nearest(unknown, all.iter().copied())
            .map(|s| format!("did you mean \"{s}\"? "))
            .unwrap_or_default();
        let shown: String = unknown.chars().take(60).collect();
        return Err(config_err(
            path,
            format!("{source}: unknown column \"{shown}\"; {hint}expected {}", all.join(", ")),
        ));
    }
    let idx: Vec<Option<usize>> = REQUIRED.iter().chain(OPTIONAL.iter()).map(|n| col(n)).collect();
    let mut rows = Vec::new();
    for (n, c) in records {
        let bad =
            |msg: String| -> Error { config_err(path, format!("{source}, {unit} {n}: {msg}")) };
        if c.len() != names.len() {
            return Err(bad(format!("{} fields, the header has {}", c.len(), names.len())));
        }
        let get = |k: usize| idx[k].map(|i| &c[i]).filter(|cell| !cell.is_empty());
        let req = |k: usize| get(k).ok_or_else(|| bad(format!("empty {}", REQUIRED[k])));
        let size = req(2)?.bytes().map_err(|e| bad(format!("size: {e}")))?;
        if size == 0 {
            return Err(bad("size: must be positive".into()));
        }
        rows.push(TraceRow {
            src: req(0)?.text().unwrap_or_default(),
            dst: req(1)?.text().unwrap_or_default(),
            size,
            start: req(3)?.seconds().map_err(|e| bad(format!("start: {e}")))?,
            tenant: get(4).and_then(Cell::text),
            class: get(5).and_then(Cell::text),
            priority: get(6).map(|x| x.priority().map_err(bad)).transpose()?,
            weight: get(7).map(|x| x.weight().map_err(bad)).transpose()?,
            deadline: get(8)
                .map(|x| x.seconds().map_err(|e| bad(format!("deadline: {e}"))))
                .transpose()?,
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
    fn typed_cells_read_as_their_text_does_and_say_what_is_wrong() {
        let names: Vec<String> = ["src", "dst", "size", "start", "priority", "weight", "deadline"]
            .map(String::from)
            .to_vec();
        let typed = vec![
            Cell::Text("h1".into()),
            Cell::Text("h2".into()),
            Cell::Int(1500),
            Cell::Float(0.25),
            Cell::Int(3),
            Cell::Int(2),
            Cell::Null,
        ];
        let text =
            ["h1", "h2", "1500", "0.25", "3", "2", ""].map(|s| Cell::Text(s.into())).to_vec();
        let a =
            from_cells(&names, [(1, typed)].into_iter(), "f", "row", "traffic[0].file").unwrap();
        let b = from_cells(&names, [(1, text)].into_iter(), "f", "row", "traffic[0].file").unwrap();
        assert_eq!(a, b);
        assert_eq!(
            (a[0].size, a[0].start, a[0].priority, a[0].weight, a[0].deadline),
            (1500, Time::from_ms(250), Some(3), Some(2.0), None)
        );
        let bad = |cells: Vec<Cell>| {
            from_cells(&names, [(4, cells)].into_iter(), "f", "row", "traffic[0].file")
                .unwrap_err()
                .to_string()
        };
        let row = |size: Cell, priority: Cell| {
            vec![
                Cell::Text("h1".into()),
                Cell::Text("h2".into()),
                size,
                Cell::Int(0),
                priority,
                Cell::Null,
                Cell::Null,
            ]
        };
        assert!(bad(row(Cell::Float(1.5), Cell::Null))
            .contains("row 4: size: expected a whole number of bytes, got 1.5"));
        assert!(bad(row(Cell::Int(-3), Cell::Null))
            .contains("size: expected a positive number of bytes, got -3"));
        assert!(bad(row(Cell::Int(10), Cell::Int(300)))
            .contains("priority: expected an integer 0..255, got \"300\""));
    }

    #[test]
    fn reads_required_and_optional_columns_in_any_order() {
        let rows =
            parse("start,src,dst,size,class\n0.001,h1,h2,15KB,web\n2ms,h3,h0,100,\n", "f.csv", "k")
                .unwrap();
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
            TraceRow {
                src: "h0".into(),
                dst: "h5".into(),
                size: 1234,
                start: Time(17),
                tenant: Some("a".into()),
                class: Some("x".into()),
                priority: Some(2),
                weight: Some(1.5),
                deadline: Some(Time::from_us(300)),
            },
            TraceRow {
                src: "h5".into(),
                dst: "h0".into(),
                size: 1,
                start: Time::from_ms(3),
                tenant: None,
                class: None,
                priority: None,
                weight: None,
                deadline: None,
            },
        ];
        assert_eq!(parse(&write(&rows), "f", "k").unwrap(), rows);
    }

    #[test]
    fn reads_rfc_4180_quoting_crlf_and_a_byte_order_mark() {
        let text = "\u{feff}src,dst,size,start,class\r\nh1,h2,\"1,000\",0,\"web, \"\"fast\"\"\"\r\n# a comment\r\n\r\nh3,\"h0\",5KB,1ms,\"two\nlines\"\r\n";
        let rows = parse(text, "f.csv", "k").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].size, 1000);
        assert_eq!(rows[0].class.as_deref(), Some("web, \"fast\""));
        assert_eq!((rows[1].dst.as_str(), rows[1].class.as_deref()), ("h0", Some("two\nlines")));
        let e = parse("src,dst,size,start\nh0,\"h1,1,0\n", "f.csv", "k").unwrap_err().to_string();
        assert!(e.contains("not closed"), "{e}");
    }

    #[test]
    fn errors_name_the_column_or_line() {
        let e =
            parse("src,dst,start\nh0,h1,0\n", "f.csv", "traffic[0].file").unwrap_err().to_string();
        assert!(e.starts_with("traffic[0].file: f.csv: missing column size"), "{e}");
        let e = parse("src,dst,size,start,clas\n", "f.csv", "k").unwrap_err().to_string();
        assert!(
            e.contains("unknown column \"clas\"") && e.contains("did you mean \"class\""),
            "{e}"
        );
        let e = parse("src,dst,size,start\nh0,h1,10,0\nh0,h1,ten,0\n", "f.csv", "k")
            .unwrap_err()
            .to_string();
        assert!(e.contains("f.csv, line 3: size:"), "{e}");
        let e = parse("src,dst,size,start\nh0,h1,10\n", "f.csv", "k").unwrap_err().to_string();
        assert!(e.contains("line 2: 3 fields"), "{e}");
    }
}
