//! Reading archives: the member list, numpy's lookup, and each member as an array, a
//! streaming [`NpyReader`], raw bytes, or a view of the archive's own bytes.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, Cursor, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use bytemuck::CheckedBitPattern;
use zip::read::{ZipFile, ZipFileSeek};
use zip::{ZipArchive, ZipReadOptions};

use super::error::{from_zip, unwrap_io, Escaped, NpzError};
use super::limits::check_backed;
use super::names::key_of;
use crate::dynamic::DynArray;
use crate::element::NpyElement;
use crate::error::{Error, ErrorKind, NotNpy, PathContext};
use crate::header::{Header, ParsedHeader, ReadOptions};
use crate::info::TensorInfo;
use crate::io::read_up_to;
use crate::read::{NpyArray, NpyReader};
use crate::view::{CowArray, NpyView};

/// The `.npy` magic, which tells numpy's `np.load(...)[key]` to read a member as an array.
const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// Signature of a central-directory file header (APPNOTE 4.3.12).
const CENTRAL_HEADER: u32 = 0x0201_4b50;

/// Bytes of a central-directory file header before its name (APPNOTE 4.3.12).
const CENTRAL_HEADER_LEN: usize = 46;

/// Signature of a local file header (APPNOTE 4.3.7).
const LOCAL_HEADER: u32 = 0x0403_4b50;

/// Bytes of a local file header before its name (APPNOTE 4.3.7).
const LOCAL_HEADER_LEN: usize = 30;

/// General-purpose flag bit 11: the name is UTF-8 (APPNOTE appendix D).
const UTF8_FLAG: u16 = 1 << 11;

/// CP437, the code page of names without the UTF-8 flag (APPNOTE appendix D), bytes
/// 0x80–0xFF, as Python's zipfile decodes them (`bytes.decode('cp437')`).
const CP437_HIGH: &str = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{a0}";

/// A central-directory entry as its bytes say it: the flags and the raw name.
struct RawEntry {
    flags: u16,
    name: Vec<u8>,
}

/// The central directory's entries in order, read from `start` until the next record is not
/// a file header (whatever the end record counts: Python's zipfile reads them so).
fn walk_directory<R: Read + Seek>(reader: &mut R, start: u64) -> Result<Vec<RawEntry>, Error> {
    reader.seek(SeekFrom::Start(start))?;
    let mut entries = Vec::new();
    let mut fixed = [0u8; CENTRAL_HEADER_LEN];
    loop {
        if read_up_to(reader, &mut fixed)? < CENTRAL_HEADER_LEN
            || u32::from_le_bytes([fixed[0], fixed[1], fixed[2], fixed[3]]) != CENTRAL_HEADER
        {
            break;
        }
        let field = |at: usize| u16::from_le_bytes([fixed[at], fixed[at + 1]]);
        let (name_len, skip) = (field(28), i64::from(field(30)) + i64::from(field(32)));
        let mut name = vec![0u8; usize::from(name_len)];
        if read_up_to(reader, &mut name)? < name.len() {
            break;
        }
        reader.seek(SeekFrom::Current(skip))?;
        // Every entry took at least 46 bytes of the archive: `entries` grows with the input.
        entries.push(RawEntry {
            flags: field(8),
            name,
        });
    }
    Ok(entries)
}

/// Signature of the end of central directory record (APPNOTE 4.3.16).
const END_RECORD: u32 = 0x0605_4b50;

/// Where the end of central directory record says the directory starts (`None` without a
/// record, or for zip64's `0xFFFFFFFF`): the last record in the final 64 KiB + 22 bytes whose
/// comment reaches the end of the file.
fn end_record_directory<R: Read + Seek>(reader: &mut R) -> Result<Option<u64>, Error> {
    let len = reader.seek(SeekFrom::End(0))?;
    let tail_len = len.min(22 + 0xFFFF);
    reader.seek(SeekFrom::Start(len - tail_len))?;
    let mut tail = vec![0u8; usize::try_from(tail_len).unwrap_or(0)];
    let got = read_up_to(reader, &mut tail)?;
    tail.truncate(got);
    for at in (0..tail.len().saturating_sub(21)).rev() {
        let Some(record) = tail.get(at..at + 22) else {
            continue;
        };
        let word =
            |i: usize| u32::from_le_bytes([record[i], record[i + 1], record[i + 2], record[i + 3]]);
        let comment = usize::from(u16::from_le_bytes([record[20], record[21]]));
        if word(0) == END_RECORD && at + 22 + comment == tail.len() {
            let offset = word(16);
            return Ok((offset != u32::MAX).then_some(u64::from(offset)));
        }
    }
    Ok(None)
}

