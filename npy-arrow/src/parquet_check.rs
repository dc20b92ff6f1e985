//! What a Parquet file claims, checked before the parquet crate reads it.
//!
//! The parquet crate trusts a file's claims in ways no caller can catch: it builds its schema
//! tree and its readers recursively (one stack frame or more per level: 2,000 nested groups
//! overflow the main thread's stack, an abort no `catch_unwind` contains), and it sizes
//! allocations by the counts a page header states (a dictionary page claiming 2^31 - 1 values
//! in 8 bytes: a 16 GiB `Vec`). So the footer and every page header are read here first, by a
//! small Thrift compact-protocol reader of our own that never recurses past
//! [`THRIFT_DEPTH`], and the file is refused unless:
//!
//! - its schema nests at most the caller's depth (default [`crate::MAX_NESTING_DEPTH`]);
//! - its column chunks lie inside the file and together take no more bytes than it has;
//! - every page lies inside its column chunk, a Snappy page's stated uncompressed size is one
//!   Snappy can reach from its compressed bytes ([`snappy_bound`]), and a dictionary page's
//!   value count fits its bytes at the smallest width the column's type allows, and the
//!   delta headers of a `DELTA_LENGTH_BYTE_ARRAY` / `DELTA_BYTE_ARRAY` page (inside its data,
//!   which the parquet crate sizes vectors by) state no more values than the page;
//! - each row group's row count is the sum of the rows its pages hold (columns outside any
//!   repeated field: one value per row), none is negative, and the file's row count is the
//!   sum of its row groups'.
//!
//! The reads are bounded by the file: every length is checked against the bytes left before
//! it is read or skipped, and each step reads at least one byte.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};

use crate::error::{Error, ErrorKind};

/// Thrift nesting followed while reading a footer or a page header (a valid footer nests about
/// 6 structs deep; the parquet crate's own decoder stops at 64 too).
const THRIFT_DEPTH: u32 = 64;

/// The largest uncompressed size Snappy can produce from `compressed` bytes: a copy element
/// writes at most 64 bytes from 3 (a ratio under 22), and the stream opens with its length in
/// at most 5 bytes. A page header claiming more is malformed (the parquet crate reserves the
/// claimed size before decompressing).
pub(crate) fn snappy_bound(compressed: u64) -> u64 {
    compressed.saturating_mul(22).saturating_add(64)
}

type Res<T> = Result<T, String>;

/// A Thrift compact-protocol reader over `r`, which may not read past `limit` bytes.
struct Thrift<R> {
    r: R,
    pos: u64,
    limit: u64,
}

impl<R: Read> Thrift<R> {
    fn byte(&mut self) -> Res<u8> {
        if self.pos >= self.limit {
            return Err("a Thrift structure runs past its bytes".into());
        }
        let mut b = [0u8];
        self.r
            .read_exact(&mut b)
            .map_err(|e| format!("reading Thrift: {e}"))?;
        self.pos += 1;
        Ok(b[0])
    }

