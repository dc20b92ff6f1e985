//! The header codec: bytes -> `Header::read`; anything accepted must write back and re-read
//! to the same header.
#![no_main]
use libfuzzer_sys::fuzz_target;
use npy_core::Header;

fuzz_target!(|data: &[u8]| {
    if let Ok(parsed) = Header::read(&mut &data[..]) {
        let _ = parsed.header.nbytes();
        if let Ok(bytes) = parsed.header.to_bytes(None) {
            let again = Header::read(&mut &bytes[..]).expect("a written header reads back");
            assert_eq!(again.header, parsed.header);
        }
    }
});
