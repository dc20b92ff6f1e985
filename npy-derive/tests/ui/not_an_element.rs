use npy_core::NpyElement;

#[derive(NpyElement)]
struct Row {
    id: i64,
    data: Vec<f32>,
}

fn main() {}