    fn varint(&mut self) -> Res<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a Thrift varint longer than 10 bytes".into())
    }

    fn zigzag(&mut self) -> Res<i64> {
        let v = self.varint()?;
        #[allow(clippy::cast_possible_wrap, reason = "zigzag decoding")]
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn i32(&mut self) -> Res<i32> {
        i32::try_from(self.zigzag()?).map_err(|_| "a Thrift i32 out of range".into())
    }

    /// Skips `n` bytes, refusing to pass the limit.
    fn skip_bytes(&mut self, n: u64) -> Res<()> {
        if n > self.limit - self.pos {
            return Err(format!(
                "a Thrift value claims {n} bytes, {} are left",
                self.limit - self.pos
            ));
        }
        let got = std::io::copy(&mut (&mut self.r).take(n), &mut std::io::sink())
            .map_err(|e| format!("reading Thrift: {e}"))?;
        if got < n {
            return Err("the file ends inside a Thrift value".into());
        }
        self.pos += n;
        Ok(())
    }

    fn binary(&mut self) -> Res<Vec<u8>> {
        let n = self.varint()?;
        if n > self.limit - self.pos {
            return Err(format!(
                "a Thrift string claims {n} bytes, {} are left",
                self.limit - self.pos
            ));
        }
        let mut v = Vec::new();
        (&mut self.r)
            .take(n)
            .read_to_end(&mut v)
            .map_err(|e| format!("reading Thrift: {e}"))?;
        if (v.len() as u64) < n {
            return Err("the file ends inside a Thrift string".into());
        }
        self.pos += n;
        Ok(v)
    }

    /// The next field's id and type, `None` at the struct's end.
    fn field(&mut self, last: &mut i16) -> Res<Option<(i16, u8)>> {
        let b = self.byte()?;
        if b == 0 {
            return Ok(None);
        }
        let delta = i16::from(b >> 4);
        let id = if delta == 0 {
            i16::try_from(self.zigzag()?).map_err(|_| "a Thrift field id out of range")?
        } else {
            last.checked_add(delta)
                .ok_or("a Thrift field id out of range")?
        };
        *last = id;
        Ok(Some((id, b & 0x0f)))
    }

    /// A list's element type and length.
    fn list(&mut self) -> Res<(u8, u64)> {
        let b = self.byte()?;
        let n = if b >> 4 == 15 {
            self.varint()?
        } else {
            u64::from(b >> 4)
        };
        Ok((b & 0x0f, n))
    }

    /// Skips an element of a list, set or map of type `ty`: a bool there is a byte of its own
    /// (a bool field's value is in its field header), so every element takes a byte at least.
    fn skip_element(&mut self, ty: u8, depth: u32) -> Res<()> {
        if ty == 1 || ty == 2 {
            self.byte().map(|_| ())
        } else {
            self.skip(ty, depth)
        }
    }

    fn skip(&mut self, ty: u8, depth: u32) -> Res<()> {
        let depth = depth
            .checked_sub(1)
            .ok_or_else(|| format!("Thrift nested deeper than {THRIFT_DEPTH} levels"))?;
        match ty {
            1 | 2 => Ok(()),
            3 => self.byte().map(|_| ()),
            4..=6 => self.varint().map(|_| ()),
            7 => self.skip_bytes(8),
            8 => {
                let n = self.varint()?;
                self.skip_bytes(n)
            }
            9 | 10 => {
                let (et, n) = self.list()?;
                // Every element takes at least a byte: `n` is bounded by the bytes left.
                for _ in 0..n {
                    self.skip_element(et, depth)?;
                }
                Ok(())
            }
            11 => {
                let n = self.varint()?;
                if n > 0 {
                    let kv = self.byte()?;
                    // Keys and values take a byte at least (bools too, as in lists): `n` is
                    // bounded by the bytes left. Skipped as bare bool fields, which take no
                    // byte, a 483-byte file's map of 2^63 bool pairs looped for hours (fuzz
                    // target `parquet`, issue 42).
                    for _ in 0..n {
                        self.skip_element(kv >> 4, depth)?;
                        self.skip_element(kv & 0x0f, depth)?;
                    }
                }
                Ok(())
            }
            12 => self.strukt(depth, |_, _, _| Ok(false)),
            _ => Err(format!("a Thrift value of unknown type {ty}")),
        }
    }

    /// Reads a struct's fields: `f` reads the ones it knows (returning `true`), the others
    /// are skipped.
    fn strukt(
        &mut self,
        depth: u32,
        mut f: impl FnMut(&mut Self, i16, u8) -> Res<bool>,
    ) -> Res<()> {
        let mut last = 0i16;
        while let Some((id, ty)) = self.field(&mut last)? {
            if !f(self, id, ty)? {
                self.skip(ty, depth)?;
            }
        }
        Ok(())
    }

    /// Reads a list of structs, `f` reading each.
    fn structs(&mut self, mut f: impl FnMut(&mut Self) -> Res<()>) -> Res<()> {
        let (et, n) = self.list()?;
        if et != 12 {
            return Err("a list of structs holds another type".into());
        }
        for _ in 0..n {
            f(self)?;
        }
        Ok(())
    }
}

/// Thrift types of the fields read.
const T_I32: u8 = 5;
const T_I64: u8 = 6;
const T_BINARY: u8 = 8;
const T_LIST: u8 = 9;
const T_STRUCT: u8 = 12;

