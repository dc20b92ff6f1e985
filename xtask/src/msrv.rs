//! `cargo xtask msrv`: the workspace's `rust-version` holds for what it builds with.
//!
//! `.ci/run` builds the workspace with that toolchain (`cargo +1.89 check`); this check says
//! which dependency is to blame when that fails, and stands in where the toolchain cannot be
//! installed: every package in the resolved dependency graph (`cargo metadata`, as
//! `Cargo.lock` pins it) must declare a `rust-version` no newer than ours, or none. std APIs
//! newer than the MSRV are caught by clippy's `incompatible_msrv` lint as well.
//!
//! A workspace member that states a newer `rust-version` of its own (npy-datafusion: DataFusion
//! needs 1.94) is an engine crate outside the MSRV promise: it and what only it pulls in are
//! left out, so the check walks the dependency graph (default features, as `cargo metadata`
//! resolves it) from the members that keep the workspace's MSRV, never entering one that
//! does not.

use std::collections::{HashMap, HashSet};
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
    let by_id: HashMap<&str, &Value> = packages
        .iter()
        .filter_map(|p| Some((p["id"].as_str()?, p)))
        .collect();
    let newer_than_ours = |p: &Value| {
        p["rust_version"]
            .as_str()
            .is_some_and(|rv| version(rv).is_none_or(|v| v > msrv))
    };
    let deps: HashMap<&str, Vec<&str>> = meta["resolve"]["nodes"]
        .as_array()
        .ok_or("cargo metadata has no resolve graph")?
        .iter()
        .filter_map(|n| {
            let deps = n["deps"].as_array()?.iter();
            Some((
                n["id"].as_str()?,
                deps.filter_map(|d| d["pkg"].as_str()).collect(),
            ))
        })
        .collect();
    let mut todo: Vec<&str> = Vec::new();
    for id in meta["workspace_members"]
        .as_array()
        .ok_or("cargo metadata has no workspace members")?
        .iter()
        .filter_map(Value::as_str)
    {
        match by_id.get(id) {
            Some(p) if newer_than_ours(p) => println!(
                "msrv: {} states rust-version {} of its own (an engine crate): not checked",
                p["name"], p["rust_version"]
            ),
            Some(_) => todo.push(id),
            None => {}
        }
    }
    let members: HashSet<&str> = todo.iter().copied().collect();
    let mut seen: HashSet<&str> = HashSet::new();
    while let Some(id) = todo.pop() {
        if !seen.insert(id) {
            continue;
        }
        for &dep in deps.get(id).into_iter().flatten() {
            let engine = by_id.get(dep).is_some_and(|p| {
                p["source"].is_null() && !members.contains(dep) && newer_than_ours(p)
            });
            if !engine {
                todo.push(dep);
            }
        }
    }
    let mut newer = Vec::new();
    for id in &seen {
        let Some(p) = by_id.get(id) else { continue };
        let Some(rv) = p["rust_version"].as_str() else {
            continue;
        };
        if version(rv).is_none_or(|v| v > msrv) {
            newer.push(format!("{} {} needs Rust {rv}", p["name"], p["version"]));
        }
    }
    newer.sort();
    if newer.is_empty() {
        println!(
            "msrv: {} packages the MSRV members build with declare rust-version <= {ours} (or none)",
            seen.len()
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
