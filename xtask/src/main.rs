//! `cargo xtask`: maintainer tasks for the npy workspace. See the library docs
//! (`xtask/src/lib.rs`) for the list of subcommands.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("fixtures") => xtask::fixtures::run(&args[1..]),
        Some("interop") => xtask::interop::run(&args[1..]),
        Some("bench") => xtask::bench::run(&args[1..]),
        Some("miri") => xtask::miri::run(&args[1..]),
        Some("help" | "-h" | "--help") => {
            print!("{}", xtask::USAGE);
            return ExitCode::SUCCESS;
        }
        Some(other) => {
            eprintln!("xtask: unknown subcommand `{other}`\n");
            eprint!("{}", xtask::USAGE);
            return ExitCode::from(2);
        }
        None => {
            eprint!("{}", xtask::USAGE);
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: error: {message}");
            ExitCode::FAILURE
        }
    }
}
