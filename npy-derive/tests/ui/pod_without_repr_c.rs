use npy_core::NpyElement;

#[derive(NpyElement, Clone, Copy)]
#[npy(pod)]
struct Point {
    x: f32,
    y: f32,
}

#[derive(NpyElement, Clone, Copy)]
#[npy(align, pod)]
#[repr(packed)]
struct Packed {
    x: f32,
    id: i64,
}

fn main() {}
