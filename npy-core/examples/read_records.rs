//! Read numpy records (a structured dtype) into Rust structs, matching fields by name.
//!
//! `cargo run -p npy-core --example read_records --all-features`
//!
//! The input is `fixtures/rec_packed.npy`, written by numpy:
//! `np.array([...], dtype=[('x', '<f4'), ('y', '<f4'), ('id', '<i8')])`.
use npy_core::NpyElement;

#[derive(NpyElement, Debug, PartialEq)]
struct Point {
    id: i64, // fields match by name, in any order
    x: f32,
    y: f32,
}

fn main() -> Result<(), npy_core::Error> {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/rec_packed.npy");
    let points: Vec<Point> = npy_core::read(fixture)?.into_vec();
    for p in &points {
        println!("{p:?}");
    }
    assert_eq!(points[0].id, 17);

    // And back: numpy reads this as a structured array with the fields in this order.
    let dir = tempfile::tempdir()?;
    let out = dir.path().join("points.npy");
    npy_core::write(&out, &points, &[points.len() as u64])?;
    let info = npy_core::TensorInfo::from_path(&out)?;
    println!("{}: {} {:?}", info.name, info.dtype, info.shape);
    assert_eq!(
        info.dtype.to_string(),
        "[('id', '<i8'), ('x', '<f4'), ('y', '<f4')]"
    );
    Ok(())
}
