//! Whole-member inflate: a member's compressed and uncompressed sizes are in the directory,
//! so one call of libdeflate (its whole-buffer decompressor, 2–3× zlib's speed) fills a
//! buffer of exactly the declared size, and a stream that goes on past it is refused there.

use libdeflater::{DecompressionError, Decompressor};

use crate::error::ErrorKind;

/// Inflates the raw deflate stream `compressed` into exactly `size` bytes.
///
/// Memory: `size` bytes, which the caller checked against what the compressed bytes can
/// expand to ([`crate::limits::max_inflated`]).
///
/// # Errors
/// [`ErrorKind::InflatesPast`] when the stream holds more than `size` bytes,
/// [`ErrorKind::EndsEarly`] when fewer, [`ErrorKind::BadDeflate`] when it is not deflate.
pub(crate) fn inflate(compressed: &[u8], size: usize) -> Result<Vec<u8>, ErrorKind> {
    let mut out = vec![0u8; size];
    match Decompressor::new().deflate_decompress(compressed, &mut out) {
        Ok(n) if n == size => Ok(out),
        Ok(n) => Err(ErrorKind::EndsEarly {
            declared: size as u64,
            found: n as u64,
        }),
        Err(DecompressionError::InsufficientSpace) => Err(ErrorKind::InflatesPast {
            declared: size as u64,
        }),
        Err(DecompressionError::BadData) => Err(ErrorKind::BadDeflate),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn deflate(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn exact_short_long_and_broken() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let c = deflate(&data);
        assert_eq!(inflate(&c, data.len()).unwrap(), data);
        assert!(matches!(
            inflate(&c, data.len() - 1),
            Err(ErrorKind::InflatesPast { .. })
        ));
        assert!(matches!(
            inflate(&c, data.len() + 1),
            Err(ErrorKind::EndsEarly { found: 100_000, .. })
        ));
        assert!(matches!(
            inflate(&[0xff; 8], 10),
            Err(ErrorKind::BadDeflate)
        ));
        // the empty stream, as zlib writes it
        assert_eq!(inflate(&[0x03, 0x00], 0).unwrap(), b"");
    }
}