#[derive(Default)]
struct SchemaElement {
    physical: Option<i32>,
    type_length: Option<i32>,
    repetition: Option<i32>,
    children: Option<i32>,
}

#[derive(Default)]
struct ColumnChunk {
    path: String,
    codec: i32,
    data_page_offset: i64,
    dictionary_page_offset: Option<i64>,
    compressed: i64,
}

#[derive(Default)]
struct RowGroup {
    rows: i64,
    columns: Vec<Option<ColumnChunk>>,
}

#[derive(Default)]
struct Footer {
    schema: Vec<SchemaElement>,
    rows: i64,
    row_groups: Vec<RowGroup>,
}

fn read_footer(bytes: &[u8]) -> Res<Footer> {
    let mut t = Thrift {
        r: bytes,
        pos: 0,
        limit: bytes.len() as u64,
    };
    let d = THRIFT_DEPTH;
    let mut footer = Footer::default();
    t.strukt(d, |t, id, ty| match (id, ty) {
        (2, T_LIST) => t
            .structs(|t| {
                let mut e = SchemaElement::default();
                t.strukt(d - 2, |t, id, ty| {
                    match (id, ty) {
                        (1, T_I32) => e.physical = Some(t.i32()?),
                        (2, T_I32) => e.type_length = Some(t.i32()?),
                        (3, T_I32) => e.repetition = Some(t.i32()?),
                        (5, T_I32) => e.children = Some(t.i32()?),
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                footer.schema.push(e);
                Ok(())
            })
            .map(|()| true),
        (3, T_I64) => {
            footer.rows = t.zigzag()?;
            Ok(true)
        }
        (4, T_LIST) => t
            .structs(|t| {
                let mut rg = RowGroup::default();
                t.strukt(d - 2, |t, id, ty| match (id, ty) {
                    (1, T_LIST) => t
                        .structs(|t| {
                            let mut chunk = None;
                            t.strukt(d - 5, |t, id, ty| {
                                if (id, ty) != (3, T_STRUCT) {
                                    return Ok(false);
                                }
                                let mut c = ColumnChunk::default();
                                t.strukt(d - 6, |t, id, ty| {
                                    match (id, ty) {
                                        (3, T_LIST) => {
                                            let (et, n) = t.list()?;
                                            let mut parts = Vec::new();
                                            for _ in 0..n {
                                                if et != T_BINARY {
                                                    return Err(
                                                        "a column path of non-strings".into()
                                                    );
                                                }
                                                parts.push(
                                                    String::from_utf8_lossy(&t.binary()?)
                                                        .into_owned(),
                                                );
                                            }
                                            c.path = parts.join(".");
                                        }
                                        (4, T_I32) => c.codec = t.i32()?,
                                        (7, T_I64) => c.compressed = t.zigzag()?,
                                        (9, T_I64) => c.data_page_offset = t.zigzag()?,
                                        (11, T_I64) => c.dictionary_page_offset = Some(t.zigzag()?),
                                        _ => return Ok(false),
                                    }
                                    Ok(true)
                                })?;
                                chunk = Some(c);
                                Ok(true)
                            })?;
                            rg.columns.push(chunk);
                            Ok(())
                        })
                        .map(|()| true),
                    (3, T_I64) => {
                        rg.rows = t.zigzag()?;
                        Ok(true)
                    }
                    _ => Ok(false),
                })?;
                footer.row_groups.push(rg);
                Ok(())
            })
            .map(|()| true),
        _ => Ok(false),
    })?;
    Ok(footer)
}

/// What a page header says.
#[derive(Default)]
struct PageHeader {
    kind: i32,
    uncompressed: i32,
    compressed: i32,
    /// Values of a data page (v1, v2) or a dictionary page.
    values: Option<i32>,
    /// Rows of a v2 data page.
    rows: Option<i32>,
    /// A data page's encoding.
    encoding: Option<i32>,
    /// A v1 data page's level encodings (definition, repetition).
    level_encodings: (Option<i32>, Option<i32>),
    /// A v2 data page's level bytes (definition, repetition) and whether its values are
    /// compressed.
    v2_levels: (i32, i32),
    v2_uncompressed: bool,
}

fn read_page_header<R: Read>(t: &mut Thrift<R>) -> Res<PageHeader> {
    let d = THRIFT_DEPTH;
    let mut h = PageHeader::default();
    t.strukt(d, |t, id, ty| {
        match (id, ty) {
            (1, T_I32) => h.kind = t.i32()?,
            (2, T_I32) => h.uncompressed = t.i32()?,
            (3, T_I32) => h.compressed = t.i32()?,
            (5 | 7 | 8, T_STRUCT) => t.strukt(d - 1, |t, sub, ty| {
                match (id, sub, ty) {
                    (_, 1, T_I32) => h.values = Some(t.i32()?),
                    (8, 3, T_I32) => h.rows = Some(t.i32()?),
                    (5, 2, T_I32) | (8, 4, T_I32) => h.encoding = Some(t.i32()?),
                    (5, 3, T_I32) => h.level_encodings.0 = Some(t.i32()?),
                    (5, 4, T_I32) => h.level_encodings.1 = Some(t.i32()?),
                    (8, 5, T_I32) => h.v2_levels.0 = t.i32()?,
                    (8, 6, T_I32) => h.v2_levels.1 = t.i32()?,
                    // A bool's value is its type (1 true, 2 false).
                    (8, 7, 1 | 2) => h.v2_uncompressed = ty == 2,
                    _ => return Ok(false),
                }
                Ok(true)
            })?,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(h)
}

/// A leaf column of the schema.
struct Leaf {
    /// Inside a repeated field (its pages hold values, not rows).
    repeated: bool,
    /// Physical type (6: `BYTE_ARRAY`, 7: `FIXED_LEN_BYTE_ARRAY`).
    physical: Option<i32>,
    /// Bytes of a `FIXED_LEN_BYTE_ARRAY` value.
    type_length: u64,
    /// Most definition and repetition levels (fields on its path that are not required, that
    /// are repeated).
    max_levels: (u32, u32),
    /// The smallest plain-encoded width of a value, in bits (a dictionary page's values).
    min_bits: u64,
}

fn min_bits(e: &SchemaElement) -> u64 {
    match e.physical {
        Some(0) => 1,
        Some(1 | 4) => 32,
        Some(2 | 5) => 64,
        Some(3) => 96,
        // BYTE_ARRAY: a 4-byte length each; FIXED_LEN_BYTE_ARRAY: its length (at least 1).
        Some(6) => 32,
        Some(7) => u64::try_from(e.type_length.unwrap_or(1).max(1)).unwrap_or(8) * 8,
        _ => 8,
    }
}

/// The leaves of `schema` (depth-first, the order of a row group's column chunks), refusing
/// nesting deeper than `max_depth` groups below the root.
fn leaves(schema: &[SchemaElement], max_depth: usize) -> Result<Vec<Leaf>, Error> {
    // Open groups: children still to come, whether the group is inside a repeated field, and
    // its levels (definition, repetition).
    let mut open: Vec<(i64, bool, (u32, u32))> = Vec::new();
    let mut out = Vec::new();
    // The walk keeps no frame per level: the whole schema is measured, then judged.
    let mut deepest = 0usize;
    for (i, e) in schema.iter().enumerate() {
        let mut inside_repeated = false;
        let mut levels = (0u32, 0u32);
        if i > 0 {
            while open.last().is_some_and(|g| g.0 == 0) {
                open.pop();
            }
            // More elements than the groups announce: the parquet crate says so.
            let Some(top) = open.last_mut() else { break };
            top.0 -= 1;
            inside_repeated = top.1;
            levels = top.2;
            match e.repetition {
                Some(1) => levels.0 += 1,
                Some(2) => levels = (levels.0 + 1, levels.1 + 1),
                _ => {}
            }
        }
        let repeated = inside_repeated || (i > 0 && e.repetition == Some(2));
        match e.children {
            // A group cannot have more children than the elements after it (the parquet
            // crate's schema builder allocates for the claimed count first: 2^31 - 1 children
            // in a 136-byte file asked for 16 GiB and aborted). pyarrow: "Malformed Parquet
            // schema: not enough elements".
            Some(n) if i64::from(n) > (schema.len() - i - 1) as i64 => {
                return Err(malformed(format!(
                    "a schema group claims {n} children, but only {} schema elements follow it",
                    schema.len() - i - 1
                )));
            }
            Some(n) if n >= 0 || i == 0 => {
                open.push((i64::from(n.max(0)), repeated, levels));
                deepest = deepest.max(open.len() - 1);
            }
            Some(n) => return Err(malformed(format!("a schema group claims {n} children"))),
            None => out.push(Leaf {
                repeated,
                physical: e.physical,
                type_length: u64::try_from(e.type_length.unwrap_or(0)).unwrap_or(0),
                max_levels: levels,
                min_bits: min_bits(e),
            }),
        }
    }
    if deepest > max_depth {
        return Err(Error::new(ErrorKind::Budget {
            what: "the Parquet schema's nesting (groups above a leaf)".into(),
            needed: deepest as u64,
            limit: max_depth as u64,
            option: "ConvertOptions::max_nesting_depth",
        }));
    }
    Ok(out)
}

fn malformed(why: String) -> Error {
    Error::new(ErrorKind::Malformed(why))
}

/// What the checks found.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Summary {
    /// The rows the file holds (its row groups', checked against their pages).
    pub(crate) rows: u64,
    /// The most bytes a row's dictionary-encoded byte values may take once decoded: for each
    /// column with a dictionary of byte strings, its widest value (any row group), summed.
    /// A data page repeats a dictionary entry for any number of rows in a few bytes, and the
    /// parquet crate materialises every row's value in a batch: a 1 MiB value in 64 Ki rows
    /// is a 64 GiB batch. Batches are kept to [`crate::BATCH_BYTES`] of such values.
    pub(crate) dict_row_bytes: u64,
}

impl Summary {
    /// Rows per batch that keep the dictionary-decoded values of a batch to about
    /// [`crate::BATCH_BYTES`] (at most `wanted`, at least 1).
    pub(crate) fn batch_rows(&self, wanted: usize) -> usize {
        let cap = (crate::BATCH_BYTES as u64 / self.dict_row_bytes.max(1)).max(1);
        wanted
            .min(usize::try_from(cap).unwrap_or(usize::MAX))
            .max(1)
    }
}

/// Checks the Parquet file `file` (of `len` bytes) as the module docs say, before the parquet
/// crate reads it. A file that is not Parquet at all (no `PAR1` at either end) is left to the
/// parquet crate to refuse.
pub(crate) fn check(file: &mut File, len: u64, max_depth: usize) -> Result<Summary, Error> {
    let none = Summary {
        rows: 0,
        dict_row_bytes: 0,
    };
    if len < 12 {
        return Ok(none);
    }
    let mut tail = [0u8; 8];
    file.seek(SeekFrom::Start(len - 8))?;
    file.read_exact(&mut tail)?;
    if &tail[4..] != b"PAR1" {
        return Ok(none);
    }
    let footer_len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if footer_len > len - 12 {
        return Err(malformed(format!(
            "the footer claims {footer_len} bytes of a {len}-byte file"
        )));
    }
    let mut bytes =
        vec![0u8; usize::try_from(footer_len).map_err(|_| malformed("footer size".into()))?];
    file.seek(SeekFrom::Start(len - 8 - footer_len))?;
    file.read_exact(&mut bytes)?;
    let footer = read_footer(&bytes).map_err(|e| malformed(format!("the footer: {e}")))?;
    let leaves = leaves(&footer.schema, max_depth)?;
    // Chunks: inside the file, and no more bytes in all than the file has (so that the page
    // walk below reads the file about once).
    let mut claimed = 0u64;
    for rg in &footer.row_groups {
        for c in rg.columns.iter().flatten() {
            let bad = || {
                malformed(format!(
                    "column chunk {:?} claims bytes {}..+{} of a {len}-byte file",
                    c.path,
                    c.dictionary_page_offset.unwrap_or(c.data_page_offset),
                    c.compressed
                ))
            };
            let start = u64::try_from(c.dictionary_page_offset.unwrap_or(c.data_page_offset))
                .map_err(|_| bad())?;
            let size = u64::try_from(c.compressed).map_err(|_| bad())?;
            if start.checked_add(size).is_none_or(|e| e > len) {
                return Err(bad());
            }
            claimed = claimed.saturating_add(size);
        }
    }
    if claimed > len {
        return Err(malformed(format!(
            "the column chunks claim {claimed} bytes in all, more than the {len}-byte file holds"
        )));
    }
    let mut total = 0u64;
    let mut widest = vec![0u64; leaves.len()];
    for (g, rg) in footer.row_groups.iter().enumerate() {
        let rows = u64::try_from(rg.rows)
            .map_err(|_| malformed(format!("row group {g} claims {} rows", rg.rows)))?;
        total = total
            .checked_add(rows)
            .ok_or_else(|| malformed("the row groups' rows overflow".into()))?;
        if rg.columns.len() != leaves.len() {
            // The parquet crate refuses it, naming the counts.
            continue;
        }
        for ((c, leaf), widest) in rg.columns.iter().zip(&leaves).zip(&mut widest) {
            let Some(c) = c else { continue };
            let (held, wide) = walk_pages(file, c, leaf)
                .map_err(|e| malformed(format!("row group {g}, column {:?}: {e}", c.path)))?;
            *widest = (*widest).max(wide);
            if !leaf.repeated && held != rows {
                return Err(malformed(format!(
                    "row group {g} claims {rows} rows and its column {:?} holds {held}",
                    c.path
                )));
            }
        }
    }
    if u64::try_from(footer.rows).ok() != Some(total) {
        return Err(malformed(format!(
            "the file claims {} rows and its row groups hold {total}",
            footer.rows
        )));
    }
    Ok(Summary {
        rows: total,
        dict_row_bytes: widest.iter().fold(0u64, |a, &w| a.saturating_add(w)),
    })
}

/// Walks the page headers of chunk `c`, checking each (module docs); the rows its data pages
/// hold (values for v1 pages, which are rows outside repeated fields), and the widest value
/// of its dictionary page of byte strings (0 without one).
fn walk_pages(file: &mut File, c: &ColumnChunk, leaf: &Leaf) -> Res<(u64, u64)> {
    let start = c.dictionary_page_offset.unwrap_or(c.data_page_offset);
    let (start, size) = (start.unsigned_abs(), c.compressed.unsigned_abs());
    file.seek(SeekFrom::Start(start))
        .map_err(|e| e.to_string())?;
    let mut t = Thrift {
        r: BufReader::with_capacity(64 << 10, &mut *file),
        pos: 0,
        limit: size,
    };
    let mut held = 0u64;
    let mut wide = 0u64;
    while t.pos < size {
        let at = t.pos;
        let h = read_page_header(&mut t)
            .map_err(|e| format!("the page header at {}: {e}", start + at))?;
        let (Ok(compressed), Ok(uncompressed)) =
            (u64::try_from(h.compressed), u64::try_from(h.uncompressed))
        else {
            return Err(format!(
                "the page at {} claims sizes {} / {}",
                start + at,
                h.compressed,
                h.uncompressed
            ));
        };
        if compressed > size - t.pos {
            return Err(format!(
                "the page at {} claims {compressed} bytes, {} are left in its column chunk",
                start + at,
                size - t.pos
            ));
        }
        // Codec 1 is Snappy; the others are refused by the parquet crate as built here, or
        // (uncompressed) not decompressed.
        if c.codec == 1 && uncompressed > snappy_bound(compressed) {
            return Err(format!(
                "the Snappy page at {} claims {uncompressed} bytes from {compressed}, more than \
                 Snappy can expand them to",
                start + at
            ));
        }
        let values = h.values.unwrap_or(0);
        let values = u64::try_from(values)
            .map_err(|_| format!("the page at {} claims {values} values", start + at))?;
        // Byte strings in DELTA_LENGTH_BYTE_ARRAY (6) or DELTA_BYTE_ARRAY (7): the counts their
        // delta headers state, inside the page's data, size the parquet crate's length
        // vectors before anything is compared: at most the page's values.
        if matches!(h.kind, 0 | 3) && leaf.physical == Some(6) && matches!(h.encoding, Some(6 | 7))
        {
            let mut page = Vec::new();
            (&mut t.r)
                .take(compressed)
                .read_to_end(&mut page)
                .map_err(|e| e.to_string())?;
            if (page.len() as u64) < compressed {
                return Err("the file ends inside a data page".into());
            }
            t.pos += compressed;
            check_delta(&page, &h, c.codec, leaf, values, uncompressed)
                .map_err(|e| format!("the data page at {}: {e}", start + at))?;
            if h.kind == 0 {
                held = held.saturating_add(values);
            } else {
                held = held.saturating_add(u64::try_from(h.rows.unwrap_or(0)).unwrap_or(0));
            }
            continue;
        }
        match h.kind {
            // Data page v1: values (one per row outside repeated fields).
            0 => held = held.saturating_add(values),
            // Dictionary page: its values all plain-encoded in its bytes.
            2 if values.saturating_mul(leaf.min_bits) > uncompressed.saturating_mul(8) => {
                return Err(format!(
                    "the dictionary page at {} claims {values} values in {uncompressed} bytes",
                    start + at
                ));
            }
            // A dictionary of fixed-size byte strings: each value its width.
            2 if leaf.physical == Some(7) => wide = wide.max(leaf.type_length),
            // A dictionary of byte strings: its widest value, read from the page.
            2 if leaf.physical == Some(6) => {
                let mut page = Vec::new();
                (&mut t.r)
                    .take(compressed)
                    .read_to_end(&mut page)
                    .map_err(|e| e.to_string())?;
                if (page.len() as u64) < compressed {
                    return Err("the file ends inside a dictionary page".into());
                }
                t.pos += compressed;
                wide = wide.max(
                    widest_value(&page, c.codec, uncompressed)
                        .map_err(|e| format!("the dictionary page at {}: {e}", start + at))?,
                );
                continue;
            }
            // Data page v2: rows stated.
            3 => {
                let rows = h.rows.unwrap_or(0);
                held = held.saturating_add(
                    u64::try_from(rows)
                        .map_err(|_| format!("the page at {} claims {rows} rows", start + at))?,
                );
            }
            _ => {}
        }
        t.r.seek_relative(i64::try_from(compressed).map_err(|_| "page size".to_string())?)
            .map_err(|e| e.to_string())?;
        t.pos += compressed;
    }
    Ok((held, wide))
}

/// `page` decompressed (codec `codec`, `uncompressed` bytes by its header); `None` for a codec
/// not read here (the parquet crate refuses it).
fn decompress(page: &[u8], codec: i32, uncompressed: u64) -> Res<Option<Vec<u8>>> {
    match codec {
        0 => Ok(Some(page.to_vec())),
        1 => {
            if snap::raw::decompress_len(page).ok().map(|n| n as u64) > Some(uncompressed) {
                return Err("its Snappy stream is longer than the header says".into());
            }
            snap::raw::Decoder::new()
                .decompress_vec(page)
                .map(Some)
                .map_err(|e| format!("Snappy: {e}"))
        }
        _ => Ok(None),
    }
}

/// Checks the delta headers of a data page of byte strings in `DELTA_LENGTH_BYTE_ARRAY` or
/// `DELTA_BYTE_ARRAY` (`h.encoding`): each states at most `values` values (the page
/// header's). A page whose levels or headers cannot be read is left to the parquet crate.
fn check_delta(
    page: &[u8],
    h: &PageHeader,
    codec: i32,
    leaf: &Leaf,
    values: u64,
    uncompressed: u64,
) -> Res<()> {
    let data = if h.kind == 3 {
        let (Ok(def), Ok(rep)) = (
            usize::try_from(h.v2_levels.0),
            usize::try_from(h.v2_levels.1),
        ) else {
            return Ok(());
        };
        let Some(rest) = page.get(def.saturating_add(rep)..) else {
            return Ok(());
        };
        if h.v2_uncompressed {
            rest.to_vec()
        } else {
            match decompress(rest, codec, uncompressed)? {
                Some(v) => v,
                None => return Ok(()),
            }
        }
    } else {
        let Some(v) = decompress(page, codec, uncompressed)? else {
            return Ok(());
        };
        // The levels come first: repetition, then definition, each RLE with a 4-byte
        // length, or (deprecated BIT_PACKED, 4) packed at their width.
        let mut at = 0usize;
        for (max, enc) in [
            (leaf.max_levels.1, h.level_encodings.1),
            (leaf.max_levels.0, h.level_encodings.0),
        ] {
            if max == 0 {
                continue;
            }
            if enc == Some(4) {
                let bits = u64::from(32 - max.leading_zeros());
                let n = values.saturating_mul(bits).div_ceil(8);
                at = at.saturating_add(usize::try_from(n).unwrap_or(usize::MAX));
            } else {
                let Some(len) = v.get(at..at.saturating_add(4)) else {
                    return Ok(());
                };
                let n = u32::from_le_bytes([len[0], len[1], len[2], len[3]]);
                at = at.saturating_add(4).saturating_add(n as usize);
            }
        }
        match v.get(at..) {
            Some(rest) => rest.to_vec(),
            None => return Ok(()),
        }
    };
    let Some(end) = delta_stream(&data, 0, values)? else {
        return Ok(());
    };
    if h.encoding == Some(7) {
        // The suffixes' lengths follow the prefixes'.
        delta_stream(&data, end, values)?;
    }
    Ok(())
}

/// Reads the `DELTA_BINARY_PACKED` stream at `at` of `data`: refuses a header stating more
/// than `most` values; the offset after the stream, `None` when it cannot be read (the
/// parquet crate says why).
fn delta_stream(data: &[u8], mut at: usize, most: u64) -> Res<Option<usize>> {
    let varint = |at: &mut usize| -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *data.get(*at)?;
            *at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    };
    let (Some(block), Some(minis), Some(total), Some(_first)) = (
        varint(&mut at),
        varint(&mut at),
        varint(&mut at),
        varint(&mut at),
    ) else {
        return Ok(None);
    };
    if total > most {
        return Err(format!(
            "a delta header states {total} values in a page of {most}"
        ));
    }
    if minis == 0 || block % 128 != 0 || block % minis != 0 || (block / minis) % 32 != 0 {
        return Ok(None);
    }
    let per = block / minis;
    let mut left = total.saturating_sub(1);
    while left > 0 {
        if varint(&mut at).is_none() {
            return Ok(None);
        }
        let Some(widths) = usize::try_from(minis)
            .ok()
            .and_then(|m| data.get(at..at.checked_add(m)?))
        else {
            return Ok(None);
        };
        at += widths.len();
        for &w in widths {
            if left == 0 {
                break;
            }
            let bytes = per.saturating_mul(u64::from(w)) / 8;
            at = at.saturating_add(usize::try_from(bytes).unwrap_or(usize::MAX));
            if at > data.len() {
                return Ok(None);
            }
            left = left.saturating_sub(per);
        }
    }
    Ok(Some(at))
}

/// The widest value of a dictionary page of byte strings (`page`: its bytes as stored, in
/// codec `codec`, `uncompressed` bytes once decompressed: checked against
/// [`snappy_bound`] before). A page the parquet crate cannot decode (another codec, values
/// cut short) gives 0: the crate refuses it itself.
fn widest_value(page: &[u8], codec: i32, uncompressed: u64) -> Res<u64> {
    let plain;
    let values = match codec {
        0 => page,
        1 => {
            if snap::raw::decompress_len(page).ok().map(|n| n as u64) != Some(uncompressed) {
                return Err("its Snappy stream's length is not the header's".into());
            }
            plain = snap::raw::Decoder::new()
                .decompress_vec(page)
                .map_err(|e| format!("Snappy: {e}"))?;
            &plain[..]
        }
        _ => return Ok(0),
    };
    let mut at = 0usize;
    let mut widest = 0u64;
    while let Some(len) = values.get(at..at.saturating_add(4)) {
        let n = u32::from_le_bytes([len[0], len[1], len[2], len[3]]);
        widest = widest.max(u64::from(n));
        at = at.saturating_add(4).saturating_add(n as usize);
    }
    Ok(widest)
}
