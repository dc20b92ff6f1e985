//! The inflaters npy-npz chose between, on one deflated member (issue 22): libdeflate's
//! whole-buffer inflate, zlib's (through flate2) into the same buffer, and the two ways
//! npy-npz reads the member (`read`, inflated whole; `npy_reader`, streamed through zlib).
//! Each is timed in CPU seconds of this thread (`/proc/thread-self/stat`), so that a loaded
//! machine slows it less than wall time; `cargo run --release -p npy-bench --bin inflaters`.

use std::time::Instant;

/// User + system CPU time of this thread, in seconds (Linux; wall time elsewhere).
fn cpu_seconds() -> f64 {
    let ticks = std::fs::read_to_string("/proc/thread-self/stat")
        .ok()
        .and_then(|s| {
            let after = s.rsplit_once(')')?.1;
            let f: Vec<&str> = after.split_whitespace().collect();
            // fields 14 and 15 of stat(5), counted from the state field (3)
            Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
        });
    match ticks {
        Some(t) => t as f64 / 100.0,
        None => START.with(|s| s.elapsed().as_secs_f64()),
    }
}

thread_local! {
    static START: Instant = Instant::now();
}

/// The least CPU time of `reps` runs of `f`, in milliseconds.
fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut best = f64::MAX;
    for _ in 0..reps {
        let t = cpu_seconds();
        f();
        best = best.min(cpu_seconds() - t);
    }
    best * 1e3
}

/// The wall time of one run of `f`, in milliseconds.
fn wall_once(f: impl FnOnce()) -> f64 {
    let t0 = Instant::now();
    f();
    t0.elapsed().as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = npy_bench::data_dir()?;
    let path = npy_bench::npz_deflated_file(&dir)?;
    let key = npy_bench::NPZ_DEFLATED_KEY;
    let npz = npy_npz::NpzArchive::open(&path)?;
    let m = npz.member(key)?.clone();
    let raw = std::fs::read(&path)?;
    // the member's compressed bytes: after its local header (name and extra field lengths)
    let at = m.header_offset as usize;
    let start = at
        + 30
        + usize::from(u16::from_le_bytes([raw[at + 26], raw[at + 27]]))
        + usize::from(u16::from_le_bytes([raw[at + 28], raw[at + 29]]));
    let compressed = &raw[start..start + m.compressed_size as usize];
    let size = m.size as usize;
    let reps = 5;
    let libdeflate = time(reps, || {
        let mut out = vec![0u8; size];
        let n = libdeflater::Decompressor::new()
            .deflate_decompress(compressed, &mut out)
            .unwrap();
        assert_eq!(n, size);
    });
    let zlib = time(reps, || {
        let mut out = vec![0u8; size];
        let mut d = flate2::Decompress::new(false);
        d.decompress(compressed, &mut out, flate2::FlushDecompress::Finish)
            .unwrap();
        assert_eq!(d.total_out() as usize, size);
    });
    let crc = time(reps, || {
        std::hint::black_box(crc32fast::hash(std::hint::black_box(compressed)));
    });
    let read = time(reps, || {
        npy_npz::NpzArchive::open(&path)
            .unwrap()
            .read::<f32>(key)
            .unwrap();
    });
    let stream = time(reps, || {
        let npz = npy_npz::NpzArchive::open(&path).unwrap();
        npz.npy_reader(key).unwrap().read_vec::<f32>().unwrap();
    });
    let mib = size as f64 / f64::from(1 << 20);
    println!(
        "member: {mib:.0} MiB, {} compressed bytes",
        m.compressed_size
    );
    println!("CPU ms, least of {reps}:");
    println!("  inflate only, libdeflate       {libdeflate:8.1}");
    println!("  inflate only, zlib (flate2)    {zlib:8.1}");
    println!("  crc32fast of the compressed    {crc:8.1}");
    println!("  NpzArchive::read (libdeflate)  {read:8.1}");
    println!("  npy_reader().read_vec (zlib)   {stream:8.1}");
    // Wall time, for the two-thread inflate (the second thread's CPU time is not this
    // one's): the three interleaved, round after round, so that a load that comes and goes
    // (other builds on a shared machine) falls on each alike; least and median of the rounds.
    let one = npy_core::ReadOptions::default().threads(1);
    let two = npy_core::ReadOptions::default().threads(2);
    let read_with = |options: npy_core::ReadOptions| {
        npy_npz::NpzArchive::open_with(&path, options)
            .unwrap()
            .read::<f32>(key)
            .unwrap();
    };
    let mut walls: [Vec<f64>; 3] = Default::default();
    let rounds = 15;
    for _ in 0..=rounds {
        let t = [
            wall_once(|| {
                let mut out = vec![0u8; size];
                let n = libdeflater::Decompressor::new()
                    .deflate_decompress(compressed, &mut out)
                    .unwrap();
                assert_eq!(n, size);
            }),
            wall_once(|| read_with(one)),
            wall_once(|| read_with(two)),
        ];
        for (w, t) in walls.iter_mut().zip(t) {
            w.push(t);
        }
    }
    println!("wall ms, least and median of {rounds} interleaved rounds (after one):");
    for (name, w) in [
        "inflate only, libdeflate     ",
        "NpzArchive::read, 1 thread   ",
        "NpzArchive::read, 2 threads  ",
    ]
    .iter()
    .zip(&mut walls)
    {
        w.remove(0);
        w.sort_by(f64::total_cmp);
        println!("  {name}  {:8.1} {:8.1}", w[0], w[w.len() / 2]);
    }
    Ok(())
}
