//! Load a matrix into ndarray: the dimension comes from the type you ask for.
//!
//! `cargo run -p npy-core --example load_matrix --all-features`
use ndarray::{array, Array2, ArrayD};

fn main() -> Result<(), npy_core::Error> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("m.npy");
    npy_core::write_ndarray(&path, &array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]])?;

    let m: Array2<f32> = npy_core::read_ndarray(&path)?; // a 2-d file, checked
    println!("{m}");
    assert_eq!(m[[1, 2]], 6.0);

    let any: ArrayD<f32> = npy_core::read_ndarray(&path)?; // any number of dimensions
    assert_eq!(any.shape(), [2, 3]);
    Ok(())
}
