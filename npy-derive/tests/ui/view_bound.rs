// Generic code over views needs the element type's bit-pattern bound; the compiler must name it
// through a public path (`bytemuck::CheckedBitPattern`, re-exported as `npy_core::bytemuck`),
// never through a hidden module of npy-core.
fn first<T: npy_core::NpyElement + Copy>(bytes: &[u8]) -> Option<T> {
    npy_core::NpyView::<T>::new(bytes).ok()?.data().first().copied()
}

fn main() {
    let _ = first::<f32>(&[]);
}
