//! The zip container, as much of APPNOTE 6.3 as `.npz` archives use, read as Python's
//! `zipfile` reads it: the end record (and zip64's), the central directory in one pass, each
//! member's local header, and the check that no two members share bytes.
//!
//! Every size and offset comes from the file, so every sum is checked; every buffer is
//! bounded by bytes the source holds (the directory's size is checked against the file's).

use std::ops::Range;

use npy_core::ReadAt;

use crate::error::{ContainerFault, Error, ErrorKind};

/// Signature of a local file header (APPNOTE 4.3.7).
pub(crate) const LOCAL_SIG: u32 = 0x0403_4b50;
/// Bytes of a local file header before its name.
pub(crate) const LOCAL_LEN: u64 = 30;
/// Signature of a central-directory file header (APPNOTE 4.3.12).
pub(crate) const CENTRAL_SIG: u32 = 0x0201_4b50;
/// Bytes of a central-directory file header before its name.
pub(crate) const CENTRAL_LEN: usize = 46;
/// Signature of the end of central directory record (APPNOTE 4.3.16).
pub(crate) const END_SIG: u32 = 0x0605_4b50;
/// Bytes of the end record before its comment.
pub(crate) const END_LEN: usize = 22;
/// Signature of the zip64 end of central directory record (APPNOTE 4.3.14).
pub(crate) const END64_SIG: u32 = 0x0606_4b50;
/// Bytes of the zip64 end record (version 1, no extensible data).
pub(crate) const END64_LEN: usize = 56;
/// Signature of the zip64 end of central directory locator (APPNOTE 4.3.15).
pub(crate) const LOCATOR_SIG: u32 = 0x0706_4b50;
/// Bytes of the zip64 locator.
pub(crate) const LOCATOR_LEN: usize = 20;
/// General-purpose flag bit 11: the name is UTF-8 (APPNOTE appendix D).
pub(crate) const UTF8_FLAG: u16 = 1 << 11;

/// Bytes [`NpzArchive::new`](crate::NpzArchive::new) reads from the end of the source at
/// once (all of a shorter source): the end record with the longest comment, the zip64
/// records before it, and the directory of a typical archive (some 4,000 members with short
/// names), in one read (one request, remote); a longer directory takes one more read.
pub const SUFFIX_BYTES: u64 = 256 << 10;

/// The fewest bytes the directory's first read takes from the end of the source (all of a
/// shorter source), whatever [`NpzArchive::with_suffix_bytes`](crate::NpzArchive::with_suffix_bytes)
/// asks: everything Python's zipfile looks at to find the directory, the end record (22
/// bytes) after the longest comment (65,535 bytes) and one more byte (zipfile searches the
/// last 64 KiB + 22), and the zip64 locator (20) and end record (56) before it.
pub const MIN_SUFFIX_BYTES: u64 =
    (1 << 16) + END_LEN as u64 + LOCATOR_LEN as u64 + END64_LEN as u64;

/// CP437, the code page of names without the UTF-8 flag (APPNOTE appendix D), bytes
/// 0x80–0xFF, as Python's zipfile decodes them (`bytes.decode('cp437')`).
const CP437_HIGH: &str = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{a0}";

/// Little-endian fields of a record, read where the caller has checked the length.
pub(crate) fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

/// One central-directory entry, its zip64 fields resolved.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// The name as zipfile lists it: decoded (UTF-8 under flag bit 11, CP437 otherwise) and
    /// cut at its first NUL.
    pub name: String,
    /// The decoded name before the cut, which the local header must give (zipfile's
    /// `orig_filename`).
    pub full_name: String,
    /// The name's bytes.
    pub raw_name: Vec<u8>,
    pub flags: u16,
    pub method: u16,
    pub crc32: u32,
    pub compressed_size: u64,
    pub size: u64,
    /// Where the local header is, in the source (the archive's prefix, if any, added).
    pub header_offset: u64,
}

/// The central directory: its entries in order and where it starts in the source.
#[derive(Debug)]
pub(crate) struct Directory {
    pub entries: Vec<Entry>,
    pub start: u64,
}

fn container(reason: ContainerFault, at: u64) -> Error {
    Error::from(ErrorKind::Container { reason, at })
}