/// A name as Python's zipfile decodes it: UTF-8 under flag bit 11 (an error otherwise, as
/// zipfile's), CP437 without; Info-ZIP's Unicode Path extra field (0x7075) is not read.
fn decode_name(raw: &[u8], flags: u16) -> Result<String, NpzError> {
    if flags & UTF8_FLAG != 0 {
        return String::from_utf8(raw.to_vec()).map_err(|_| {
            NpzError::Container(format!(
                "the name {:?} is not UTF-8 although its UTF-8 flag (bit 11) is set (Python's zipfile refuses the archive too)",
                String::from_utf8_lossy(raw)
            ))
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

/// The name in the local header at `offset` and the bytes of the header (fixed part, name and
/// extra field), or `None` when there is no local header there (reading the member then fails
/// in the zip crate).
fn local_header<R: Read + Seek>(
    reader: &mut R,
    offset: u64,
) -> Result<Option<(Vec<u8>, u64)>, Error> {
    reader.seek(SeekFrom::Start(offset))?;
    let mut fixed = [0u8; LOCAL_HEADER_LEN];
    if read_up_to(reader, &mut fixed)? < LOCAL_HEADER_LEN
        || u32::from_le_bytes([fixed[0], fixed[1], fixed[2], fixed[3]]) != LOCAL_HEADER
    {
        return Ok(None);
    }
    let mut name = vec![0u8; usize::from(u16::from_le_bytes([fixed[26], fixed[27]]))];
    if read_up_to(reader, &mut name)? < name.len() {
        return Ok(None);
    }
    let extra = u16::from_le_bytes([fixed[28], fixed[29]]);
    let len = LOCAL_HEADER_LEN as u64 + name.len() as u64 + u64::from(extra);
    Ok(Some((name, len)))
}

/// For each member whose bytes `[local header, end of data)` share a byte with another
/// member's or run into the central directory: the start of the range it runs into (as
/// unzip's "overlapped components" check). `ranges` are the members' ranges in the archive.
fn overlaps(ranges: &[Range<u64>], directory: u64) -> Vec<Option<u64>> {
    let mut order: Vec<usize> = (0..ranges.len()).collect();
    order.sort_by_key(|&i| (ranges[i].start, ranges[i].end));
    let mut out = vec![None; ranges.len()];
    for w in order.windows(2) {
        let (a, b) = (w[0], w[1]);
        if ranges[a].end > ranges[b].start {
            out[a] = Some(ranges[b].start);
            out[b] = Some(ranges[a].start);
        }
    }
    // A range that contains several others: the pairwise check above sees only its
    // neighbour; the furthest end so far catches the rest.
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

/// The central directory's entries in order, each as the index of its member (found by its
/// raw name in `raw_names`). `None` when the walk does not account for every member (a
/// directory the zip crate read differently): the members' own order is the best list then.
fn entry_order(
    walked: &[RawEntry],
    raw_names: &HashMap<Vec<u8>, usize>,
    members: usize,
) -> Option<Vec<usize>> {
    let mut order = Vec::with_capacity(members);
    let mut seen = vec![false; members];
    for e in walked {
        let &i = raw_names.get(&e.name)?;
        seen[i] = true;
        order.push(i);
    }
    seen.iter().all(|&s| s).then_some(order)
}

/// One member of an archive, as its central directory describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The member's name in the zip (`arr_0.npy`, `x.npy.npy`, `notes.txt`).
    pub name: String,
    /// The compression method number: 0 stored, 8 deflate (anything else is not read).
    pub method: u16,
    /// Whether the member is encrypted (general-purpose flag bit 0).
    pub encrypted: bool,
    /// Bytes the member takes in the archive (after compression).
    pub compressed_size: u64,
    /// Bytes of the member itself (its uncompressed size).
    pub size: u64,
    /// The CRC-32 of the member's bytes.
    pub crc32: u32,
    /// Offset of the member's local header in the archive.
    pub header_offset: u64,
}

impl Member {
    /// The key numpy lists the member under ([`key_of`] its name: one `.npy` removed).
    pub fn key(&self) -> &str {
        key_of(&self.name)
    }

    /// Whether the member is stored (not compressed): such members can be viewed in place.
    pub fn is_stored(&self) -> bool {
        self.method == 0
    }

    /// Errors for members this crate does not read (other methods, encryption).
    fn check_readable(&self) -> Result<(), NpzError> {
        if self.encrypted {
            return Err(NpzError::Encrypted {
                member: self.name.clone(),
            });
        }
        if self.method != 0 && self.method != 8 {
            return Err(NpzError::UnsupportedMethod {
                member: self.name.clone(),
                method: self.method,
            });
        }
        Ok(())
    }
}

/// An `.npz` archive open for reading: numpy's `np.load` of an `.npz` (`NpzFile`).
///
/// Opening reads the central directory only (linear in the number of members); each member
/// is read when asked for, by numpy's lookup rules ([`NpzArchive::index_of`]). Every member
/// read to its end has its CRC-32 checked; a member that inflates past its declared size, or
/// whose `.npy` header describes more or fewer bytes than the member holds, is an error
/// before any data is allocated (see [`limits`](super::limits)).
///
/// # Examples
/// ```
/// use npy_core::npz::{NpzArchive, NpzWriter};
/// let mut w = NpzWriter::new(std::io::Cursor::new(Vec::new()));
/// w.add("weights", &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// w.add_positional(&[7i64, 8, 9], &[3])?;
/// let bytes = w.finish()?.into_inner();
///
/// let mut npz = NpzArchive::new(std::io::Cursor::new(&bytes))?;
/// assert_eq!(npz.keys().collect::<Vec<_>>(), ["weights", "arr_0"]);
/// assert_eq!(npz.header("weights")?.header.shape, [2, 2]);
/// let w = npz.read::<f32>("weights")?;
/// assert_eq!(w.data(), [1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(npz.read::<i64>("arr_0.npy")?.into_vec(), [7, 8, 9]);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug)]
pub struct NpzArchive<R> {
    zip: ZipArchive<R>,
    members: Vec<Member>,
    /// Member name → index in `members` (and the zip's own index): numpy's lookup tries the
    /// key, then the key + `.npy`, and the zip crate answers a name it lacks by decoding every
    /// name, which made looking up each member of a 70,000-member archive quadratic.
    by_name: HashMap<String, usize>,
    /// numpy's `files` when a name repeats: each central-directory entry in order, as the index
    /// of its name's member (`None`: no name repeats, and `members` is the list).
    entries: Option<Vec<usize>>,
    /// Per member: where its bytes end in the archive, and the start of another member's
    /// bytes (or the central directory) they run into ([`overlaps`]).
    ranges: Vec<(u64, Option<u64>)>,
    /// Per member: its local header's name when it differs from the central directory's.
    local_names: Vec<Option<Vec<u8>>>,
    options: ReadOptions,
    /// The archive's file, for [`NpzArchive::open`]: errors of its members name it.
    path: Option<Arc<Path>>,
}

impl NpzArchive<BufReader<File>> {
    /// Opens the archive at `path` and reads its central directory.
    ///
    /// # Errors
    /// I/O errors and [`NpzError::Container`] for a file that is not a readable zip.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        // Small: every member's local header and `.npy` header is a seek and a refill; large
        // reads of array data bypass the buffer.
        let open = || {
            NpzArchive::new(BufReader::with_capacity(
                8 << 10,
                crate::io::open_regular(path)?,
            ))
        };
        let mut archive = open().at_path(path)?;
        archive.path = Some(Arc::from(path));
        Ok(archive)
    }
}

impl<R: Read + Seek> NpzArchive<R> {
    /// Reads the central directory of the archive in `reader`.
    ///
    /// # Errors
    /// I/O errors and [`NpzError::Container`].
    pub fn new(reader: R) -> Result<Self, Error> {
        NpzArchive::with_options(reader, ReadOptions::default())
    }

    /// [`NpzArchive::new`] with the header options every member is read with.
    ///
    /// # Errors
    /// As [`NpzArchive::new`].
    pub fn with_options(reader: R, options: ReadOptions) -> Result<Self, Error> {
        let zip = ZipArchive::new(reader).map_err(from_zip)?;
        let duplicates = zip.has_duplicate_names();
        let mut members = Vec::with_capacity(zip.len());
        let mut raw_names = HashMap::new();
        for i in 0..zip.len() {
            let e = zip.by_index_data(i).map_err(from_zip)?;
            if duplicates {
                raw_names.insert(e.name_raw().to_vec(), i);
            }
            // The method's number is what the errors report; the zip crate deprecates it only
            // to steer matching towards its constants.
            #[allow(deprecated)]
            let method = e.compression().to_u16();
            members.push(Member {
                name: e.name().map_err(from_zip)?.into_owned(),
                method,
                encrypted: e.encrypted(),
                compressed_size: e.compressed_size(),
                size: e.size(),
                crc32: e.crc32(),
                header_offset: e.header_start(),
            });
        }
        // The directory walked once more for what the zip crate does not say as zipfile
        // reads it (each name's flags and raw bytes, whatever Unicode Path extra field
        // renames it; every entry whatever the end record counts), and each member's local
        // header name; then the archive is parsed again.
        let start = zip.central_directory_start();
        let mut reader = zip.into_inner();
        // The zip crate finds no directory when the end record counts none: walk from
        // where the end record says it is.
        let from = if members.is_empty() {
            end_record_directory(&mut reader)?.unwrap_or(start)
        } else {
            start
        };
        let walked = walk_directory(&mut reader, from)?;
        if !duplicates {
            if walked.len() != members.len() {
                return Err(NpzError::Container(format!(
                    "the end record counts {} entries, the central directory at byte {start} holds {} (Python's zipfile reads them all; this reader refuses the disagreement)",
                    members.len(),
                    walked.len()
                ))
                .into());
            }
            for (m, w) in members.iter_mut().zip(&walked) {
                m.name = decode_name(&w.name, w.flags)?;
            }
        }
        let mut local_names = Vec::with_capacity(members.len());
        let mut spans = Vec::with_capacity(members.len());
        for (i, m) in members.iter().enumerate() {
            let central: &[u8] = match (duplicates, walked.get(i)) {
                (false, Some(w)) => &w.name,
                _ => m.name.as_bytes(),
            };
            let (local, header_len) = match local_header(&mut reader, m.header_offset)? {
                Some((name, len)) => (Some(name), len),
                None => (None, LOCAL_HEADER_LEN as u64),
            };
            local_names.push(local.filter(|l| l != central));
            let end = m
                .header_offset
                .saturating_add(header_len)
                .saturating_add(m.compressed_size);
            spans.push(m.header_offset..end);
        }
        let ranges = overlaps(&spans, start)
            .into_iter()
            .zip(&spans)
            .map(|(o, r)| (r.end, o))
            .collect();
        let by_name = members
            .iter()
            .enumerate()
            .map(|(i, m)| (m.name.clone(), i))
            .collect();
        let mut entries = None;
        if duplicates {
            // The zip crate keeps one entry per name; numpy's `files` lists every entry.
            entries = entry_order(&walked, &raw_names, members.len());
        }
        let zip = ZipArchive::new(reader).map_err(from_zip)?;
        Ok(NpzArchive {
            zip,
            members,
            by_name,
            entries,
            ranges,
            local_names,
            options,
            path: None,
        })
    }

    /// The members, in central-directory order, one per name.
    ///
    /// A name that appears more than once in the central directory is listed once, at its
    /// first position, and describes its last entry (the one numpy's `np.load(f)[key]` reads);
    /// [`NpzArchive::keys`] lists it once per entry, as numpy's `files` does.
    /// [`NpzArchive::has_duplicate_names`] tells.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// numpy's `files`: the key of each central-directory entry (its name with one `.npy`
    /// removed), in order. A repeated name is listed once per entry, as numpy lists it (each
    /// reads the last entry of that name); [`NpzArchive::members`] lists it once.
    pub fn keys(&self) -> impl Iterator<Item = &str> + '_ {
        let order: Box<dyn Iterator<Item = &Member> + '_> = match &self.entries {
            Some(entries) => Box::new(entries.iter().map(|&i| &self.members[i])),
            None => Box::new(self.members.iter()),
        };
        order.map(Member::key)
    }

    /// Number of members (distinct names).
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the archive has no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Whether some name appears more than once in the central directory.
    pub fn has_duplicate_names(&self) -> bool {
        self.zip.metadata().has_duplicate_names()
    }

    /// The index of the member numpy's `np.load(f)[key]` reads: the member named `key`, else
    /// the member named `key + ".npy"`; the last entry of a duplicated name.
    pub fn index_of(&self, key: &str) -> Option<usize> {
        self.by_name
            .get(key)
            .or_else(|| self.by_name.get(&format!("{key}.npy")))
            .copied()
    }

    /// The member for `key` ([`NpzArchive::index_of`]).
    ///
    /// # Errors
    /// [`NpzError::MissingMember`].
    pub fn member(&self, key: &str) -> Result<&Member, Error> {
        let path = self.path.clone();
        let result = (move || Ok(&self.members[self.find(key)?]))();
        in_member(result, path.as_deref(), key)
    }

    fn find(&self, key: &str) -> Result<usize, Error> {
        self.index_of(key).ok_or_else(|| {
            Error::from(NpzError::MissingMember {
                key: key.to_owned(),
                keys: self.keys().take(8).map(str::to_owned).collect(),
            })
        })
    }

    /// Where the member's (compressed) bytes start in the archive, from its local header (whose
    /// extra field may differ from the central directory's, as in every numpy archive), after
    /// checking that its declared sizes are backed by the archive's bytes.
    fn data_start(&mut self, index: usize) -> Result<u64, Error> {
        let m = &self.members[index];
        m.check_readable()?;
        let start = {
            let f = self.zip.by_index_raw(index).map_err(from_zip)?;
            f.data_start()
                .ok_or_else(|| NpzError::Container("member without a data start".into()))?
        };
        let dir = self.zip.central_directory_start();
        check_backed(
            &m.name,
            m.method == 8,
            start,
            m.compressed_size,
            m.size,
            dir,
        )?;
        if let Some(local) = &self.local_names[index] {
            return Err(NpzError::NameMismatch {
                member: m.name.clone(),
                local: String::from_utf8_lossy(local).into_owned(),
            }
            .into());
        }
        if let (data_end, Some(next)) = self.ranges[index] {
            return Err(NpzError::Overlapped {
                member: m.name.clone(),
                data_end,
                next,
            }
            .into());
        }
        Ok(start)
    }

    /// The member's raw bytes as a reader (inflated when deflated), its CRC-32 checked when
    /// read to the end. Stored members seek freely; deflated ones seek forward only.
    ///
    /// # Errors
    /// [`NpzError::MissingMember`], [`NpzError::Encrypted`], [`NpzError::UnsupportedMethod`],
    /// [`NpzError::Unbacked`], I/O errors.
    pub fn open_member(&mut self, key: &str) -> Result<MemberReader<'_, R>, Error> {
        let path = self.path.clone();
        let index = in_member(self.find(key), path.as_deref(), key)?;
        in_member(self.open_index(index), path.as_deref(), key)
    }

    fn open_index(&mut self, index: usize) -> Result<MemberReader<'_, R>, Error> {
        self.data_start(index)?;
        let m = &self.members[index];
        let inner = if m.is_stored() {
            Inner::Stored(self.zip.by_index_seek(index).map_err(from_zip)?)
        } else {
            let options = ZipReadOptions::new().ignore_crc32(true);
            Inner::Deflated(
                self.zip
                    .by_index_with_options(index, options)
                    .map_err(from_zip)?,
            )
        };
        Ok(MemberReader {
            inner,
            name: m.name.clone(),
            size: m.size,
            crc32: m.crc32,
            pos: 0,
            hashed: 0,
            hasher: crc32fast::Hasher::new(),
            ended: false,
        })
    }

    /// The member's `.npy` header alone: for a deflated member only the header's bytes are
    /// inflated.
    ///
    /// # Errors
    /// [`NpzError::NotNpyMember`] for a member without the `.npy` magic; otherwise as
    /// [`NpzArchive::open_member`] and [`Header::read`].
    pub fn header(&mut self, key: &str) -> Result<ParsedHeader, Error> {
        let path = self.path.clone();
        let result = (move || {
            let options = self.options;
            let mut r = self.open_member(key)?;
            read_header(&mut r, &options)
        })();
        in_member(result, path.as_deref(), key)
    }

    /// The member's summary from its header ([`TensorInfo`], named by its key; its
    /// `data_offset` is from the start of the member).
    ///
    /// # Errors
    /// As [`NpzArchive::header`].
    pub fn info(&mut self, key: &str) -> Result<TensorInfo, Error> {
        let path = self.path.clone();
        let result = (move || {
            let index = self.find(key)?;
            let name = self.members[index].key().to_owned();
            let options = self.options;
            let mut r = self.open_index(index)?;
            let member = r.name.clone();
            TensorInfo::from_reader_with(name, &mut r, &options).map_err(|e| named(e, &member))
        })();
        in_member(result, path.as_deref(), key)
    }

    /// A streaming reader of the member's array: the header read, the data next. The member
    /// must hold exactly the header and the data it describes.
    ///
    /// The CRC-32 is checked by the read that reaches the end of the data. [`NpyReader::read_range`]
    /// and [`NpyReader::seek_to`] work on stored members; on deflated ones only forwards
    /// (they inflate and skip); a seek makes the CRC unchecked unless the bytes before it were
    /// all read.
    ///
    /// # Errors
    /// [`NpzError::SizeMismatch`] when the member's declared size is not the header's claim;
    /// otherwise as [`NpzArchive::header`].
    ///
    /// # Examples
    /// ```
    /// use npy_core::npz::{NpzArchive, NpzWriter};
    /// let mut w = NpzWriter::new(std::io::Cursor::new(Vec::new()));
    /// w.add("x", &(0..100u16).collect::<Vec<_>>(), &[10, 10])?;
    /// let bytes = w.finish()?.into_inner();
    /// let mut npz = NpzArchive::new(std::io::Cursor::new(bytes))?;
    /// let mut r = npz.npy_reader("x")?;
    /// assert_eq!(r.read_rows::<u16>(9..10)?, (90..100).collect::<Vec<_>>());
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn npy_reader(&mut self, key: &str) -> Result<NpyReader<MemberReader<'_, R>>, Error> {
        let path = self.path.clone();
        let at = |e: Error| member_error(e, path.as_deref(), key);
        let options = self.options;
        let r = self.open_member(key)?;
        let (name, size) = (r.name.clone(), r.size);
        let reader = NpyReader::with_options(r, &options).map_err(|e| at(named(e, &name)))?;
        let parsed = reader.parsed_header();
        let start = parsed.data_offset();
        if !parsed.header.dtype.has_object() {
            let needed = start.checked_add(parsed.header.nbytes().map_err(at)?);
            if needed != Some(size) {
                return Err(at(Error::from(NpzError::SizeMismatch {
                    member: name,
                    declared: size,
                    needed: needed.unwrap_or(u64::MAX),
                })));
            }
        }
        Ok(reader.with_available_bytes(size.saturating_sub(start)))
    }

    /// Reads the member's array into an owned array of `T` (records through
    /// `#[derive(NpyElement)]` too).
    ///
    /// # Errors
    /// As [`NpzArchive::npy_reader`] and [`NpyReader::read_vec`], [`NpzError::CrcMismatch`].
    pub fn read<T: NpyElement>(&mut self, key: &str) -> Result<NpyArray<T>, Error> {
        let path = self.path.clone();
        let result = (move || {
            let mut r = self.npy_reader(key)?;
            let data = r.read_vec::<T>().map_err(lift)?;
            NpyArray::from_parts(r.shape().to_vec(), r.order(), data)
        })();
        in_member(result, path.as_deref(), key)
    }

    /// Reads the member's array whatever its dtype ([`crate::read_dyn`]).
    ///
    /// # Errors
    /// As [`NpzArchive::read`].
    pub fn read_dyn(&mut self, key: &str) -> Result<DynArray, Error> {
        let path = self.path.clone();
        let result = (move || self.npy_reader(key)?.read_dyn().map_err(lift))();
        in_member(result, path.as_deref(), key)
    }

    /// Reads the member's array into an `ndarray` array (feature `ndarray`), Fortran-order
    /// data with Fortran strides.
    ///
    /// # Errors
    /// As [`NpzArchive::read`] and [`NpyArray::into_ndarray`].
    #[cfg(feature = "ndarray")]
    pub fn read_ndarray<T: NpyElement>(
        &mut self,
        key: &str,
    ) -> Result<::ndarray::ArrayD<T>, Error> {
        let path = self.path.clone();
        let result = (move || self.read::<T>(key)?.into_ndarray())();
        in_member(result, path.as_deref(), key)
    }

    /// The member's bytes, whatever they hold (numpy returns a member without the `.npy`
    /// magic this way); CRC-checked.
    ///
    /// # Errors
    /// As [`NpzArchive::open_member`]; [`ErrorKind::Truncated`] when the member ends early.
    pub fn read_bytes(&mut self, key: &str) -> Result<Vec<u8>, Error> {
        let path = self.path.clone();
        let result = (move || {
            let mut r = self.open_member(key)?;
            // The size is backed (check_backed): stored bytes are in the file, deflated ones
            // within deflate's ratio of them.
            let size = usize::try_from(r.size).map_err(|_| {
                Error::new(ErrorKind::AllocationLimit {
                    what: "member bytes",
                    elements: r.size,
                    bytes_each: 1,
                })
            })?;
            let mut out = Vec::with_capacity(size);
            r.copy_to(&mut out)?;
            Ok(out)
        })();
        in_member(result, path.as_deref(), key)
    }

    /// Whether the member starts with the `.npy` magic (numpy then reads it as an array).
    ///
    /// # Errors
    /// As [`NpzArchive::open_member`].
    pub fn is_npy(&mut self, key: &str) -> Result<bool, Error> {
        let path = self.path.clone();
        let result = (move || {
            let mut r = self.open_member(key)?;
            let mut start = [0u8; 6];
            let n = crate::io::read_up_to(&mut r, &mut start).map_err(lift)?;
            Ok(&start[..n] == MAGIC)
        })();
        in_member(result, path.as_deref(), key)
    }

    /// Reads the member to its end and checks its CRC-32, keeping nothing.
    ///
    /// # Errors
    /// [`NpzError::CrcMismatch`], [`NpzError::InflatesPast`], [`ErrorKind::Truncated`], and as
    /// [`NpzArchive::open_member`].
    pub fn verify(&mut self, key: &str) -> Result<(), Error> {
        let path = self.path.clone();
        let result = (move || {
            self.open_member(key)?.copy_to(&mut io::sink())?;
            Ok(())
        })();
        in_member(result, path.as_deref(), key)
    }

    /// The byte range of a stored member in the archive (its local header excluded): the
    /// whole `.npy` file, in place.
    ///
    /// # Errors
    /// [`NpzError::NotStored`] for a deflated member; as [`NpzArchive::open_member`].
    pub fn member_range(&mut self, key: &str) -> Result<Range<u64>, Error> {
        let path = self.path.clone();
        let result = (move || {
            let index = self.find(key)?;
            let start = self.data_start(index)?;
            let m = &self.members[index];
            if !m.is_stored() {
                return Err(Error::from(NpzError::NotStored {
                    member: m.name.clone(),
                }));
            }
            // check_backed: start + size <= the central directory's start.
            Ok(start..start + m.size)
        })();
        in_member(result, path.as_deref(), key)
    }

    /// Offset of a stored member's array data in the archive file: memory-map the archive
    /// and view the data there (see [`view_member`]). numpy's own archives rarely put it at a
    /// multiple of 64 ([`super::NpzWriter`] does by default).
    ///
    /// # Errors
    /// As [`NpzArchive::member_range`] and [`NpzArchive::header`].
    pub fn data_offset(&mut self, key: &str) -> Result<u64, Error> {
        let path = self.path.clone();
        let result = (move || {
            let range = self.member_range(key)?;
            let parsed = self.header(key)?;
            Ok(range.start + parsed.data_offset())
        })();
        in_member(result, path.as_deref(), key)
    }

    /// The reader the archive was read from.
    pub fn into_inner(self) -> R {
        self.zip.into_inner()
    }
}

