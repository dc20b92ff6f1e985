//! A whole file of any dtype: `read_dyn_using` npy-pickle's codec (object arrays decoded) from
//! a stream of unknown length and with the length known (as for a file), plus `TensorInfo`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use npy_core::{NpyReader, TensorInfo};
use npy_pickle::PickleCodec;

fuzz_target!(|data: &[u8]| {
    let _ = TensorInfo::from_reader("fuzz", &mut &data[..]);
    if let Ok(mut r) = NpyReader::new(data) {
        let _ = r.read_dyn_using(&PickleCodec::default());
    }
    if let Ok(r) = NpyReader::new(data) {
        let avail = (data.len() as u64).saturating_sub(r.parsed_header().data_offset());
        let _ = r
            .with_available_bytes(avail)
            .read_dyn_using(&PickleCodec::default());
    }
});
