//! Hand-built Parquet files whose metadata says whatever a test wants: a port of the hostile
//! cases' helper `_pq.py` (issue 42's cases, round four: a Thrift compact-protocol writer and a
//! builder of one row group of one column chunk), byte for byte the files its scripts write.

pub const PLAIN: i64 = 0;
pub const RLE: i64 = 3;
pub const RLE_DICT: i64 = 8;
pub const INT32: i64 = 1;
pub const INT64: i64 = 2;
pub const BYTE_ARRAY: i64 = 6;
pub const REQUIRED: i64 = 0;
pub const UNCOMPRESSED: i64 = 0;
pub const SNAPPY: i64 = 1;

/// A Thrift value: i32, i64, binary, list (element type, items), struct.
#[derive(Clone)]
pub enum V {
    I32(i64),
    I64(i64),
    Bin(Vec<u8>),
    List(u8, Vec<V>),
    Struct(Vec<(i16, V)>),
}

fn varint(mut n: u64, o: &mut Vec<u8>) {
    loop {
        let c = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            o.push(c);
            return;
        }
        o.push(c | 0x80);
    }
}

fn zz(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

impl V {
    fn ttype(&self) -> u8 {
        match self {
            V::I32(_) => 5,
            V::I64(_) => 6,
            V::Bin(_) => 8,
            V::List(..) => 9,
            V::Struct(_) => 12,
        }
    }

    fn write(&self, o: &mut Vec<u8>) {
        match self {
            V::I32(v) | V::I64(v) => varint(zz(*v), o),
            V::Bin(b) => {
                varint(b.len() as u64, o);
                o.extend_from_slice(b);
            }
            V::List(et, items) => {
                if items.len() < 15 {
                    o.push(((items.len() as u8) << 4) | et);
                } else {
                    o.push(0xf0 | et);
                    varint(items.len() as u64, o);
                }
                for x in items {
                    x.write(o);
                }
            }
            V::Struct(fields) => o.extend(tstruct(fields)),
        }
    }
}

/// A struct's bytes, its fields sorted by id.
pub fn tstruct(fields: &[(i16, V)]) -> Vec<u8> {
    let mut fields = fields.to_vec();
    fields.sort_by_key(|f| f.0);
    let mut o = Vec::new();
    let mut last = 0i16;
    for (id, v) in &fields {
        let d = id - last;
        if d > 0 && d <= 15 {
            o.push(((d as u8) << 4) | v.ttype());
        } else {
            o.push(v.ttype());
            varint(zz(i64::from(*id)), &mut o);
        }
        last = *id;
        v.write(&mut o);
    }
    o.push(0);
    o
}

fn s(fields: Vec<(i16, V)>) -> V {
    V::Struct(fields)
}

fn bin(x: &str) -> V {
    V::Bin(x.as_bytes().to_vec())
}

/// A data page (v1) of `payload`, `num_values` values in `encoding`.
pub fn data_page(payload: &[u8], num_values: i64, encoding: i64) -> Vec<u8> {
    let n = payload.len() as i64;
    let mut h = tstruct(&[
        (1, V::I32(0)),
        (2, V::I32(n)),
        (3, V::I32(n)),
        (
            5,
            s(vec![
                (1, V::I32(num_values)),
                (2, V::I32(encoding)),
                (3, V::I32(RLE)),
                (4, V::I32(RLE)),
            ]),
        ),
    ]);
    h.extend_from_slice(payload);
    h
}

/// A dictionary page of `payload`, claiming `num_values` values.
pub fn dict_page(payload: &[u8], num_values: i64) -> Vec<u8> {
    dict_page_sized(payload, num_values, payload.len() as i64)
}

/// A dictionary page of `payload` whose header claims `uncompressed` bytes once decompressed.
pub fn dict_page_sized(payload: &[u8], num_values: i64, uncompressed: i64) -> Vec<u8> {
    let mut h = tstruct(&[
        (1, V::I32(2)),
        (2, V::I32(uncompressed)),
        (3, V::I32(payload.len() as i64)),
        (7, s(vec![(1, V::I32(num_values)), (2, V::I32(PLAIN))])),
    ]);
    h.extend_from_slice(payload);
    h
}

/// An RLE run of `count` copies of `value` at `bitwidth` bits.
pub fn rle_run(count: u64, value: u64, bitwidth: u32) -> Vec<u8> {
    let mut o = Vec::new();
    varint(count << 1, &mut o);
    o.extend_from_slice(&value.to_le_bytes()[..bitwidth.div_ceil(8) as usize]);
    o
}

/// A leaf of the schema.
pub fn leaf(name: &str, ptype: i64) -> Vec<(i16, V)> {
    vec![(1, V::I32(ptype)), (3, V::I32(REQUIRED)), (4, bin(name))]
}

/// A group of `n` children (`rep`: its repetition, none for the root).
pub fn group(name: &str, n: i64, rep: Option<i64>) -> Vec<(i16, V)> {
    let mut g = vec![(4, bin(name)), (5, V::I32(n))];
    if let Some(r) = rep {
        g.push((3, V::I32(r)));
    }
    g
}

/// What [`build`] writes beyond the chunk: the claims of the footer.
pub struct Claims {
    /// The row group's rows.
    pub rows: i64,
    /// The file's rows.
    pub file_rows: i64,
    /// The chunk's values.
    pub num_values: i64,
    pub codec: i64,
}

/// One row group of one column chunk at `path` (`_pq.build`, with the codec and the file's
/// row count as parameters).
pub fn build(
    schema: Vec<Vec<(i16, V)>>,
    path: &[String],
    ptype: i64,
    chunk: &[u8],
    claims: &Claims,
    has_dict: bool,
) -> Vec<u8> {
    let mut out = b"PAR1".to_vec();
    let start = out.len() as i64;
    out.extend_from_slice(chunk);
    let n = chunk.len() as i64;
    let encodings = if has_dict {
        vec![V::I32(0), V::I32(3), V::I32(8)]
    } else {
        vec![V::I32(0), V::I32(3)]
    };
    let mut md = vec![
        (1, V::I32(ptype)),
        (2, V::List(5, encodings)),
        (3, V::List(8, path.iter().map(|p| bin(p)).collect())),
        (4, V::I32(claims.codec)),
        (5, V::I64(claims.num_values)),
        (6, V::I64(n)),
        (7, V::I64(n)),
        (9, V::I64(start)),
    ];
    if has_dict {
        md.push((11, V::I64(start)));
    }
    let rg = s(vec![
        (
            1,
            V::List(12, vec![s(vec![(2, V::I64(start)), (3, s(md))])]),
        ),
        (2, V::I64(n)),
        (3, V::I64(claims.rows)),
    ]);
    let fm = tstruct(&[
        (1, V::I32(1)),
        (2, V::List(12, schema.into_iter().map(V::Struct).collect())),
        (3, V::I64(claims.file_rows)),
        (4, V::List(12, vec![rg])),
        (6, bin("hostile")),
    ]);
    out.extend_from_slice(&fm);
    out.extend_from_slice(&(fm.len() as u32).to_le_bytes());
    out.extend_from_slice(b"PAR1");
    out
}

/// `_pq.build` as the scripts call it: uncompressed, the file's rows the row group's.
pub fn build_plain(
    schema: Vec<Vec<(i16, V)>>,
    rows: i64,
    path: &[&str],
    ptype: i64,
    chunk: &[u8],
    num_values: i64,
    has_dict: bool,
) -> Vec<u8> {
    let path: Vec<String> = path.iter().map(|p| (*p).to_owned()).collect();
    let claims = Claims {
        rows,
        file_rows: rows,
        num_values,
        codec: UNCOMPRESSED,
    };
    build(schema, &path, ptype, chunk, &claims, has_dict)
}

/// Plain-encoded little-endian i64s.
pub fn i64s(values: &[i64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}
