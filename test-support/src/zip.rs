//! Zip archives laid out byte by byte, for the hostile-archive tests and fuzz seeds (issue
//! 23's r02, r11 and r15 cases and the table of broken members): every field of every record
//! is the test's to choose, none of it computed by the code under test.
//!
//! No zip64: the 32-bit fields are what the tests control. The CRC is computed bitwise here,
//! independently of the crates under test.

use std::io::Write;

/// One central-directory entry and, unless it points at another's, its local header.
#[derive(Debug, Clone)]
pub struct ZipEntry {
    /// The name in the central directory.
    pub name: Vec<u8>,
    /// The name in the local header.
    pub local_name: Vec<u8>,
    /// General-purpose flags, in both headers.
    pub flags: u16,
    /// Compression method, in both headers.
    pub method: u16,
    /// The bytes in the archive (compressed when the method is 8).
    pub data: Vec<u8>,
    /// The uncompressed size both headers record.
    pub size: u32,
    /// The CRC-32 both headers record.
    pub crc: u32,
    /// The central directory's extra field.
    pub extra: Vec<u8>,
    /// The local header's extra field.
    pub local_extra: Vec<u8>,
    /// The central directory's compressed size, when it should lie about `data`'s length.
    pub cd_csize: Option<u32>,
    /// The index of the entry whose local header this entry points at (`None`: its own).
    pub points_at: Option<usize>,
    /// The local header's flags, when they differ from the central directory's `flags`.
    pub local_flags: Option<u16>,
    /// The central directory's "version needed to extract" (20: 2.0).
    pub version: u16,
    /// The entry's comment in the central directory.
    pub comment: Vec<u8>,
    /// The comment length the central directory gives, when it should lie about `comment`.
    pub comment_len: Option<u16>,
}

impl ZipEntry {
    /// A stored entry of `data`, its sizes and CRC right.
    pub fn stored(name: &str, data: &[u8]) -> ZipEntry {
        ZipEntry {
            name: name.as_bytes().to_vec(),
            local_name: name.as_bytes().to_vec(),
            flags: 0,
            method: 0,
            data: data.to_vec(),
            size: data.len() as u32,
            crc: crc32(data),
            extra: Vec::new(),
            local_extra: Vec::new(),
            cd_csize: None,
            points_at: None,
            local_flags: None,
            version: 20,
            comment: Vec::new(),
            comment_len: None,
        }
    }

    /// A deflated entry of `plain` (zlib level 6, as `np.savez_compressed`), its sizes and
    /// CRC right.
    pub fn deflated(name: &str, plain: &[u8]) -> ZipEntry {
        ZipEntry {
            method: 8,
            size: plain.len() as u32,
            crc: crc32(plain),
            data: deflate(plain),
            ..ZipEntry::stored(name, &[])
        }
    }
}

/// Raw deflate of `plain` at zlib's level 6.
pub fn deflate(plain: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(plain).expect("deflate into memory");
    e.finish().expect("deflate into memory")
}

/// CRC-32 (IEEE), bitwise: test inputs are small.
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 == 1 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// How [`zip_with`] lays out what follows the entries.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// The entry count of the end record (`None`: the number of entries).
    pub count: Option<u16>,
    /// Bytes before the first local header (a self-extractor's stub).
    pub prefix: Vec<u8>,
    /// The archive comment, after the end record.
    pub comment: Vec<u8>,
    /// The comment length the end record gives, when it should lie about `comment`.
    pub comment_len: Option<u16>,
    /// Added to the directory offset the end record gives (a lying offset).
    pub offset_delta: i64,
    /// Bytes after the comment.
    pub trailing: Vec<u8>,
}

/// A zip of `entries`: a local header and data for each entry that points at itself, the
/// central directory of every entry, and an end record counting `count` entries (default:
/// all).
pub fn zip(entries: &[ZipEntry], count: Option<u16>) -> Vec<u8> {
    zip_with(
        entries,
        &Layout {
            count,
            ..Layout::default()
        },
    )
}

/// A zip of `entries` laid out as `layout` says (offsets count from the start of the
/// archive, after any prefix, as a stub's archive records them).
pub fn zip_with(entries: &[ZipEntry], layout: &Layout) -> Vec<u8> {
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        offsets.push(out.len() as u32);
        if e.points_at.is_some_and(|p| p != i) {
            continue;
        }
        out.extend_from_slice(b"PK\x03\x04");
        for v in [20u16, e.local_flags.unwrap_or(e.flags), e.method, 0, 0x21] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [e.crc, e.data.len() as u32, e.size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(e.local_name.len() as u16).to_le_bytes());
        out.extend_from_slice(&(e.local_extra.len() as u16).to_le_bytes());
        out.extend_from_slice(&e.local_name);
        out.extend_from_slice(&e.local_extra);
        out.extend_from_slice(&e.data);
    }
    let cd_start = out.len() as u32;
    for (i, e) in entries.iter().enumerate() {
        out.extend_from_slice(b"PK\x01\x02");
        for v in [0x031e_u16, e.version, e.flags, e.method, 0, 0x21] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let csize = e.cd_csize.unwrap_or(e.data.len() as u32);
        for v in [e.crc, csize, e.size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let comment_len = e.comment_len.unwrap_or(e.comment.len() as u16);
        for v in [e.name.len() as u16, e.extra.len() as u16, comment_len, 0, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&offsets[e.points_at.unwrap_or(i)].to_le_bytes());
        out.extend_from_slice(&e.name);
        out.extend_from_slice(&e.extra);
        out.extend_from_slice(&e.comment);
    }
    let cd_len = out.len() as u32 - cd_start;
    let n = layout.count.unwrap_or(entries.len() as u16);
    out.extend_from_slice(b"PK\x05\x06");
    for v in [0u16, 0, n, n] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&cd_len.to_le_bytes());
    let offset = (i64::from(cd_start) + layout.offset_delta) as u32;
    out.extend_from_slice(&offset.to_le_bytes());
    let comment_len = layout.comment_len.unwrap_or(layout.comment.len() as u16);
    out.extend_from_slice(&comment_len.to_le_bytes());
    out.extend_from_slice(&layout.comment);
    out.extend_from_slice(&layout.trailing);
    [layout.prefix.clone(), out].concat()
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc32_is_ieee() {
        // the check value of CRC-32/ISO-HDLC
        assert_eq!(super::crc32(b"123456789"), 0xCBF4_3926);
    }
}
