//! Typed reads: f32, f64 (owned, streamed, viewed) and a derived record.
#![no_main]
use libfuzzer_sys::fuzz_target;
use npy_core::{NpyElement, NpyReader, NpyView};

#[derive(NpyElement, Debug)]
struct Rec {
    x: f32,
    id: i64,
    pos: [f64; 2],
    #[npy(width = 4)]
    tag: String,
    raw: Vec<u8>,
    flag: bool,
}

fn all<T: NpyElement>(data: &[u8]) {
    if let Ok(mut r) = NpyReader::new(data) {
        let _ = r.read_vec::<T>();
    }
    if let Ok(r) = NpyReader::new(data) {
        let avail = (data.len() as u64).saturating_sub(r.parsed_header().data_offset());
        let _ = r.with_available_bytes(avail).read_vec::<T>();
    }
    if let Ok(mut r) = NpyReader::new(data) {
        if let Ok(it) = r.iter::<T>() {
            for v in it.take(1 << 16) {
                if v.is_err() {
                    break;
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    all::<f32>(data);
    all::<f64>(data);
    all::<Rec>(data);
    // Views need alignment: copy into an 8-aligned buffer.
    let mut words = vec![0u64; data.len().div_ceil(8)];
    let buf = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..data.len()];
    buf.copy_from_slice(data);
    let _ = NpyView::<f64>::new(buf);
    let _ = NpyView::<f32>::new(buf);
    let _ = NpyView::<bool>::new(buf);
    let _ = npy_core::view::view_or_copy::<f64>(buf);
});