/// Reads a member's header; a member without the `.npy` magic is [`NpzError::NotNpyMember`].
fn read_header<R: Read + Seek>(
    r: &mut MemberReader<'_, R>,
    options: &ReadOptions,
) -> Result<ParsedHeader, Error> {
    let name = r.name.clone();
    Header::read_with(r, options).map_err(|e| named(e, &name))
}

/// [`lift`], and a member that is not an `.npy` file named as such.
fn named(e: Error, member: &str) -> Error {
    let e = lift(e);
    match e.kind() {
        ErrorKind::NotNpy(NotNpy::Magic(start)) => Error::from(not_npy(member, start)),
        ErrorKind::NotNpy(_) => Error::from(not_npy(member, &[])),
        _ => e,
    }
}

/// `result`'s error naming the member `key` and, for an archive opened from a path, the file.
fn in_member<T>(result: Result<T, Error>, path: Option<&Path>, key: &str) -> Result<T, Error> {
    result.map_err(|e| member_error(e, path, key))
}

/// `e` naming the member `key` and, for an archive opened from a path, the file.
#[cold]
fn member_error(e: Error, path: Option<&Path>, key: &str) -> Error {
    let e = e.with_member(key);
    match path {
        Some(p) => e.with_path(p),
        None => e,
    }
}