/// Reads the end record and the central directory of `src`: one read of the source's last
/// `suffix` bytes ([`SUFFIX_BYTES`] by default, at least [`MIN_SUFFIX_BYTES`]), a second only
/// when the directory starts before them.
///
/// As Python's zipfile (`_EndRecData`, `_RealGetContents`): the end record is the last 22
/// bytes when they are one without a comment, else the last end signature in the final
/// 65,558 bytes (what follows it need not be its comment); the directory is the `size` bytes
/// right before the end record (or the zip64 end record), whatever its offset field says,
/// which only gives the bytes before the archive (`concat`, negative for an offset past the
/// directory); the entry counts are not used: the directory is walked by its size.
pub(crate) fn read_directory<R: ReadAt + ?Sized>(src: &R, suffix: u64) -> Result<Directory, Error> {
    let len = src.size()?;
    let tail_start = len.saturating_sub(suffix.max(MIN_SUFFIX_BYTES));
    let mut tail = vec![0u8; (len - tail_start) as usize];
    src.read_exact_at(&mut tail, tail_start)?;
    let end_at = end_record_at(&tail).ok_or(ErrorKind::NoEndRecord)?;
    let end = &tail[end_at..end_at + END_LEN];
    let mut cd_size = u64::from(u32_at(end, 12));
    let mut cd_offset = u64::from(u32_at(end, 16));
    // Where the directory ends: the zip64 end record when there is one, else the end record.
    let mut location = tail_start + end_at as u64;
    // zipfile's `_EndRecData64`: a locator right before the end record, and the zip64 end
    // record right before the locator (the locator's own offset is not used).
    if end_at >= LOCATOR_LEN && u32_at(&tail, end_at - LOCATOR_LEN) == LOCATOR_SIG {
        let loc = &tail[end_at - LOCATOR_LEN..end_at];
        if u32_at(loc, 4) != 0 || u32_at(loc, 16) > 1 {
            return Err(container(ContainerFault::MultiDisk, location));
        }
        // zipfile seeks before the file's start there, and refuses the file.
        let at = (end_at.checked_sub(LOCATOR_LEN + END64_LEN))
            .ok_or_else(|| container(ContainerFault::DirectoryOutside, location))?;
        let rec = &tail[at..at + END64_LEN];
        if u32_at(rec, 0) == END64_SIG {
            cd_size = u64_at(rec, 40);
            cd_offset = u64_at(rec, 48);
            location = tail_start + at as u64;
        }
    }
    // zipfile's `concat`: bytes before the archive (a self-extractor's stub), or fewer when
    // the offset field is past the directory (then every header offset moves back by as many).
    let start = location
        .checked_sub(cd_size)
        .ok_or_else(|| container(ContainerFault::DirectoryOutside, location))?;
    let concat = i128::from(start) - i128::from(cd_offset);
    let owned;
    let dir: &[u8] = if start >= tail_start {
        let from = (start - tail_start) as usize;
        &tail[from..from + cd_size as usize]
    } else {
        // Bounded by the file: start + cd_size == location <= len.
        let n = usize::try_from(cd_size)
            .map_err(|_| container(ContainerFault::DirectoryOutside, start))?;
        let mut buf = vec![0u8; n];
        src.read_exact_at(&mut buf, start)?;
        owned = buf;
        &owned
    };
    let entries = walk(dir, start, concat)?;
    Ok(Directory { entries, start })
}

/// Where `tail` (the end of the file) holds the end record, as zipfile's `_EndRecData` finds
/// it: the last 22 bytes if they are an end record with no comment, else the last end
/// signature in the final 64 KiB + 22 bytes, with 22 bytes after it (`None` otherwise: zipfile
/// looks no further back).
fn end_record_at(tail: &[u8]) -> Option<usize> {
    let n = tail.len();
    if n < END_LEN {
        return None;
    }
    let last = n - END_LEN;
    if u32_at(tail, last) == END_SIG && u16_at(tail, last + 20) == 0 {
        return Some(last);
    }
    let from = n.saturating_sub(END_LEN + (1 << 16));
    let sig = END_SIG.to_le_bytes();
    let at = from + tail[from..].windows(4).rposition(|w| w == sig)?;
    (at + END_LEN <= n).then_some(at)
}

/// Highest "version needed to extract" zipfile reads (`MAX_EXTRACT_VERSION`, 6.3).
const MAX_EXTRACT_VERSION: u8 = 63;

