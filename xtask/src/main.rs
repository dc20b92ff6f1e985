//! `cargo xtask`: maintainer tasks for the npy workspace. The flags are declared in
//! `xtask/src/flags.rs`; each task is a module of the library (`xtask/src/lib.rs`).

use std::process::ExitCode;

use clap::Parser;
use xtask::flags::{Cmd, Xtask};

fn main() -> ExitCode {
    let result = match Xtask::parse().command {
        Cmd::Venv => xtask::python::numpy_python().map(|python| println!("{}", python.display())),
        Cmd::Msrv => xtask::msrv::run(),
        Cmd::Fixtures(f) => xtask::fixtures::run(&f),
        Cmd::Interop(f) => xtask::interop::run(&f),
        Cmd::Bench(f) => xtask::bench::run(&f),
        Cmd::Miri(f) => xtask::miri::run(&f),
        Cmd::Unicode(f) => xtask::unicode::run(f.check),
        Cmd::Fuzz(f) => xtask::fuzz::run(&f),
        Cmd::Size(size) => xtask::size::run(size.files.as_deref()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: error: {message}");
            ExitCode::FAILURE
        }
    }
}