/// An error of reading through a [`MemberReader`], with the archive's errors recovered from
/// the `io::Error` they travelled in.
fn lift(e: Error) -> Error {
    if !matches!(e.kind(), ErrorKind::Io(_)) {
        return e;
    }
    let path = e.path().map(Path::to_path_buf);
    let lifted = match e.into_kind() {
        ErrorKind::Io(io) => unwrap_io(io),
        other => Error::new(other),
    };
    match path {
        Some(p) => lifted.with_path(p),
        None => lifted,
    }
}

/// The member's bytes of a borrowed archive, viewed in place as `T` ([`NpyView`]): the
/// archive in memory (a `Vec`, or a memory map of the file), a stored member whose data is
/// aligned for `T` and in the machine's byte order.
///
/// The bytes are not read, so the member's CRC-32 is not checked ([`NpzArchive::verify`]
/// does). The view's `data_offset` is from the member's start.
///
/// # Errors
/// [`NpzError::NotStored`], [`ErrorKind::Misaligned`], [`ErrorKind::NotViewable`] and the errors of
/// [`NpyView::new`] and [`NpzArchive::member_range`].
///
/// # Examples
/// ```
/// use npy_core::npz::{view_member, NpzWriter};
/// let mut w = NpzWriter::new(std::io::Cursor::new(Vec::new()));
/// w.add("x", &[1.5f64, 2.5, 3.5], &[3])?;
/// let archive = w.finish()?.into_inner();
/// // Our archives put every stored member's data at a multiple of 64 bytes; the buffer must
/// // be aligned too (a Vec<u8> need not be 8-aligned, a memory map is page-aligned).
/// let mut words = vec![0u64; archive.len().div_ceil(8)];
/// let aligned = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..archive.len()];
/// aligned.copy_from_slice(&archive);
/// let v = view_member::<f64>(aligned, "x")?;
/// assert_eq!(v.data(), [1.5, 2.5, 3.5]);
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn view_member<'a, T: NpyElement + CheckedBitPattern>(
    archive: &'a [u8],
    key: &str,
) -> Result<NpyView<'a, T>, Error> {
    let range = NpzArchive::new(Cursor::new(archive))?.member_range(key)?;
    in_member(NpyView::new(slice(archive, range)), None, key)
}

