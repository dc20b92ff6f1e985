//! `cargo xtask msrv`: the workspace's `rust-version` holds for what it builds with.
//!
//! `.ci/run` builds the workspace with that toolchain (`cargo +1.89 check`); this check says
//! which dependency is to blame when that fails, and stands in where the toolchain cannot be
//! installed: every package in the resolved dependency graph (`cargo metadata`, as
//! `Cargo.lock` pins it) must declare a `rust-version` no newer than ours, or none. std APIs
//! newer than the MSRV are caught by clippy's `incompatible_msrv` lint as well.

use std::process::Command;

use serde_json::Value;

/// A `major.minor.patch` version as numbers (`"1.89"` is `(1, 89, 0)`).
fn version(text: &str) -> Option<(u64, u64, u64)> {
    let mut parts = text.split('.').map(str::parse::<u64>);
    let major = parts.next()?.ok()?;
    let minor = parts.next().unwrap_or(Ok(0)).ok()?;
    let patch = parts.next().unwrap_or(Ok(0)).ok()?;
    Some((major, minor, patch))
}

/// Entry point: fail when a resolved package needs a newer Rust than the workspace declares.
pub fn run() -> Result<(), String> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(crate::workspace_root())
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let meta: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("cargo metadata printed no JSON: {e}"))?;
    let packages = meta["packages"]
        .as_array()
        .ok_or("cargo metadata has no packages")?;
    let ours = packages
        .iter()
        .find(|p| p["name"] == "npy-core")
        .and_then(|p| p["rust_version"].as_str())
        .ok_or("npy-core declares no rust-version")?;
    let msrv = version(ours).ok_or_else(|| format!("unreadable rust-version {ours}"))?;
    let mut newer = Vec::new();
    for p in packages {
        let Some(rv) = p["rust_version"].as_str() else {
            continue;
        };
        if version(rv).is_none_or(|v| v > msrv) {
            newer.push(format!("{} {} needs Rust {rv}", p["name"], p["version"]));
        }
    }
    if newer.is_empty() {
        println!(
            "msrv: {} resolved packages declare rust-version <= {ours} (or none)",
            packages.len()
        );
        Ok(())
    } else {
        Err(format!(
            "these packages need a newer Rust than the workspace's {ours}:\n  {}",
            newer.join("\n  ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::version;

    #[test]
    fn versions_compare_as_numbers() {
        assert_eq!(version("1.89"), Some((1, 89, 0)));
        assert!(version("1.100.0") > version("1.89"));
        assert!(version("1.89.1") > version("1.89"));
        assert_eq!(version("1.x"), None);
    }
}
