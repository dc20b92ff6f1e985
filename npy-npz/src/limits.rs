//! Limits that keep a hostile archive from making the reader allocate or work beyond what
//! the archive's bytes can back.
//!
//! - A **stored** member's bytes are in the file: its declared size must fit in its stored
//!   bytes, and those between its data start and the central directory.
//! - A **deflated** member may expand, but deflate cannot make more than
//!   [`MAX_DEFLATE_RATIO`] bytes of output per compressed byte (a 258-byte match costs at
//!   least 2 bits), so a declared size beyond that ratio (plus [`DEFLATE_SLACK`]) is a lie
//!   found before anything is allocated.
//! - The member's `.npy` header must describe exactly its declared size (header + data), so
//!   the header's claim is bounded as above; reading then follows the `.npy` allocation rules
//!   with the member's size as the bytes available, and a stream that inflates past the
//!   declared size is an error as soon as one byte too many arrives.

use crate::error::{Backing, ErrorKind};

/// Most bytes deflate can produce per compressed byte: the longest match (258 bytes) coded
/// in the fewest bits (1 for a literal/length code, 1 for the distance code) gives 1032:1.
pub const MAX_DEFLATE_RATIO: u64 = 1032;

/// Bytes a deflated member may declare beyond [`MAX_DEFLATE_RATIO`] × its compressed size:
/// block headers of tiny streams (an empty member is 2 compressed bytes).
pub const DEFLATE_SLACK: u64 = 1024;

/// Checks that a member's declared size can be backed by its bytes in the archive.
///
/// `data_start` is where the member's (compressed) bytes begin in the archive, `limit` where
/// they must end by (the central directory's start).
pub(crate) fn check_backed(
    deflated: bool,
    data_start: u64,
    compressed: u64,
    size: u64,
    limit: u64,
) -> Result<(), ErrorKind> {
    let room = limit.saturating_sub(data_start);
    if compressed > room {
        return Err(ErrorKind::Unbacked {
            claimed: compressed,
            backing: Backing::Room { data_start, room },
        });
    }
    if !deflated {
        // zipfile reads a stored member's first `size` bytes of its `compressed` (more are
        // never read); fewer cannot back it.
        if size > compressed {
            return Err(ErrorKind::Unbacked {
                claimed: size,
                backing: Backing::Stored { compressed },
            });
        }
        return Ok(());
    }
    let most = max_inflated(compressed);
    if size > most {
        return Err(ErrorKind::Unbacked {
            claimed: size,
            backing: Backing::Deflate { compressed, most },
        });
    }
    Ok(())
}

/// The most bytes `compressed` bytes of deflate can inflate to.
pub fn max_inflated(compressed: u64) -> u64 {
    compressed
        .saturating_mul(MAX_DEFLATE_RATIO)
        .saturating_add(DEFLATE_SLACK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deflate_ratio_boundary() {
        let at = max_inflated(1000);
        assert_eq!(at, 1000 * 1032 + 1024);
        assert!(check_backed(true, 0, 1000, at, 1 << 20).is_ok());
        assert!(matches!(
            check_backed(true, 0, 1000, at + 1, 1 << 20),
            Err(ErrorKind::Unbacked { claimed, .. }) if claimed == at + 1
        ));
        assert_eq!(max_inflated(u64::MAX), u64::MAX);
    }

    #[test]
    fn stored_must_fit_before_the_directory() {
        assert!(check_backed(false, 100, 50, 50, 150).is_ok());
        assert!(check_backed(false, 100, 51, 51, 150).is_err());
        assert!(check_backed(false, 200, 0, 0, 150).is_ok());
        // a stored member's size is backed by its stored bytes (more are never read)
        assert!(check_backed(false, 100, 50, 49, 150).is_ok());
        assert!(check_backed(false, 100, 49, 50, 150).is_err());
    }

    #[test]
    fn deflate_cannot_beat_its_ratio() {
        use std::io::Write;
        // zeros are deflate's best case; the bound must hold for them
        let zeros = vec![0u8; 8 << 20];
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(&zeros).unwrap();
        let c = e.finish().unwrap();
        assert!(max_inflated(c.len() as u64) >= zeros.len() as u64);
    }
}
