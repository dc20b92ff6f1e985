use npy_core::NpyElement;

// `#[npy(pod)]` needs the struct to be `bytemuck::Pod` (here it is not).
#[derive(NpyElement, Clone, Copy)]
#[npy(pod)]
#[repr(C)]
struct Point {
    x: f32,
    y: f32,
}

fn main() {}