/// The member's elements as `T`: borrowed from `archive` when [`view_member`] can view them,
/// else read into a vector (deflated, misaligned or byte-swapped members), the CRC-32
/// checked on that path.
///
/// # Errors
/// As [`NpzArchive::read`]; never [`ErrorKind::Misaligned`], [`ErrorKind::NotViewable`] or
/// [`NpzError::NotStored`].
pub fn view_or_copy_member<'a, T: NpyElement + CheckedBitPattern>(
    archive: &'a [u8],
    key: &str,
) -> Result<CowArray<'a, T>, Error> {
    let mut npz = NpzArchive::new(Cursor::new(archive))?;
    let index = npz.find(key)?;
    if !npz.members[index].is_stored() {
        return Ok(CowArray::from(npz.read::<T>(key)?));
    }
    let range = npz.member_range(key)?;
    let crc = npz.members[index].crc32;
    let bytes = slice(archive, range);
    let values = in_member(crate::view::view_or_copy::<T>(bytes), None, key)?;
    if !values.is_borrowed() {
        let found = crc32fast::hash(bytes);
        if found != crc {
            return Err(Error::from(NpzError::CrcMismatch {
                member: npz.members[index].name.clone(),
                expected: crc,
                found,
            }));
        }
    }
    Ok(values)
}

