//! Benchmarks of `npy-core` against peer crates (npyz, ndarray-npy), numpy and the limit
//! (`std::fs::read` / `fs::write` / `memcpy` of the same bytes).
//!
//! The criterion suite is `benches/npy.rs` (`cargo bench -p npy-bench`); `cargo xtask bench`
//! runs it together with numpy's timings and prints one table. This library holds the shared
//! input generation so benches and tools make the same files.

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

/// A float32 `.npy` file of `bytes` data bytes (C order, 1-d), written by npy-core into `dir`
/// once and reused; returns its path.
///
/// # Errors
/// I/O and write errors.
pub fn f32_file(dir: &Path, bytes: usize) -> Result<PathBuf, npy_core::Error> {
    let path = dir.join(format!("f32_{bytes}.npy"));
    if !path.exists() {
        let n = bytes / 4;
        let data: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        npy_core::write(&path, &data, &[n as u64])?;
    }
    Ok(path)
}

/// Rows of [`rows_file`]: 1,000,000 rows of 3 `f32` (12 MB), read one row at a time.
pub const ROWS: usize = 1_000_000;

/// The `(1000000, 3)` float32 `.npy` file of the row-by-row read (`read_rows` group).
///
/// # Errors
/// I/O and write errors.
pub fn rows_file(dir: &Path) -> Result<PathBuf, npy_core::Error> {
    let path = dir.join("f32_rows_1Mx3.npy");
    if !path.exists() {
        let data: Vec<f32> = (0..ROWS * 3).map(|i| i as f32).collect();
        npy_core::write(&path, &data, &[ROWS as u64, 3])?;
    }
    Ok(path)
}

/// A big-endian float64 `.npy` file of `bytes` data bytes.
///
/// # Errors
/// I/O and write errors.
pub fn f64_be_file(dir: &Path, bytes: usize) -> Result<PathBuf, npy_core::Error> {
    let path = dir.join(format!("f64be_{bytes}.npy"));
    if !path.exists() {
        let n = bytes / 8;
        let data: Vec<f64> = (0..n).map(|i| i as f64 * 0.25).collect();
        npy_core::WriteOptions::new()
            .byte_order(npy_core::ByteOrder::Big)
            .write_path(&path, &data, &[n as u64])?;
    }
    Ok(path)
}

/// A float16 `.npy` file of `bytes` data bytes.
///
/// # Errors
/// I/O and write errors.
pub fn f16_file(dir: &Path, bytes: usize) -> Result<PathBuf, npy_core::Error> {
    let path = dir.join(format!("f16_{bytes}.npy"));
    if !path.exists() {
        let n = bytes / 2;
        let data: Vec<npy_core::half::f16> = (0..n)
            .map(|i| npy_core::half::f16::from_f32((i % 2048) as f32))
            .collect();
        npy_core::write(&path, &data, &[n as u64])?;
    }
    Ok(path)
}

/// The typical 118-byte header numpy writes (`<f4`, shape `(4, 64)`), 128 bytes with the magic.
///
/// # Panics
/// Never: the header is valid.
pub fn typical_header() -> Vec<u8> {
    npy_core::Header::new("<f4".parse().unwrap(), vec![4, 64])
        .to_bytes(None)
        .unwrap()
}

/// A record header of 4,000 fields `f0000`..`f3999`, alternating `<f4` and `<i2` (shape `(2,)`).
///
/// # Panics
/// Never: the header is valid.
pub fn wide_header() -> Vec<u8> {
    let fields: Vec<(String, npy_core::DType)> = (0..4000)
        .map(|i| {
            (
                format!("f{i:04}"),
                if i % 2 == 0 { "<f4" } else { "<i2" }.parse().unwrap(),
            )
        })
        .collect();
    npy_core::Header::new(
        npy_core::DType::Record(npy_core::dtype::Record::packed(fields).unwrap()),
        vec![2],
    )
    .to_bytes(None)
    .unwrap()
}

/// The record of the record benchmarks, numpy's packed layout
/// `[('x', '<f4'), ('y', '<f4'), ('id', '<i8')]`.
#[derive(npy_core::NpyElement, Debug, Clone, Copy, PartialEq, Default)]
pub struct XyId {
    /// x coordinate.
    pub x: f32,
    /// y coordinate.
    pub y: f32,
    /// identifier.
    pub id: i64,
}

