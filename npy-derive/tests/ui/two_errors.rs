use npy_core::NpyElement;

#[derive(NpyElement)]
struct Sample {
    values: [f32],
    #[npy(width = 0)]
    tag: String,
    #[npy(rename = "values")]
    other: u8,
}

fn main() {}