/// `&archive[range]`: the range is within the archive (checked against its central directory).
fn slice(archive: &[u8], range: Range<u64>) -> &[u8] {
    let start = usize::try_from(range.start).unwrap_or(archive.len());
    let end = usize::try_from(range.end).unwrap_or(archive.len());
    archive.get(start..end).unwrap_or_default()
}

enum Inner<'a, R: Read + Seek> {
    Stored(ZipFileSeek<'a, R>),
    Deflated(ZipFile<'a, R>),
}

impl<R: Read + Seek> std::fmt::Debug for Inner<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Inner::Stored(_) => "Stored",
            Inner::Deflated(_) => "Deflated",
        })
    }
}

/// A member's bytes, as [`NpzArchive::open_member`] gives them: never more than the member's
/// declared size, its CRC-32 checked by the read that reaches the end (an error then, not
/// `Ok`), a deflate stream that goes on past the end an error too.
#[derive(Debug)]
pub struct MemberReader<'a, R: Read + Seek> {
    inner: Inner<'a, R>,
    name: String,
    size: u64,
    crc32: u32,
    pos: u64,
    /// Bytes hashed in order from the start; the CRC is checked only when this reaches `size`.
    hashed: u64,
    hasher: crc32fast::Hasher,
    /// Whether a member of size 0 had its end checked.
    ended: bool,
}