/// The same record in numpy's aligned layout (`align=True`). For these fields the aligned
/// layout needs no padding, so the file's bytes are the packed file's.
#[derive(npy_core::NpyElement, Debug, Clone, Copy, PartialEq, Default)]
#[npy(align)]
pub struct XyIdAligned {
    /// x coordinate.
    pub x: f32,
    /// y coordinate.
    pub y: f32,
    /// identifier.
    pub id: i64,
}

/// [`XyId`] with `#[npy(pod)]`: the same file is read with one `read` into the output.
#[derive(
    npy_core::NpyElement, bytemuck::Pod, bytemuck::Zeroable, Debug, Clone, Copy, PartialEq, Default,
)]
#[npy(pod)]
#[repr(C)]
pub struct XyIdPod {
    /// x coordinate.
    pub x: f32,
    /// y coordinate.
    pub y: f32,
    /// identifier.
    pub id: i64,
}

/// [`XyIdAligned`] with `#[npy(pod)]`.
#[derive(
    npy_core::NpyElement, bytemuck::Pod, bytemuck::Zeroable, Debug, Clone, Copy, PartialEq, Default,
)]
#[npy(align, pod)]
#[repr(C)]
pub struct XyIdAlignedPod {
    /// x coordinate.
    pub x: f32,
    /// y coordinate.
    pub y: f32,
    /// identifier.
    pub id: i64,
}

/// Number of records in the record files.
pub const RECORDS: usize = 1_000_000;

/// The record file of [`RECORDS`] records, packed (`aligned == false`) or aligned.
///
/// # Errors
/// I/O and write errors.
pub fn records_file(dir: &Path, aligned: bool) -> Result<PathBuf, npy_core::Error> {
    let name = if aligned { "aligned" } else { "packed" };
    let path = dir.join(format!("records_{name}_{RECORDS}.npy"));
    if !path.exists() {
        let xy = |i: usize| (i as f32 * 0.5, i as f32 * -0.25, i as i64 * 3);
        if aligned {
            let recs: Vec<XyIdAligned> = (0..RECORDS)
                .map(|i| {
                    let (x, y, id) = xy(i);
                    XyIdAligned { x, y, id }
                })
                .collect();
            npy_core::write(&path, &recs, &[recs.len() as u64])?;
        } else {
            let recs: Vec<XyId> = (0..RECORDS)
                .map(|i| {
                    let (x, y, id) = xy(i);
                    XyId { x, y, id }
                })
                .collect();
            npy_core::write(&path, &recs, &[recs.len() as u64])?;
        }
    }
    Ok(path)
}

/// Every input file of the suite (the 1 GiB file included), so that other tools (numpy's
/// timings, `peak_mem`) find them before the criterion run creates them.
///
/// # Errors
/// I/O and write errors.
pub fn make_all(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    for size in [MIB, 64 * MIB, 256 * MIB, 1024 * MIB] {
        f32_file(dir, size)?;
    }
    f64_be_file(dir, 64 * MIB)?;
    f16_file(dir, 64 * MIB)?;
    records_file(dir, false)?;
    records_file(dir, true)?;
    npz_100_file(dir)?;
    npz_1000_file(dir)?;
    npz_deflated_file(dir)?;
    signal_file(dir)?;
    Ok(())
}

/// Key of the 64 MiB member of [`npz_100_file`].
pub const NPZ_BIG_KEY: &str = "big";

/// A stored `.npz` of 100 members written by npy-core: `big` (64 MiB of float32, the 51st
/// member) among 99 float32 arrays of 1,024 elements (`m0`…).
///
/// # Errors
/// I/O and write errors.
pub fn npz_100_file(dir: &Path) -> Result<PathBuf, npy_npz::Error> {
    let path = dir.join("npz_100_members.npz");
    if !path.exists() {
        let small: Vec<f32> = (0..1024).map(|i| i as f32).collect();
        let big: Vec<f32> = (0..16 * MIB).map(|i| i as f32 * 0.5).collect();
        let mut w = npy_npz::NpzWriter::create(&path)?;
        for i in 0..100 {
            if i == 50 {
                w.add(NPZ_BIG_KEY, &big, &[big.len() as u64])?;
            } else {
                w.add(&format!("m{i}"), &small, &[1024])?;
            }
        }
        w.finish()?;
    }
    Ok(path)
}

