use npy_core::NpyElement;

#[derive(NpyElement)]
enum Shape {
    Circle(f64),
    Square(f64),
}

fn main() {}
