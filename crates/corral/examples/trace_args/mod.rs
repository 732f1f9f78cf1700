//! The command line the trace examples share: `FILE [ARG ...] EVERY_US [key=value ...]`, the
//! scenario loaded as a packet-level run, and bad arguments reported by name with exit status
//! 2 instead of a panic.

use corral::run::Run;
use corral::units::Time;
use corral::Simulation;

/// Prints `error: msg` and exits with status 2.
pub fn fail(msg: String) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2)
}

/// The scenario file, `n` positional arguments after it (the last is EVERY_US), then
/// `key=value` overrides. Returns the packet-level simulation, the `n` positional arguments
/// and the sampling step.
pub fn load(usage: &str, n: usize) -> (Box<Simulation>, Vec<String>, Time) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 1 + n {
        eprintln!("usage: {usage}");
        std::process::exit(2);
    }
    let text =
        std::fs::read_to_string(&args[0]).unwrap_or_else(|e| fail(format!("{}: {e}", args[0])));
    let positional = args[1..=n].to_vec();
    let every = Time::from_us(
        positional[n - 1]
            .parse()
            .unwrap_or_else(|_| fail(format!("EVERY_US: not a number: {}", positional[n - 1]))),
    );
    let run = Run::load(&text, &args[1 + n..], &args[0]).unwrap_or_else(|e| fail(e.to_string()));
    let Run::Packet(sim) = run else { fail("a packet-mode scenario is needed".into()) };
    (sim, positional, every)
}