impl<R: Read + Seek> MemberReader<'_, R> {
    /// Copies the rest of the member to `w` and returns the bytes copied; the CRC-32 is
    /// checked at the end.
    ///
    /// # Errors
    /// [`NpzError::CrcMismatch`], [`NpzError::InflatesPast`], [`ErrorKind::Truncated`] when the
    /// member ends before its declared size, I/O errors.
    pub fn copy_to<W: io::Write + ?Sized>(&mut self, w: &mut W) -> Result<u64, Error> {
        let start = self.pos;
        let n = io::copy(self, w).map_err(unwrap_io)?;
        if start + n != self.size {
            return Err(Error::new(ErrorKind::Truncated {
                what: "member",
                needed: self.size,
                found: start + n,
            }));
        }
        Ok(n)
    }

    /// The member's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The member's size, in bytes (uncompressed).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Checks what only the end can tell: no more bytes, and the CRC-32.
    fn at_end(&mut self) -> io::Result<()> {
        if let Inner::Deflated(z) = &mut self.inner {
            let mut probe = [0u8; 1];
            let past = match z.read(&mut probe) {
                Ok(n) => n > 0,
                // The zip crate stops the stream one byte past the declared size.
                Err(e) => {
                    if e.to_string().contains("declared uncompressed size") {
                        true
                    } else {
                        return Err(e);
                    }
                }
            };
            if past {
                return Err(NpzError::InflatesPast {
                    member: self.name.clone(),
                    declared: self.size,
                }
                .into_io());
            }
        }
        if self.hashed == self.size {
            let found = self.hasher.clone().finalize();
            if found != self.crc32 {
                return Err(NpzError::CrcMismatch {
                    member: self.name.clone(),
                    expected: self.crc32,
                    found,
                }
                .into_io());
            }
        }
        Ok(())
    }
}

