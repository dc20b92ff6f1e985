//! Converts IN to OUT by their extensions (.npy, .npz, .arrow, .parquet), as `npy convert`:
//! `cargo run -p npy-arrow --features parquet --example npy_convert -- in.npy out.parquet`.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        return Err("usage: npy_convert IN OUT".into());
    };
    let options = npy_arrow::ConvertOptions::new();
    npy_arrow::convert(input, output, &options)?;
    Ok(())
}
