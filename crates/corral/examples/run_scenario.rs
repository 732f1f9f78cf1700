//! Runs one scenario file and prints its summary: `cargo run --release --example
//! run_scenario -- FILE [key=value ...]`. Handy for profiling the engine without Python.
//! Runs fluid mode when the scenario says `mode = "fluid"`. `run_scenario --kinds` prints
//! the kinds a scenario may name (`corral::run::kinds`) as JSON.

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: run_scenario FILE [key=value ...] | --kinds");
        std::process::exit(2);
    };
    if path == "--kinds" {
        println!("{}", serde_json::to_string(&corral::run::kinds()).expect("names serialize"));
        return;
    }
    let overrides: Vec<String> = args.collect();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(2)
    });
    let run = || -> corral::Result<serde_json::Value> {
        let mut run = corral::run::Run::load(&text, &overrides, &path)?;
        run.run();
        Ok(run.summary().to_json())
    };
    match run() {
        Ok(summary) => println!("{summary}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
