//! Transparent huge pages for large fresh read buffers, as numpy does for its allocations.
//!
//! Reading a large array into a new `Vec` is dominated by page faults on the fresh buffer, not
//! by the copy (issue 7's measurements: numpy's `np.load` takes 0.65 × `fs::read` because it
//! advises huge pages; without the advice it takes as long). Advising `MADV_HUGEPAGE` before the
//! first write lets the kernel back the buffer with 2 MiB pages: 512 times fewer faults.

/// Buffers at least this large are advised (numpy's threshold: 4 MiB).
#[cfg_attr(not(all(target_os = "linux", not(miri))), allow(dead_code))]
pub(crate) const MIN_BYTES: usize = 4 << 20;

/// The huge page size on x86-64 and aarch64 with 4 KiB base pages.
#[cfg(all(target_os = "linux", not(miri)))]
const HUGE_PAGE: usize = 2 << 20;

/// Advises the kernel to back the whole 2 MiB-aligned interior of `buf` with transparent huge
/// pages. Call it before the buffer is first written. Advice only: where huge pages are off, or
/// on other systems, nothing changes.
pub fn advise_huge_pages(buf: &mut [u8]) {
    advise_range(buf.as_mut_ptr(), buf.len());
}

/// [`advise_huge_pages`] for the spare capacity of `v` (the memory a `Vec::with_capacity` has
/// not yet written), before the values are pushed.
pub fn advise_huge_pages_spare<T>(v: &mut Vec<T>) {
    let spare = v.spare_capacity_mut();
    advise_range(
        spare.as_mut_ptr().cast::<u8>(),
        std::mem::size_of_val(spare),
    );
}

/// Advises `len` bytes from `start`, memory the caller borrows mutably (written or not).
fn advise_range(start: *mut u8, len: usize) {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        if len < MIN_BYTES {
            return;
        }
        let start = start as usize;
        let Some(aligned) = start.checked_next_multiple_of(HUGE_PAGE) else {
            return;
        };
        let end = start + len;
        let len = end.saturating_sub(aligned) / HUGE_PAGE * HUGE_PAGE;
        if len == 0 {
            return;
        }
        // SAFETY: `[aligned, aligned + len)` lies inside the caller's buffer, which it borrows
        // mutably, and `aligned` is page-aligned as madvise requires. MADV_HUGEPAGE only tells
        // the kernel how to back these pages: it changes neither their contents nor whether
        // they are mapped, so no Rust reference is invalidated. A failure (THP disabled, old
        // kernel) leaves everything as it was and is ignored.
        #[allow(unsafe_code)]
        unsafe {
            libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    let _ = (start, len);
}

#[cfg(test)]
mod tests {
    /// The advice never changes a buffer's contents, whatever its size and alignment.
    #[test]
    fn advice_keeps_contents() {
        for len in [
            0,
            4096,
            super::MIN_BYTES - 1,
            super::MIN_BYTES,
            super::MIN_BYTES * 2 + 12345,
        ] {
            let mut v: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            for offset in [0usize, 1, 4096] {
                let buf = &mut v[offset.min(len)..];
                super::advise_huge_pages(buf);
            }
            assert!(
                v.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8),
                "len {len}"
            );
        }
    }

    /// Advising a vector's spare capacity leaves its elements and capacity alone, and the
    /// values pushed afterwards are what was pushed.
    #[test]
    fn advice_on_spare_capacity_keeps_contents() {
        for cap in [0, 1000, super::MIN_BYTES / 8 + 3] {
            let mut v: Vec<u64> = Vec::with_capacity(cap);
            v.extend((0..cap as u64 / 2).map(|i| i * 7));
            super::advise_huge_pages_spare(&mut v);
            assert!(v.capacity() >= cap);
            let half = v.len();
            v.extend((half as u64..cap as u64).map(|i| i * 7));
            assert!(
                v.iter().enumerate().all(|(i, &x)| x == i as u64 * 7),
                "cap {cap}"
            );
        }
    }
}