impl<R: Read + Seek> Read for MemberReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.size.saturating_sub(self.pos);
        if left == 0 && self.size == 0 && !self.ended {
            // A member of no bytes ends at once: its CRC (and a stream that inflates past
            // nothing) are checked at the first read, as for any other member at its last.
            self.ended = true;
            self.at_end()?;
        }
        if left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let want = usize::try_from(left).map_or(buf.len(), |l| l.min(buf.len()));
        let buf = &mut buf[..want];
        let n = match &mut self.inner {
            Inner::Stored(r) => r.read(buf)?,
            Inner::Deflated(r) => r.read(buf)?,
        };
        if self.hashed == self.pos {
            self.hasher.update(&buf[..n]);
            self.hashed += n as u64;
        }
        self.pos += n as u64;
        if n > 0 && self.pos == self.size {
            self.at_end()?;
        }
        Ok(n)
    }
}

impl<R: Read + Seek> Seek for MemberReader<'_, R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.size.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        }
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the member's start",
            )
        })?;
        if target == self.pos {
            return Ok(target);
        }
        match &mut self.inner {
            Inner::Stored(r) => {
                r.seek(SeekFrom::Start(target))?;
                self.pos = target;
            }
            Inner::Deflated(_) if target < self.pos => {
                return Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    format!(
                        "member {:?} is deflated: it cannot seek backwards",
                        self.name
                    ),
                ))
            }
            Inner::Deflated(_) => {
                // Inflate and drop: reading through `self` keeps the CRC running.
                let skip = target.min(self.size).saturating_sub(self.pos);
                io::copy(&mut (&mut *self).take(skip), &mut io::sink())?;
                if self.pos < target.min(self.size) {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                self.pos = target;
            }
        }
        Ok(self.pos)
    }
}

/// The first bytes of a member, for [`NpzError::NotNpyMember`].
pub(crate) fn not_npy(member: &str, start: &[u8]) -> NpzError {
    NpzError::NotNpyMember {
        member: member.to_owned(),
        start: Escaped(start).to_string(),
    }
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
        // One range over two others that do not touch each other.
        let got = overlaps(&[0..100, 10..20, 30..40], 100);
        assert_eq!(got, [Some(10), Some(0), Some(0)]);
        // Equal starts.
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
}