/// A stored `.npz` of 1,000 members (`m0`…, float32 (4, 4)), for listing every header.
///
/// # Errors
/// I/O and write errors.
pub fn npz_1000_file(dir: &Path) -> Result<PathBuf, npy_npz::Error> {
    let path = dir.join("npz_1000_members.npz");
    if !path.exists() {
        let mut w = npy_npz::NpzWriter::create(&path)?;
        for i in 0..1000 {
            w.add(&format!("m{i}"), &[i as f32; 16], &[4, 4])?;
        }
        w.finish()?;
    }
    Ok(path)
}

/// Key of the member of [`npz_deflated_file`].
pub const NPZ_DEFLATED_KEY: &str = "signal";

/// [`signal_f32`] of 64 MiB as the one member of a deflated `.npz`, one zlib stream at level 6:
/// the bytes `np.savez_compressed` writes, for the deflated read against `np.load`.
///
/// # Errors
/// I/O and write errors.
pub fn npz_deflated_file(dir: &Path) -> Result<PathBuf, npy_npz::Error> {
    let path = dir.join("npz_deflated_signal_64MiB.npz");
    if !path.exists() {
        let data = signal_f32(16 * MIB);
        let mut w = npy_npz::NpzWriter::create(&path)?
            .compression(npy_npz::Compression::NUMPY_DEFLATED)
            .threads(1);
        w.add(NPZ_DEFLATED_KEY, &data, &[data.len() as u64])?;
        w.finish()?;
    }
    Ok(path)
}

/// The raw deflate stream of [`npz_deflated_file`]'s member and its declared size: the
/// bytes after the member's local header (whose name and extra-field lengths it skips).
///
/// # Errors
/// I/O and archive errors.
pub fn npz_member_deflate(path: &Path) -> Result<(Vec<u8>, usize), npy_npz::Error> {
    let npz = npy_npz::NpzArchive::open(path)?;
    let m = npz.member(NPZ_DEFLATED_KEY)?.clone();
    let raw = std::fs::read(path).map_err(npy_npz::Error::from)?;
    let at = m.header_offset as usize;
    let len = |i: usize| usize::from(u16::from_le_bytes([raw[at + i], raw[at + i + 1]]));
    let start = at + 30 + len(26) + len(28);
    Ok((
        raw[start..start + m.compressed_size as usize].to_vec(),
        m.size as usize,
    ))
}

/// [`signal_f32`] of 64 MiB as an `.npy` file, for numpy's side of the compressed write.
///
/// # Errors
/// I/O and write errors.
pub fn signal_file(dir: &Path) -> Result<PathBuf, npy_core::Error> {
    let path = dir.join(format!("signal_f32_{}.npy", 64 * MIB));
    if !path.exists() {
        let data = signal_f32(16 * MIB);
        npy_core::write(&path, &data, &[data.len() as u64])?;
    }
    Ok(path)
}

/// `n` float32 of a measured-looking signal: a slow sine plus small noise (deterministic).
/// What `savez_compressed` is used for; it compresses to about 90 % with zlib level 6.
pub fn signal_f32(n: usize) -> Vec<f32> {
    let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let noise = (s >> 40) as f32 / (1u64 << 24) as f32;
            (i as f32 * 0.001).sin() + 0.01 * noise
        })
        .collect()
}

/// One mebibyte.
pub const MIB: usize = 1 << 20;

/// The folder the write benchmarks write into: `NPY_BENCH_WRITE_DIR` if set, otherwise
/// `/dev/shm/npy-bench` where `/dev/shm` exists (tmpfs: the writes measure the library and the
/// kernel's copy into the page cache, not the disk's writeback, which throttles a benchmark
/// that writes gigabytes in a loop), otherwise [`data_dir`].
///
/// # Errors
/// I/O errors creating it.
pub fn write_dir() -> std::io::Result<PathBuf> {
    let dir = match std::env::var_os("NPY_BENCH_WRITE_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ if Path::new("/dev/shm").is_dir() => PathBuf::from("/dev/shm/npy-bench"),
        _ => return data_dir(),
    };
    std::fs::create_dir_all(&dir)?;
    dir.canonicalize()
}

/// The folder benchmark inputs live in: `target/bench-data` of the workspace.
///
/// # Errors
/// I/O errors creating it.
pub fn data_dir() -> std::io::Result<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-data");
    std::fs::create_dir_all(&dir)?;
    dir.canonicalize()
}

/// The value of `key` (`"VmHWM:"`, `"VmRSS:"`) in this process's `/proc/self/status`, in KiB
/// (`None` off Linux): what the memory binaries (`peak_mem`, `write_view`) report.
pub fn status_kib(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}