/// The entries of the directory's bytes `dir` (which start at byte `start` of the source), as
/// zipfile walks them: one after another until the directory's size is used up, the last
/// entry's name, extra field and comment cut where the directory ends (zipfile reads what
/// there is), each header offset moved by `concat`.
fn walk(dir: &[u8], start: u64, concat: i128) -> Result<Vec<Entry>, Error> {
    let mut entries = Vec::new();
    let mut at = 0usize;
    while at < dir.len() {
        let here = start + at as u64;
        let bad = || container(ContainerFault::BadEntry, here);
        let fixed = dir.get(at..at + CENTRAL_LEN).ok_or_else(bad)?;
        if u32_at(fixed, 0) != CENTRAL_SIG {
            return Err(bad());
        }
        if fixed[6] > MAX_EXTRACT_VERSION {
            return Err(container(
                ContainerFault::Version { needed: fixed[6] },
                here,
            ));
        }
        let name_len = usize::from(u16_at(fixed, 28));
        let extra_len = usize::from(u16_at(fixed, 30));
        let comment_len = usize::from(u16_at(fixed, 32));
        let field = |from: usize, n: usize| &dir[from.min(dir.len())..(from + n).min(dir.len())];
        let name_at = at + CENTRAL_LEN;
        let raw_name = field(name_at, name_len);
        let extra = field(name_at + name_len, extra_len);
        let flags = u16_at(fixed, 8);
        let mut compressed_size = u64::from(u32_at(fixed, 20));
        let mut size = u64::from(u32_at(fixed, 24));
        let mut header_offset = u64::from(u32_at(fixed, 42));
        decode_extra(extra, &mut size, &mut compressed_size, &mut header_offset)
            .map_err(|()| container(ContainerFault::BadExtra, here))?;
        // An offset before the file's start (zipfile's negative seek) has no local header.
        let header_offset = u64::try_from(i128::from(header_offset) + concat).unwrap_or(u64::MAX);
        let full_name = decode_name(raw_name, flags)?;
        // zipfile's ZipInfo cuts a name at its first NUL ("used as tricks by viruses"); the
        // local header must still give the whole name.
        let name = match full_name.find('\0') {
            Some(nul) => full_name[..nul].to_owned(),
            None => full_name.clone(),
        };
        // Every entry took at least 46 bytes of the directory: `entries` grows with the input.
        entries.push(Entry {
            name,
            full_name,
            raw_name: raw_name.to_vec(),
            flags,
            method: u16_at(fixed, 10),
            crc32: u32_at(fixed, 16),
            compressed_size,
            size,
            header_offset,
        });
        at = name_at + name_len + extra_len + comment_len;
    }
    Ok(entries)
}

/// zipfile's `_decodeExtra`: every record of the extra field must fit (a record running past
/// the field is an error, 1–3 bytes left over are not); each zip64 record (id 1) replaces the
/// fields that hold their sentinel, in APPNOTE's order (the size also when it is
/// 0xFFFFFFFFFFFFFFFF), its values too short an error.
fn decode_extra(
    extra: &[u8],
    size: &mut u64,
    compressed: &mut u64,
    offset: &mut u64,
) -> Result<(), ()> {
    let sentinel = u64::from(u32::MAX);
    let mut at = 0;
    while at + 4 <= extra.len() {
        let id = u16_at(extra, at);
        let len = usize::from(u16_at(extra, at + 2));
        let body = extra.get(at + 4..at + 4 + len).ok_or(())?;
        if id == 1 {
            let mut values = body.chunks_exact(8).map(|c| u64_at(c, 0));
            if *size == sentinel || *size == u64::MAX {
                *size = values.next().ok_or(())?;
            }
            for field in [&mut *compressed, &mut *offset] {
                if *field == sentinel {
                    *field = values.next().ok_or(())?;
                }
            }
        }
        at += 4 + len;
    }
    Ok(())
}

/// A name as Python's zipfile decodes it: UTF-8 under flag bit 11 (an error otherwise, as
/// zipfile's), CP437 without; Info-ZIP's Unicode Path extra field (0x7075) is not read.
pub(crate) fn decode_name(raw: &[u8], flags: u16) -> Result<String, Error> {
    if flags & UTF8_FLAG != 0 {
        return String::from_utf8(raw.to_vec()).map_err(|_| {
            Error::from(ErrorKind::BadUtf8Name {
                lossy: String::from_utf8_lossy(raw).into_owned(),
            })
        });
    }
    Ok(raw
        .iter()
        .map(|&b| match b {
            0..=0x7f => char::from(b),
            _ => CP437_HIGH.chars().nth(usize::from(b - 0x80)).unwrap_or('?'),
        })
        .collect())
}

/// Bytes read past three times the central name's length in each local header: enough to
/// show most local names that differ (the message's), a bounded multiple of the directory's
/// bytes. Three times: a local name may take more bytes than the central one and still decode
/// to the same text (a CP437 byte is up to three bytes of UTF-8 under the other's flag).
const LOCAL_NAME_SLACK: u64 = 32;

