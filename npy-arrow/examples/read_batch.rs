//! Reads a `.npy` file into one Arrow `RecordBatch` and prints its schema and row count:
//! `cargo run -p npy-arrow --release --example read_batch -- data.npy`.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: read_batch FILE.npy")?;
    let batch = npy_arrow::read_npy(&path)?;
    println!("{} rows", batch.num_rows());
    for f in batch.schema().fields() {
        println!("{}: {}", f.name(), f.data_type());
    }
    Ok(())
}
