use npy_core::NpyElement;

#[derive(NpyElement)]
struct Borrowed<'a> {
    id: i64,
    name: &'a str,
}

fn main() {}
