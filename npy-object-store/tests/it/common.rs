//! Arrays as `np.save` lays them out, and the assertions on request counts.

use npy_core::{Header, WriteOptions};
use npy_object_store::{Counts, Snapshot};

/// object_store's retries cut short, for tests of servers that fail: one retry after 10 ms,
/// 10 s at most.
/// (object_store has `RetryConfig` only with a cloud backend: a build without one, as
/// `cargo test --workspace` builds this crate, has no retries to configure.)
#[cfg(any(feature = "http", feature = "aws"))]
pub fn quick_retry() -> object_store::RetryConfig {
    object_store::RetryConfig {
        backoff: object_store::BackoffConfig {
            init_backoff: std::time::Duration::from_millis(10),
            max_backoff: std::time::Duration::from_millis(20),
            base: 2.0,
        },
        max_retries: 1,
        retry_timeout: std::time::Duration::from_secs(10),
    }
}

/// `data` saved with shape `shape` (`np.save`'s layout: header padded to 64 bytes).
pub fn npy<T: npy_core::NpyElement>(data: &[T], shape: &[u64]) -> Vec<u8> {
    let mut out = Vec::new();
    WriteOptions::new().write_to(&mut out, data, shape).unwrap();
    out
}

/// 4 bytes of `u8` data after a header whose data offset is exactly `end`: one record field
/// `('aaa…', '|u1')` whose name is sized so that `np.save`'s padding lands there.
pub fn header_ending_at(end: usize) -> Vec<u8> {
    for name_len in 1..end {
        let descr = format!("[('{}', '|u1')]", "a".repeat(name_len));
        let bytes = Header::new(descr.parse().unwrap(), vec![4])
            .to_bytes(None)
            .unwrap();
        if bytes.len() == end {
            let mut b = bytes;
            b.extend_from_slice(&[1, 2, 3, 4]);
            return b;
        }
    }
    panic!("no np.save header is {end} bytes long");
}

/// The requests and bytes since the last call, checked.
#[track_caller]
pub fn expect(counts: &Counts, what: &str, gets: u64, bytes: u64) {
    let got = counts.take();
    assert_eq!(
        got,
        Snapshot {
            gets,
            heads: 0,
            bytes
        },
        "{what}"
    );
}