/// What an entry's local header says: its name and where the member's data starts.
#[derive(Debug, Clone)]
pub(crate) struct Local {
    /// The name's first bytes (at most three times the central directory's name and
    /// [`LOCAL_NAME_SLACK`] more).
    pub name: Vec<u8>,
    /// The local header's general-purpose flags (its UTF-8 flag decodes its name).
    pub flags: u16,
    /// The length the local header gives its name.
    pub name_len: usize,
    pub data_start: u64,
}

/// The local header at `offset` (of an entry whose central name is `central_name_len`
/// bytes) and up to `ahead` bytes of the member's data after it, in one read of the source
/// (one request, remote): the first read of a member checks its local header this way.
/// `None` where there is no local header; the bytes returned are those after the local
/// header's name and extra field (empty when the read ended before them).
///
/// Memory: at most [`LOCAL_LEN`] + 3 × `central_name_len` + [`LOCAL_NAME_SLACK`] + `ahead`
/// bytes, whatever the local header claims.
pub(crate) fn local_header<R: ReadAt + ?Sized>(
    src: &R,
    offset: u64,
    central_name_len: usize,
    ahead: u64,
) -> Result<(Option<Local>, Vec<u8>), Error> {
    // Three times the central name: the two names are compared as decoded text, and a
    // CP437 local name takes up to three bytes per character in UTF-8 centrally.
    let want = local_read_len(central_name_len, ahead);
    let len =
        usize::try_from(want).map_err(|_| container(ContainerFault::NoLocalHeader, offset))?;
    let mut bytes = vec![0u8; len];
    let got = src.read_at(&mut bytes, offset)?;
    bytes.truncate(got);
    Ok(parse_local(&bytes, offset, central_name_len))
}

/// The bytes a local header's read asks for at `offset`, for an entry whose central name is
/// `central_name_len` bytes, with `ahead` bytes of the member's data after it: the length
/// [`local_header`] reads (and [`crate::NpzArchive::prefetch_headers`] asks for in its one
/// call).
pub(crate) fn local_read_len(central_name_len: usize, ahead: u64) -> u64 {
    LOCAL_LEN
        .saturating_add(3 * central_name_len as u64)
        .saturating_add(LOCAL_NAME_SLACK)
        .saturating_add(ahead)
}

/// [`local_header`] of bytes already read (`bytes`, from `offset`; as many as the source
/// held of the [`local_read_len`] asked for).
pub(crate) fn parse_local(
    bytes: &[u8],
    offset: u64,
    central_name_len: usize,
) -> (Option<Local>, Vec<u8>) {
    if bytes.len() < LOCAL_LEN as usize || u32_at(bytes, 0) != LOCAL_SIG {
        return (None, Vec::new());
    }
    let name_len = usize::from(u16_at(bytes, 26));
    let extra_len = usize::from(u16_at(bytes, 28));
    // A local name longer than the central one is not read further (every entry may point
    // at one local header claiming a 64 KiB name: reading each would make memory and
    // requests a multiple of the directory): the bytes already read name it in the message,
    // and its length alone tells that it differs.
    let held = &bytes[LOCAL_LEN as usize..];
    let name = held[..held
        .len()
        .min(name_len)
        .min(3 * central_name_len + LOCAL_NAME_SLACK as usize)]
        .to_vec();
    let Some(data_start) = offset.checked_add(LOCAL_LEN + name_len as u64 + extra_len as u64)
    else {
        return (None, Vec::new());
    };
    let data = held
        .get(name_len + extra_len..)
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    (
        Some(Local {
            name,
            flags: u16_at(bytes, 6),
            name_len,
            data_start,
        }),
        data,
    )
}

/// Whether the local header names the entry as zipfile's `open` compares them: the local
/// name decoded by the local header's own UTF-8 flag (a name that does not decode differs)
/// against the central directory's whole decoded name.
pub(crate) fn same_name(full_name: &str, local: &Local) -> bool {
    local.name.len() == local.name_len
        && decode_name(&local.name, local.flags).is_ok_and(|n| n == full_name)
}

