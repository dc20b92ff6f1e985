//! The command line of `cargo xtask`: one declaration, whose doc comments are the `--help`.

use clap::{Args, Parser, Subcommand};

/// Maintainer tasks for the npy workspace.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
pub struct Xtask {
    /// The task.
    #[command(subcommand)]
    pub command: Cmd,
}

/// The tasks, one module each.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Make (or bring up to date) the project's Python environment in target/xtask-venv from
    /// xtask/requirements.txt; tests that check against numpy use it.
    Venv,
    /// Regenerate fixtures/ with xtask/fixtures.py (numpy==2.4.6).
    Fixtures(Fixtures),
    /// Check that no resolved dependency needs a newer Rust than the workspace's rust-version.
    Msrv,
    /// Check our files against numpy: the fixtures written back by npy-core load identically and
    /// match byte for byte, and `npy show` prints random arrays as numpy's `str()` and
    /// `tolist()` do.
    Interop(Interop),
    /// Run the npy-bench criterion suite, time numpy on the same files, measure peak memory and
    /// the `npy show` targets; print one table and write it into npy-bench/README.md.
    Bench(Bench),
    /// Run npy-core's unit, view and miri_paths tests under Miri (cargo +nightly miri; needs
    /// the miri component; about 3 minutes on an idle machine).
    #[allow(clippy::doc_markdown, reason = "clap help text, printed as written")]
    Miri(Miri),
    /// Regenerate npy-core/src/literal/printable.rs, the code points Python's repr escapes,
    /// from the Python that runs numpy.
    Unicode(Unicode),
    /// Run the cargo-fuzz targets of fuzz/ (cargo +nightly fuzz; `cargo install --locked
    /// cargo-fuzz`), each seeded from fixtures/ and from issue 23's hostile inputs, with the
    /// allocation limit of its documented budget; prints executions and findings per target.
    #[allow(clippy::doc_markdown, reason = "clap help text, printed as written")]
    Fuzz(Fuzz),
    /// Print each published crate's non-test source lines and the public names at its root
    /// (issue 40's measures of npy-core's size).
    Size(Size),
}

/// Flags of `cargo xtask size`.
#[derive(Debug, Args)]
pub struct Size {
    /// Instead of the table, list this crate's source files with their non-test lines,
    /// largest first.
    #[arg(long, value_name = "CRATE")]
    pub files: Option<String>,
}

/// Flags of `cargo xtask fuzz`.
#[derive(Debug, Args)]
pub struct Fuzz {
    /// Minutes each target runs.
    #[arg(long, default_value_t = 2.0)]
    pub minutes: f64,
    /// Run only this target (header, read_dyn, typed, pickle, npz, npz_directory,
    /// serde_from_str).
    #[allow(clippy::doc_markdown, reason = "clap help text, printed as written")]
    #[arg(long)]
    pub target: Option<String>,
}

/// Flags of `cargo xtask fixtures`.
#[derive(Debug, Args)]
pub struct Fixtures {
    /// Regenerate into a temporary directory and fail if fixtures/ differs.
    #[arg(long)]
    pub check: bool,
}

/// Flags of `cargo xtask interop`.
#[derive(Debug, Args)]
pub struct Interop {
    /// Seed of the random arrays `npy show` is compared on.
    #[arg(long, default_value_t = 20_251_130)]
    pub seed: u64,
    /// How many random arrays to compare.
    #[arg(long, default_value_t = 400)]
    pub count: u32,
    /// Only the `npy show` comparison (skip the write-back of the fixtures).
    #[arg(long)]
    pub show_only: bool,
}

/// Flags of `cargo xtask bench`.
#[derive(Debug, Args)]
pub struct Bench {
    /// Criterion's --quick; numpy timed 3 × 3 instead of 5 × 10.
    #[arg(long)]
    pub quick: bool,
    /// Rebuild the table from the last results without running anything.
    #[arg(long)]
    pub table_only: bool,
    /// Measure only one whole-process part of the table and print it (the README is not
    /// touched).
    #[arg(long, value_enum, conflicts_with = "table_only")]
    pub only: Option<BenchPart>,
}

/// The parts of `cargo xtask bench` measured as whole processes, which `--only` runs alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchPart {
    /// `npy show` (summary and `--json`) of a 400 MB file against numpy.
    Show,
    /// `write_ndarray` of a non-contiguous 1 GiB view against `np.save`.
    WriteView,
    /// `npy convert --order F` and `--byte-order big` of a 512 MiB file against numpy and `cp`.
    Convert,
    /// `npy convert A.npz A.safetensors` of 1 GiB (stored and deflated) against `save_file`.
    Safetensors,
    /// Remote reads (issue 25): `npy show URL` over HTTP, a 256 MiB `.npy` and 1,000 headers
    /// over S3 on moto against boto3.
    Remote,
    /// Issue 24's 1M-record file: `read_dyn` against `np.load`, to a `RecordBatch` against
    /// pyarrow, to Parquet against `pq.write_table`.
    Columnar,
    /// `.npz` (issues 11 and 22): criterion's `npz/` benchmarks and numpy's same reads and
    /// writes, in one run; the `.npz` rows and targets of the table.
    Npz,
    /// Issue 41: `npy sql`'s group-by over 8 shards of 1M records against numpy, pyarrow and
    /// reading the bytes once, on Ballista (npy-ballista's example `cluster`), and over 77
    /// shards (4.3 GB) against its peak-memory bound (builds `npy` with the feature `sql` and
    /// both examples in one release build).
    Sql,
}

/// Flags of `cargo xtask miri`.
#[derive(Debug, Args)]
pub struct Miri {
    /// Arguments passed to the test binaries (after `--`).
    #[arg(last = true)]
    pub test_args: Vec<String>,
}

/// Flags of `cargo xtask unicode`.
#[derive(Debug, Args)]
pub struct Unicode {
    /// Fail if the committed table differs from what Python's Unicode database gives.
    #[arg(long)]
    pub check: bool,
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::{Cmd, Xtask};

    #[test]
    fn flags_are_consistent() {
        Xtask::command().debug_assert();
    }

    #[test]
    fn flags_parse_and_unknown_ones_are_errors() {
        let parse = |args: &[&str]| Xtask::try_parse_from(args.iter().copied());
        let err = parse(&["xtask", "fixtures", "--bogus"]).unwrap_err();
        assert!(err.to_string().contains("--bogus"), "{err}");
        let x = parse(&["xtask", "interop", "--seed", "7", "--show-only"]).unwrap();
        assert!(matches!(
            x.command,
            Cmd::Interop(super::Interop {
                seed: 7,
                show_only: true,
                ..
            })
        ));
        let x = parse(&["xtask", "bench", "--only", "write-view"]).unwrap();
        assert!(matches!(
            x.command,
            Cmd::Bench(super::Bench {
                only: Some(super::BenchPart::WriteView),
                ..
            })
        ));
        assert!(parse(&["xtask", "bench", "--only", "show", "--table-only"]).is_err());
        let x = parse(&["xtask", "miri", "--", "--exact", "t"]).unwrap();
        assert!(matches!(x.command, Cmd::Miri(m) if m.test_args == ["--exact", "t"]));
    }
}
