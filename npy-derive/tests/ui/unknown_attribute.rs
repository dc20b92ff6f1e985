use npy_core::NpyElement;

#[derive(NpyElement)]
#[npy(packed)]
struct Point {
    x: f32,
    #[npy(rename = "why", skip)]
    y: f32,
}

fn main() {}