/// For each range `[local header, end of data)`: the start of a range it shares a byte with,
/// or of the central directory when it runs into it (unzip's "overlapped components").
pub(crate) fn overlaps(ranges: &[Range<u64>], directory: u64) -> Vec<Option<u64>> {
    let mut order: Vec<usize> = (0..ranges.len()).collect();
    order.sort_by_key(|&i| (ranges[i].start, ranges[i].end));
    let mut out = vec![None; ranges.len()];
    // The furthest end so far: a range that holds several others is caught for each.
    let mut furthest: Option<usize> = None;
    for &i in &order {
        if let Some(f) = furthest {
            if ranges[f].end > ranges[i].start {
                out[i] = out[i].or(Some(ranges[f].start));
                out[f] = out[f].or(Some(ranges[i].start));
            }
        }
        if furthest.is_none_or(|f| ranges[i].end > ranges[f].end) {
            furthest = Some(i);
        }
    }
    for (i, r) in ranges.iter().enumerate() {
        if r.end > directory {
            out[i] = out[i].or(Some(directory));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// unzip's rule over ranges: disjoint and adjacent ranges are fine; any shared byte
    /// refuses both members, a range holding several others included, and a range past the
    /// central directory.
    #[test]
    fn overlapping_ranges() {
        assert_eq!(overlaps(&[0..10, 10..20], 20), [None, None]);
        assert_eq!(overlaps(&[10..20, 0..11], 20), [Some(0), Some(10)]);
        let got = overlaps(&[0..100, 10..20, 30..40], 100);
        assert_eq!(got, [Some(10), Some(0), Some(0)]);
        assert_eq!(overlaps(&[0..50, 0..50, 0..50], 50), [Some(0); 3]);
        assert_eq!(overlaps(&[0..10, 10..21], 20), [None, Some(20)]);
    }

    #[test]
    fn names_decode_as_zipfile_decodes_them() {
        assert_eq!(decode_name(b"a.npy", 0).unwrap(), "a.npy");
        assert_eq!(decode_name(b"\x80\xff", 0).unwrap(), "Ç\u{a0}");
        assert_eq!(decode_name("é".as_bytes(), UTF8_FLAG).unwrap(), "é");
        assert!(decode_name(b"\xff", UTF8_FLAG).is_err());
        assert_eq!(CP437_HIGH.chars().count(), 128);
    }

    #[test]
    fn zip64_fields_replace_only_sentinels() {
        let mut extra = vec![1u8, 0, 16, 0];
        extra.extend_from_slice(&7u64.to_le_bytes());
        extra.extend_from_slice(&9u64.to_le_bytes());
        let (mut s, mut c, mut o) = (u64::from(u32::MAX), 5, u64::from(u32::MAX));
        decode_extra(&extra, &mut s, &mut c, &mut o).unwrap();
        assert_eq!((s, c, o), (7, 5, 9));
        let (mut s, mut c, mut o) = (u64::from(u32::MAX), u64::from(u32::MAX), 0);
        assert!(decode_extra(&extra[..12], &mut s, &mut c, &mut o).is_err());
    }

    /// zipfile's `_decodeExtra` refuses any record that runs past the field, zip64 or not;
    /// a tail of 1–3 bytes is left alone.
    #[test]
    fn every_extra_record_must_fit() {
        let (mut s, mut c, mut o) = (1, 2, 3);
        assert!(decode_extra(&[0x34, 0x12, 9, 0, 1, 2], &mut s, &mut c, &mut o).is_err());
        assert!(decode_extra(&[0x34, 0x12, 2, 0, 1, 2, 7], &mut s, &mut c, &mut o).is_ok());
        assert_eq!((s, c, o), (1, 2, 3));
    }

    /// zipfile's `_EndRecData`: the last 22 bytes without a comment, else the last signature
    /// in the final 64 KiB + 22 bytes with 22 bytes after it, whatever follows.
    #[test]
    fn the_end_record_is_found_as_zipfile_finds_it() {
        let mut end = END_SIG.to_le_bytes().to_vec();
        end.resize(END_LEN, 0);
        assert_eq!(end_record_at(&end), Some(0));
        let mut trailing = end.clone();
        trailing.extend_from_slice(b"garbage");
        assert_eq!(end_record_at(&trailing), Some(0));
        // A comment that holds a signature: zipfile takes the later one.
        let mut commented = end.clone();
        commented[20] = 26;
        commented.extend_from_slice(&END_SIG.to_le_bytes());
        commented.resize(END_LEN + 26, 0);
        assert_eq!(end_record_at(&commented), Some(END_LEN));
        // Fewer than 22 bytes after the last signature: none (zipfile looks no further).
        let mut short = end.clone();
        short.extend_from_slice(&END_SIG.to_le_bytes());
        assert_eq!(end_record_at(&short), None);
    }
}
