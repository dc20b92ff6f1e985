//! Map a file and use it without copying: as a slice, and as an ndarray view.
//!
//! `cargo run -p npy-core --example map_file --all-features`
use ndarray::Ix2;
use npy_core::NpyMmap;

fn main() -> Result<(), npy_core::Error> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("w.npy");
    let values: Vec<f32> = (0..12).map(|i| i as f32).collect();
    npy_core::write(&path, &values, &[3, 4])?;

    // SAFETY: nothing modifies or truncates the file while it is mapped (npy_core's own path
    // writers replace a file by renaming a new one over it, which leaves the mapping intact).
    let m = unsafe { NpyMmap::<f32>::open(&path)? };
    assert_eq!(m.data(), values); // the file's pages, no copy
    let a = m.as_ndarray::<Ix2>()?; // an ArrayView2 of the same pages
    println!("{a}");
    println!("column sums {}", a.sum_axis(ndarray::Axis(0)));
    assert_eq!(a[[2, 3]], 11.0);
    Ok(())
}
