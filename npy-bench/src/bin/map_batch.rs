//! Issue 24's map target ("1 GiB f32 map to Arrow: no data copied; time independent of
//! size"): `map_batch DIR` writes `.npy` files of `<f4` at 1 MiB, 64 MiB and 1 GiB of data
//! in DIR (sparse: their data pages are never written, and a copy would have to touch them),
//! then, for each, maps the file and makes its `RecordBatch` with
//! `npy_arrow::batch_from_npy_bytes` 101 times (open, map, batch, drop), and prints one JSON
//! line: each size's median seconds per call and whether the column's buffer is the map
//! itself (the pointer test). The files are removed afterwards.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// Elements of `<f4` in each file: 1 MiB, 64 MiB and 1 GiB of data.
const SIZES: [u64; 3] = [1 << 18, 1 << 24, 1 << 28];
const CALLS: usize = 101;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1) else {
        eprintln!("usage: map_batch DIR");
        return ExitCode::FAILURE;
    };
    let mut cases = Vec::new();
    for n in SIZES {
        let path = Path::new(&dir).join(format!("map_batch_{n}.npy"));
        let result = measure(&path, n);
        let _ = std::fs::remove_file(&path);
        match result {
            Ok((seconds, same)) => cases.push(format!(
                "{{\"data_bytes\":{},\"seconds\":{seconds:.9},\"zero_copy\":{same}}}",
                4 * n
            )),
            Err(e) => {
                eprintln!("map_batch: {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    println!("{{\"cases\":[{}]}}", cases.join(","));
    ExitCode::SUCCESS
}

/// Writes the sparse file of `n` `<f4` at `path`, then returns the median seconds of one
/// open + map + batch, and whether every call's column buffer started at the map's data.
fn measure(path: &Path, n: u64) -> Result<(f64, bool), Box<dyn std::error::Error>> {
    let header = npy_core::Header::new("<f4".parse()?, vec![n]).to_bytes(None)?;
    {
        let file = std::fs::File::create(path)?;
        std::io::Write::write_all(&mut &file, &header)?;
        file.set_len(header.len() as u64 + 4 * n)?;
    }
    let mut times = Vec::with_capacity(CALLS);
    let mut same = true;
    for _ in 0..CALLS {
        let start = Instant::now();
        let file = std::fs::File::open(path)?;
        // SAFETY: the file is this program's own, made above, and nothing changes it while
        // it is mapped.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file) }?;
        let data_at = map.as_ptr() as usize + header.len();
        let batch = npy_arrow::batch_from_npy_bytes(map, "x")?;
        let column = batch.column(0).to_data();
        same &= column.len() as u64 == n && column.buffers()[0].as_ptr() as usize == data_at;
        drop(batch);
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok((times[CALLS / 2], same))
}
