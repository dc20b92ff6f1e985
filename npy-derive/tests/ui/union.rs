use npy_core::NpyElement;

#[derive(NpyElement)]
union Bits {
    f: f32,
    u: u32,
}

fn main() {}
