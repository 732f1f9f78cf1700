//! Runs one scenario file and prints its summary: `cargo run --release --example
//! run_scenario -- FILE [key=value ...]`. Handy for profiling the engine without Python.

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: run_scenario FILE [key=value ...]");
        std::process::exit(2);
    };
    let overrides: Vec<String> = args.collect();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(2)
    });
    let run = || -> corral::Result<corral::Simulation> {
        let mut sim = corral::Simulation::new(corral::scenario::load(&text, &overrides, &path)?)?;
        sim.run();
        Ok(sim)
    };
    match run() {
        Ok(sim) => println!("{}", sim.summary()),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
