//! Runs one scenario file and prints its summary: `cargo run --release --example
//! run_scenario -- FILE [key=value ...]`. Handy for profiling the engine without Python.
//! Runs fluid mode when the scenario says `mode = "fluid"`.

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
    let run = || -> corral::Result<serde_json::Value> {
        let sc = corral::scenario::load(&text, &overrides, &path)?;
        if sc.mode == corral::scenario::Mode::Fluid {
            let mut sim = corral::fluid::FluidSim::new(sc)?;
            sim.run();
            return Ok(sim.summary());
        }
        let mut sim = corral::Simulation::new(sc)?;
        sim.run();
        Ok(sim.summary())
    };
    match run() {
        Ok(summary) => println!("{summary}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
