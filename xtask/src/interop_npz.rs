//! The `.npz` half of `cargo xtask interop`: every numpy archive in `fixtures/npz/` is
//! rewritten with npy-core's [`NpzWriter`] (each `.npy` member through `read_dyn` /
//! `add_dyn`, other members as raw bytes) three ways, stored and 64-byte aligned (our
//! default), stored in numpy's unaligned layout, and deflated; plus a member streamed row by
//! row and an archive of 70,000 members (zip64 end records). `xtask/interop.py` then checks
//! each with Python's `zipfile` (`testzip`: every CRC) and `np.load` (the same keys and
//! values as numpy's archive; data at multiples of 64 where we promise it).

use std::fs;
use std::path::{Path, PathBuf};

use npy_core::WriteOptions;
use npy_npz::{Compression, NpzArchive, NpzWriter};

/// Writes our archives into `out_dir`; returns `(ours, numpy's)` pairs for interop.py.
pub fn write_archives(fixtures: &Path, out_dir: &Path) -> Result<Vec<(PathBuf, PathBuf)>, String> {
    fs::create_dir_all(out_dir).map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let names = crate::interop::sorted_names(fixtures, ".npz")?;
    let mut pairs = Vec::new();
    for name in names {
        let src = fixtures.join(&name);
        let stem = name.trim_end_matches(".npz");
        for (tag, compression, alignment) in [
            ("aligned", Compression::Stored, 64),
            ("numpy_layout", Compression::Stored, 1),
            ("deflated", Compression::NUMPY_DEFLATED, 64),
        ] {
            let dst = out_dir.join(format!("{stem}.{tag}.npz"));
            rewrite(&src, &dst, compression, alignment)
                .map_err(|e| format!("{name} ({tag}): {e}"))?;
            pairs.push((dst, src.clone()));
        }
    }
    let streamed = out_dir.join("streamed.npz");
    write_streamed(&streamed).map_err(|e| format!("streamed.npz: {e}"))?;
    pairs.push((streamed, PathBuf::from("-")));
    let blocks = out_dir.join("blocks.npz");
    write_blocks(&blocks).map_err(|e| format!("blocks.npz: {e}"))?;
    pairs.push((blocks, PathBuf::from("-")));
    let many = out_dir.join("many_70000.npz");
    write_many(&many).map_err(|e| format!("many_70000.npz: {e}"))?;
    pairs.push((many, PathBuf::from("-")));
    Ok(pairs)
}

fn rewrite(
    src: &Path,
    dst: &Path,
    compression: Compression,
    alignment: u16,
) -> Result<(), npy_npz::Error> {
    let npz = NpzArchive::open(src)?;
    let mut w = NpzWriter::create(dst)?
        .compression(compression)
        .alignment(alignment);
    let members = npz.members().to_vec();
    for m in &members {
        let key = m.key();
        if npz.is_npy(key)? && !npz.header(key)?.header.dtype.has_object() {
            w.add_dyn(key, &npz.read_dyn(key)?)?;
        } else if npz.is_npy(key)? {
            // an object array: its pickle copied as it is
            w.add_npy(key, npz.open_member(key)?)?;
        } else {
            w.add_raw(&m.name, &npz.read_bytes(key)?)?;
        }
    }
    w.finish()
}

/// `rows`: 10,000 rows of 3 `u32`, `i*3 + j`, streamed; checked by interop.py.
fn write_streamed(dst: &Path) -> Result<(), npy_npz::Error> {
    let mut w = NpzWriter::create(dst)?;
    let mut s = w.stream::<u32>("rows", &WriteOptions::new(), &[3])?;
    for i in 0..10_000u32 {
        s.push_row(&[i * 3, i * 3 + 1, i * 3 + 2])?;
    }
    s.finish()?;
    w.finish()
}

/// Members deflated on 2 threads in 1 MiB blocks: `ramp` (400,000 `f64`, `i * 0.5`: 3.2 MB,
/// four blocks, the last one short) and `empty` (`f32`, shape (0,)); checked by interop.py.
fn write_blocks(dst: &Path) -> Result<(), npy_npz::Error> {
    let mut w = NpzWriter::create(dst)?
        .compression(Compression::NUMPY_DEFLATED)
        .threads(2);
    let ramp: Vec<f64> = (0..400_000).map(|i| f64::from(i) * 0.5).collect();
    w.add("ramp", &ramp, &[400_000])?;
    w.add("empty", &[0f32; 0], &[0])?;
    w.finish()
}

/// 70,000 0-d `u8` members `k0`…: past 65,535 the end records are zip64.
fn write_many(dst: &Path) -> Result<(), npy_npz::Error> {
    let mut w = NpzWriter::create(dst)?.alignment(1);
    for i in 0..70_000u32 {
        w.add(&format!("k{i}"), &[(i % 251) as u8], &[])?;
    }
    w.finish()
}
