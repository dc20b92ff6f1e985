//! The sparse formats: detection, reading with validation, dense expansion, writing.

use std::fs::File;
use std::ops::Add;
use std::path::Path;

use npy_core::{dtype::Canonical, read::Casting, DType, Header, NpyElement, ReadOptions};
use npy_npz::{Compression, NpzArchive, NpzWriter};

use crate::error::Error;

/// A scipy.sparse storage format that `save_npz` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Compressed sparse rows: `indptr`, `indices`, `data`.
    Csr,
    /// Compressed sparse columns: `indptr`, `indices`, `data`.
    Csc,
    /// Coordinates: `row`, `col`, `data` (duplicates are summed, as scipy sums them).
    Coo,
    /// Block sparse rows: `indptr`, `indices` of blocks, `data` of shape (blocks, R, C).
    Bsr,
    /// Diagonals: `offsets`, `data` of shape (diagonals, width).
    Dia,
}

impl Format {
    /// scipy's name: `"csr"`, `"csc"`, `"coo"`, `"bsr"`, `"dia"`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csr => "csr",
            Format::Csc => "csc",
            Format::Coo => "coo",
            Format::Bsr => "bsr",
            Format::Dia => "dia",
        }
    }

    fn from_name(name: &[u8]) -> Option<Format> {
        Some(match name {
            b"csr" => Format::Csr,
            b"csc" => Format::Csc,
            b"coo" => Format::Coo,
            b"bsr" => Format::Bsr,
            b"dia" => Format::Dia,
            _ => return None,
        })
    }
}

/// What [`detect`] reads of a sparse archive: no data, only headers and the `format` member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SparseInfo {
    /// The storage format.
    pub format: Format,
    /// Whether it is scipy's `*_array` form (`_is_array` is true), not `*_matrix`.
    pub is_array: bool,
    /// Rows and columns.
    pub shape: [u64; 2],
    /// Stored elements: the elements of `data` (for BSR every element of the stored blocks,
    /// for DIA every element of the stored diagonals, as scipy's `data.size`).
    pub stored: u64,
    /// scipy's `nnz`, the count its repr calls "stored elements": [`SparseInfo::stored`] but
    /// for DIA, where only each diagonal's part inside the shape counts (`dia_array._getnnz`:
    /// the sum over offsets `k` of `max(min(rows + k, min(width, cols)) - max(k, 0), 0)`).
    pub nnz: u64,
    /// The dtype of `data`.
    pub data_dtype: DType,
    /// The dtype of the index arrays (`indices`, `row` or `offsets`).
    pub index_dtype: DType,
    /// BSR's block shape (R, C).
    pub blocksize: Option<[u64; 2]>,
}

/// The arrays of a sparse matrix, by format (indices as `i64`, whatever the file's width).
#[derive(Debug, Clone, PartialEq)]
pub enum Storage<T> {
    /// Row `i`'s entries are `indices[indptr[i]..indptr[i + 1]]` (columns) and the same
    /// range of `data`.
    Csr {
        /// `rows + 1` offsets into `indices`, from 0, non-decreasing.
        indptr: Vec<i64>,
        /// Column of each entry.
        indices: Vec<i64>,
        /// Value of each entry.
        data: Vec<T>,
    },
    /// As [`Storage::Csr`] with rows and columns exchanged.
    Csc {
        /// `cols + 1` offsets into `indices`.
        indptr: Vec<i64>,
        /// Row of each entry.
        indices: Vec<i64>,
        /// Value of each entry.
        data: Vec<T>,
    },
    /// Entry `k` is `data[k]` at (`row[k]`, `col[k]`); repeated positions add up.
    Coo {
        /// Row of each entry.
        row: Vec<i64>,
        /// Column of each entry.
        col: Vec<i64>,
        /// Value of each entry.
        data: Vec<T>,
    },
    /// CSR of `blocksize` blocks: block row `i` holds blocks at block columns
    /// `indices[indptr[i]..indptr[i + 1]]`.
    Bsr {
        /// Rows and columns of a block.
        blocksize: [u64; 2],
        /// `rows / R + 1` offsets into `indices`.
        indptr: Vec<i64>,
        /// Block column of each block.
        indices: Vec<i64>,
        /// The blocks, each `R × C` in C order, one after the other.
        data: Vec<T>,
    },
    /// Diagonal `k` (offset `offsets[k]`, 0 the main one, positive above) holds
    /// `data[k * width + j]` at (`j - offsets[k]`, `j`), as scipy's `dia` format.
    Dia {
        /// Offset of each stored diagonal.
        offsets: Vec<i64>,
        /// Elements stored per diagonal.
        width: u64,
        /// `offsets.len() × width` values, in C order.
        data: Vec<T>,
    },
}

/// A sparse matrix as `save_npz` stores it.
#[derive(Debug, Clone, PartialEq)]
pub struct SparseMatrix<T> {
    /// Rows and columns.
    pub shape: [u64; 2],
    /// scipy's `*_array` form (`True`) or `*_matrix` (`False`).
    pub is_array: bool,
    /// The format and its arrays.
    pub storage: Storage<T>,
}

type Archive = NpzArchive<File>;

fn open(path: &Path) -> Result<Archive, Error> {
    let npy = |source| Error::Npz {
        path: path.to_owned(),
        source,
    };
    // Index arrays are `<i4` or `<i8`: read either as i64 (a safe cast).
    let options = ReadOptions::default().casting(Casting::Safe);
    NpzArchive::open_with(path, options).map_err(npy)
}

fn not_sparse(path: &Path, reason: impl Into<String>) -> Error {
    Error::NotSparse {
        path: path.to_owned(),
        reason: reason.into(),
    }
}

fn invalid(path: &Path, member: &'static str, reason: impl Into<String>) -> Error {
    Error::Invalid {
        path: path.to_owned(),
        member,
        reason: reason.into(),
    }
}

/// The format named by the `format` member, `None` when there is none.
fn format_of(path: &Path, npz: &mut Archive) -> Result<Option<Format>, Error> {
    if npz.index_of("format").is_none() {
        return Ok(None);
    }
    let npy = |source| Error::Npz {
        path: path.to_owned(),
        source,
    };
    let header = npz.header("format").map_err(npy)?.header;
    if !matches!(header.dtype, DType::Bytes(n) if n <= 16) || !header.shape.is_empty() {
        return Err(not_sparse(
            path,
            format!(
                "member \"format\" is '{}' of shape {:?}, not a 0-d |S3",
                header.dtype, header.shape
            ),
        ));
    }
    let value = npz.read::<Vec<u8>>("format").map_err(npy)?.into_vec();
    let name = value.first().map(Vec::as_slice).unwrap_or_default();
    Format::from_name(name).map(Some).ok_or_else(|| {
        not_sparse(
            path,
            format!("unknown format {:?}", String::from_utf8_lossy(name)),
        )
    })
}

/// The most elements [`detect`] reads of one member: a DIA matrix's `offsets` (1 Mi, 8 MiB as
/// `i64`), which scipy's `nnz` needs. Every other member read is a few bytes, its size checked
/// from its header first (`format`, `shape`, `_is_array`); nothing else is read.
pub const MAX_DETECT_ELEMENTS: u64 = 1 << 20;

/// Describes the scipy.sparse archive at `path` from its headers and its small `format`,
/// `shape` and `_is_array` members (and, for DIA, `offsets`, to count as scipy's `nnz` does,
/// up to [`MAX_DETECT_ELEMENTS`]; no `data` or index array is read); `Ok(None)` when it is an
/// `.npz` without a `format` member.
///
/// What `scipy.sparse.load_npz` checks before it returns a matrix is checked from the headers
/// (scipy 1.17's `check_format` without `full_check`): the members it reads are there, the
/// `shape` is two non-negative integers, the arrays have the dimensions their format gives
/// them, `indptr` has a row (column, block row) more than the shape, indices and data agree in
/// length, a DIA matrix has one offset per stored diagonal and no offset twice. What only the
/// values show (indices inside the shape, `indptr` in order) is [`read`]'s to check.
///
/// # Errors
/// [`Error::Npz`] when the archive cannot be read; [`Error::NotValid`] (with scipy's reason)
/// for an archive with a `format` member that `load_npz` refuses; [`Error::Budget`] for a DIA
/// matrix of more than [`MAX_DETECT_ELEMENTS`] offsets.
pub fn detect(path: impl AsRef<Path>) -> Result<Option<SparseInfo>, Error> {
    let path = path.as_ref();
    let mut npz = open(path)?;
    let format = match format_of(path, &mut npz) {
        Ok(None) => return Ok(None),
        Ok(Some(f)) => f,
        Err(Error::NotSparse { reason, .. }) => {
            return Err(not_valid(path, "scipy.sparse matrix".into(), reason))
        }
        Err(e) => return Err(e),
    };
    let is_array = is_array(path, &mut npz)?;
    let class = format!(
        "{} {}",
        format.name(),
        if is_array { "array" } else { "matrix" }
    );
    let refuse = |reason: String| not_valid(path, class.clone(), reason);
    let npy = |source| Error::Npz {
        path: path.to_owned(),
        source,
    };
    let header = |npz: &Archive, key: &'static str| -> Result<Header, Error> {
        if npz.index_of(key).is_none() {
            return Err(refuse(format!("no member {key:?}")));
        }
        Ok(npz.header(key).map_err(npy)?.header)
    };
    let shape = match read_shape(path, &mut npz) {
        Err(Error::Invalid { reason, .. }) => return Err(refuse(reason)),
        other => other?,
    };
    let data = header(&npz, "data")?;
    let [rows, cols] = shape;
    let (index, blocksize) = match format {
        Format::Csr | Format::Csc | Format::Bsr => {
            let indices = header(&npz, "indices")?;
            let indptr = header(&npz, "indptr")?;
            let major = if format == Format::Csc { cols } else { rows };
            let (major, blocksize) = if format == Format::Bsr {
                let [_, r, c] = data.shape[..] else {
                    return Err(refuse(format!(
                        "BSR data must be 3-dimensional, got shape={}",
                        py_tuple(&data.shape)
                    )));
                };
                if r == 0 || c == 0 {
                    return Err(refuse(format!(
                        "BSR data has blocks of {r} x {c}, which scipy divides the shape by"
                    )));
                }
                (rows / r, Some([r, c]))
            } else {
                if data.shape.len() != 1 {
                    return Err(refuse("data, indices, and indptr should be 1-D".into()));
                }
                (major, None)
            };
            let (&[n_indices], &[n_indptr]) = (&indices.shape[..], &indptr.shape[..]) else {
                return Err(refuse(if blocksize.is_some() {
                    "indices, and indptr should be 1-D".into()
                } else {
                    "data, indices, and indptr should be 1-D".into()
                }));
            };
            let want = u128::from(major) + 1;
            if u128::from(n_indptr) != want {
                return Err(refuse(if blocksize.is_some() {
                    format!("index pointer size ({n_indptr}) should be ({want})")
                } else {
                    format!("index pointer size {n_indptr} should be {want}")
                }));
            }
            if n_indices != data.shape[0] {
                return Err(refuse("indices and data should have the same size".into()));
            }
            (indices, blocksize)
        }
        Format::Coo => {
            let row = header(&npz, "row")?;
            let col = header(&npz, "col")?;
            let same = [&row.shape, &col.shape]
                .iter()
                .all(|s| s.len() == 1 && **s == data.shape);
            if !same {
                return Err(refuse(
                    "all index and data arrays must have the same length".into(),
                ));
            }
            (row, None)
        }
        Format::Dia => (header(&npz, "offsets")?, None),
    };
    let stored = data
        .num_elements()
        .map_err(|e| invalid(path, "data", e.to_string()))?;
    let nnz = if format == Format::Dia {
        // As scipy's dia constructor: data at least 2-D, offsets at least 1-D.
        let (diagonals, width) = match data.shape[..] {
            [] => (1, 1),
            [w] => (1, w),
            [n, w] => (n, w),
            _ => return Err(refuse("data array must have rank 2".into())),
        };
        let offsets = match index.shape[..] {
            [] => 1,
            [n] => n,
            _ => return Err(refuse("offsets array must have rank 1".into())),
        };
        if diagonals != offsets {
            return Err(refuse(format!(
                "number of diagonals ({diagonals}) does not match the number of offsets \
                 ({offsets})"
            )));
        }
        if offsets > MAX_DETECT_ELEMENTS {
            return Err(Error::Budget {
                path: path.to_owned(),
                member: "offsets",
                elements: offsets,
                limit: MAX_DETECT_ELEMENTS,
            });
        }
        let values = read_ints(path, &mut npz, "offsets")?;
        if check_offsets(path, &values).is_err() {
            return Err(refuse("offset array contains duplicate values".into()));
        }
        dia_nnz(shape, width, &values)
    } else {
        stored
    };
    Ok(Some(SparseInfo {
        format,
        is_array,
        shape,
        stored,
        nnz,
        data_dtype: data.dtype,
        index_dtype: index.dtype,
        blocksize,
    }))
}

/// `dims` as Python writes a tuple: `(2, 2)`, `(3,)`, `()`.
fn py_tuple(dims: &[u64]) -> String {
    match dims {
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            dims.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn not_valid(path: &Path, class: String, reason: String) -> Error {
    Error::NotValid {
        path: path.to_owned(),
        class,
        reason,
    }
}

/// scipy's `nnz` of a DIA matrix of `shape` with diagonals of `width` at `offsets`
/// (`dia_array._getnnz`), in 128-bit arithmetic so that no offset overflows it.
fn dia_nnz(shape: [u64; 2], width: u64, offsets: &[i64]) -> u64 {
    let (rows, cols) = (i128::from(shape[0]), i128::from(shape[1]));
    let l = i128::from(width).min(cols);
    let total: i128 = offsets
        .iter()
        .map(|&k| {
            let k = i128::from(k);
            ((rows + k).min(l) - k.max(0)).max(0)
        })
        .sum();
    u64::try_from(total).unwrap_or(u64::MAX)
}

/// `key` when the archive has it, else [`Error::NotSparse`].
fn member<'k>(path: &Path, npz: &Archive, key: &'k str) -> Result<&'k str, Error> {
    npz.index_of(key)
        .map(|_| key)
        .ok_or_else(|| not_sparse(path, format!("no member {key:?}")))
}

/// The `shape` member: its header checked first (one dimension of 2, integers), so that what
/// is read is two numbers whatever the member claims.
fn read_shape(path: &Path, npz: &mut Archive) -> Result<[u64; 2], Error> {
    member(path, npz, "shape")?;
    let npy = |source| Error::Npz {
        path: path.to_owned(),
        source,
    };
    let header = npz.header("shape").map_err(npy)?.header;
    let bad = |reason: String| invalid(path, "shape", reason);
    let Some(canonical) = header.dtype.canonical().filter(|c| {
        !matches!(
            c,
            Canonical::Bool
                | Canonical::Float16
                | Canonical::Float32
                | Canonical::Float64
                | Canonical::Complex64
                | Canonical::Complex128
        )
    }) else {
        return Err(bad(format!("'shape' is '{}', not integers", header.dtype)));
    };
    if header.shape.len() != 1 {
        return Err(bad(format!(
            "'shape' is an array of shape {}, not a sequence of 2 integers",
            py_tuple(&header.shape)
        )));
    }
    if header.shape[0] != 2 {
        return Err(bad(format!(
            "shape must have length in (2,), it has {}",
            header.shape[0]
        )));
    }
    if canonical == Canonical::Uint64 {
        let v = npz.read::<u64>("shape").map_err(npy)?.into_vec();
        return match v[..] {
            [r, c] => Ok([r, c]),
            _ => Err(bad(format!("{v:?} is not two dimensions"))),
        };
    }
    let v = read_ints(path, npz, "shape")?;
    match v[..] {
        [r, c] if r >= 0 && c >= 0 => Ok([r as u64, c as u64]),
        [_, _] => Err(bad("'shape' elements cannot be negative".into())),
        _ => Err(bad(format!("{v:?} is not two dimensions"))),
    }
}

fn is_array(path: &Path, npz: &mut Archive) -> Result<bool, Error> {
    if npz.index_of("_is_array").is_none() {
        return Ok(false);
    }
    let npy = |source| Error::Npz {
        path: path.to_owned(),
        source,
    };
    // scipy takes its truth value: one element at most.
    let header = npz.header("_is_array").map_err(npy)?.header;
    if !matches!(header.num_elements(), Ok(0 | 1)) {
        return Err(not_valid(
            path,
            "scipy.sparse matrix".into(),
            format!(
                "member \"_is_array\" has shape {}: the truth value of an array with more than one element is ambiguous",
                py_tuple(&header.shape)
            ),
        ));
    }
    let v = npz.read::<bool>("_is_array").map_err(npy)?;
    Ok(v.data().first().copied().unwrap_or(false))
}

fn bsr_blocksize(path: &Path, data_shape: &[u64]) -> Result<[u64; 2], Error> {
    match *data_shape {
        [_, r, c] if r > 0 && c > 0 => Ok([r, c]),
        _ => Err(invalid(
            path,
            "data",
            format!("BSR data has shape {data_shape:?}, not (blocks, R, C) with R, C > 0"),
        )),
    }
}

fn read_ints(path: &Path, npz: &mut Archive, key: &'static str) -> Result<Vec<i64>, Error> {
    member(path, npz, key)?;
    npz.read::<i64>(key)
        .map(npy_core::NpyArray::into_c_order_vec)
        .map_err(|source| Error::Npz {
            path: path.to_owned(),
            source,
        })
}

/// Reads the scipy.sparse archive at `path` with `data` as `T` (its dtype, or one numpy casts
/// to `T`'s safely: `<f4` as `f64`), indices as `i64`, and checks it: lengths agree, `indptr`
/// starts at 0 and never decreases, every index is inside the shape. Memory is the arrays.
///
/// # Errors
/// [`Error::NotSparse`] without a `format` member, for an unknown format or a missing member;
/// [`Error::Invalid`] naming the member that breaks a rule; [`Error::Npz`] for read errors
/// (a `data` dtype `T` does not hold among them).
pub fn read<T: NpyElement>(path: impl AsRef<Path>) -> Result<SparseMatrix<T>, Error> {
    let path = path.as_ref();
    let mut npz = open(path)?;
    let format =
        format_of(path, &mut npz)?.ok_or_else(|| not_sparse(path, "no member \"format\""))?;
    let shape = read_shape(path, &mut npz)?;
    let is_array = is_array(path, &mut npz)?;
    member(path, &npz, "data")?;
    let data_arr = npz.read::<T>("data").map_err(|source| Error::Npz {
        path: path.to_owned(),
        source,
    })?;
    let data_shape = data_arr.shape().to_vec();
    let data = data_arr.into_c_order_vec();
    let storage = match format {
        Format::Csr | Format::Csc => {
            let indptr = read_ints(path, &mut npz, "indptr")?;
            let indices = read_ints(path, &mut npz, "indices")?;
            let (major, minor) = if format == Format::Csr {
                (shape[0], shape[1])
            } else {
                (shape[1], shape[0])
            };
            check_compressed(path, &indptr, &indices, major, minor)?;
            check_len(path, "data", data.len(), indices.len())?;
            if format == Format::Csr {
                Storage::Csr {
                    indptr,
                    indices,
                    data,
                }
            } else {
                Storage::Csc {
                    indptr,
                    indices,
                    data,
                }
            }
        }
        Format::Bsr => {
            let blocksize = bsr_blocksize(path, &data_shape)?;
            let [r, c] = blocksize;
            if shape[0] % r != 0 || shape[1] % c != 0 {
                return Err(invalid(
                    path,
                    "data",
                    format!("blocksize {blocksize:?} does not divide the shape {shape:?}"),
                ));
            }
            let indptr = read_ints(path, &mut npz, "indptr")?;
            let indices = read_ints(path, &mut npz, "indices")?;
            check_compressed(path, &indptr, &indices, shape[0] / r, shape[1] / c)?;
            check_len(path, "data", data_shape[0] as usize, indices.len())?;
            Storage::Bsr {
                blocksize,
                indptr,
                indices,
                data,
            }
        }
        Format::Coo => {
            let row = read_ints(path, &mut npz, "row")?;
            let col = read_ints(path, &mut npz, "col")?;
            check_len(path, "col", col.len(), row.len())?;
            check_len(path, "data", data.len(), row.len())?;
            check_range(path, "row", &row, shape[0])?;
            check_range(path, "col", &col, shape[1])?;
            Storage::Coo { row, col, data }
        }
        Format::Dia => {
            let offsets = read_ints(path, &mut npz, "offsets")?;
            let width = match data_shape[..] {
                [n, w] if n == offsets.len() as u64 => w,
                _ => {
                    return Err(invalid(
                        path,
                        "data",
                        format!(
                            "DIA data has shape {data_shape:?}, not ({}, width)",
                            offsets.len()
                        ),
                    ))
                }
            };
            check_offsets(path, &offsets)?;
            Storage::Dia {
                offsets,
                width,
                data,
            }
        }
    };
    Ok(SparseMatrix {
        shape,
        is_array,
        storage,
    })
}

fn check_len(
    path: &Path,
    member: &'static str,
    found: usize,
    expected: usize,
) -> Result<(), Error> {
    if found == expected {
        Ok(())
    } else {
        Err(invalid(
            path,
            member,
            format!("{found} elements where the index arrays need {expected}"),
        ))
    }
}

fn check_range(path: &Path, member: &'static str, v: &[i64], bound: u64) -> Result<(), Error> {
    match v.iter().position(|&i| i < 0 || i as u64 >= bound) {
        None => Ok(()),
        Some(k) => Err(invalid(
            path,
            member,
            format!("element {k} is {}, outside 0..{bound}", v[k]),
        )),
    }
}

/// DIA offsets are distinct, as scipy's `dia_array` requires ("offset array contains
/// duplicate values"): sorted, then neighbours compared.
fn check_offsets(path: &Path, offsets: &[i64]) -> Result<(), Error> {
    let mut sorted = offsets.to_vec();
    sorted.sort_unstable();
    match sorted.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(invalid(
            path,
            "offsets",
            format!(
                "offset {} appears twice (scipy refuses duplicate offsets)",
                w[0]
            ),
        )),
        None => Ok(()),
    }
}

/// The checks [`read`] makes of an archive's index arrays, made of a matrix to write: indices
/// inside the shape, `indptr` from 0, non-decreasing, ending at the number of indices, a BSR
/// blocksize that divides the shape, distinct DIA offsets. scipy's `load_npz` does not check
/// them, and products over a matrix that breaks them read outside its arrays.
fn check_structure<T>(path: &Path, m: &SparseMatrix<T>) -> Result<(), Error> {
    let [rows, cols] = m.shape;
    match &m.storage {
        Storage::Csr {
            indptr, indices, ..
        } => check_compressed(path, indptr, indices, rows, cols),
        Storage::Csc {
            indptr, indices, ..
        } => check_compressed(path, indptr, indices, cols, rows),
        Storage::Bsr {
            blocksize,
            indptr,
            indices,
            ..
        } => {
            let [r, c] = *blocksize;
            if r == 0 || c == 0 || rows % r != 0 || cols % c != 0 {
                return Err(invalid(
                    path,
                    "data",
                    format!(
                        "blocksize {blocksize:?} does not divide the shape {:?}",
                        m.shape
                    ),
                ));
            }
            check_compressed(path, indptr, indices, rows / r, cols / c)
        }
        Storage::Coo { row, col, .. } => {
            check_range(path, "row", row, rows)?;
            check_range(path, "col", col, cols)
        }
        Storage::Dia { offsets, .. } => check_offsets(path, offsets),
    }
}

fn check_compressed(
    path: &Path,
    indptr: &[i64],
    indices: &[i64],
    major: u64,
    minor: u64,
) -> Result<(), Error> {
    if indptr.len() as u64 != major.saturating_add(1) {
        return Err(invalid(
            path,
            "indptr",
            format!(
                "{} elements, the shape needs {}",
                indptr.len(),
                major.saturating_add(1)
            ),
        ));
    }
    if indptr.first() != Some(&0) {
        return Err(invalid(path, "indptr", "does not start at 0"));
    }
    if let Some(k) = indptr.windows(2).position(|w| w[1] < w[0]) {
        return Err(invalid(
            path,
            "indptr",
            format!(
                "decreases at element {}: {} then {}",
                k + 1,
                indptr[k],
                indptr[k + 1]
            ),
        ));
    }
    let last = indptr.last().copied().unwrap_or(0);
    if last as u64 != indices.len() as u64 {
        return Err(invalid(
            path,
            "indptr",
            format!(
                "ends at {last}, but \"indices\" has {} elements",
                indices.len()
            ),
        ));
    }
    check_range(path, "indices", indices, minor)
}

impl<T: Copy + Default + Add<Output = T>> SparseMatrix<T> {
    /// The matrix as a dense `rows × cols` array in C order, entries at the same position
    /// added (as scipy's `toarray` sums COO duplicates); `limit` is the most elements the
    /// caller will hold.
    ///
    /// # Errors
    /// [`Error::TooLarge`] when `rows × cols` is over `limit` (or overflows); nothing is
    /// allocated then. [`Error::BadMatrix`] for arrays that break the format's rules (a matrix
    /// from [`read`] never does).
    pub fn to_dense(&self, limit: u64) -> Result<Vec<T>, Error> {
        let [rows, cols] = self.shape;
        let too_large = || Error::TooLarge { rows, cols, limit };
        let n = rows
            .checked_mul(cols)
            .filter(|&n| n <= limit)
            .ok_or_else(too_large)?;
        let n = usize::try_from(n).map_err(|_| too_large())?;
        let mut out = vec![T::default(); n];
        let bad = |what: &str| Error::BadMatrix(what.to_owned());
        let mut put = |r: i64, c: i64, v: T| -> Result<(), Error> {
            if r < 0 || c < 0 || r as u64 >= rows || c as u64 >= cols {
                return Err(bad("an index is outside the shape"));
            }
            let at = (r as u64 * cols + c as u64) as usize;
            out[at] = out[at] + v;
            Ok(())
        };
        let range = |indptr: &[i64], i: usize| -> Result<std::ops::Range<usize>, Error> {
            match (indptr.get(i), indptr.get(i + 1)) {
                (Some(&a), Some(&b)) if 0 <= a && a <= b => Ok(a as usize..b as usize),
                _ => Err(bad("indptr")),
            }
        };
        match &self.storage {
            Storage::Csr {
                indptr,
                indices,
                data,
            }
            | Storage::Csc {
                indptr,
                indices,
                data,
            } => {
                let csr = matches!(self.storage, Storage::Csr { .. });
                for i in 0..indptr.len().saturating_sub(1) {
                    for k in range(indptr, i)? {
                        let (Some(&j), Some(&v)) = (indices.get(k), data.get(k)) else {
                            return Err(bad("indices and data shorter than indptr says"));
                        };
                        if csr {
                            put(i as i64, j, v)?;
                        } else {
                            put(j, i as i64, v)?;
                        }
                    }
                }
            }
            Storage::Coo { row, col, data } => {
                if row.len() != col.len() || row.len() != data.len() {
                    return Err(bad("row, col and data differ in length"));
                }
                for ((&r, &c), &v) in row.iter().zip(col).zip(data) {
                    put(r, c, v)?;
                }
            }
            Storage::Bsr {
                blocksize: [br, bc],
                indptr,
                indices,
                data,
            } => {
                let (br, bc) = (*br as usize, *bc as usize);
                for i in 0..indptr.len().saturating_sub(1) {
                    for k in range(indptr, i)? {
                        let j = *indices.get(k).ok_or_else(|| bad("indices"))?;
                        for a in 0..br {
                            for b in 0..bc {
                                let v = *data
                                    .get((k * br + a) * bc + b)
                                    .ok_or_else(|| bad("data shorter than its blocks"))?;
                                put((i * br + a) as i64, j * bc as i64 + b as i64, v)?;
                            }
                        }
                    }
                }
            }
            Storage::Dia {
                offsets,
                width,
                data,
            } => {
                let w = usize::try_from(*width).map_err(|_| bad("width"))?;
                for (k, &off) in offsets.iter().enumerate() {
                    for j in 0..w.min(cols as usize) {
                        let r = j as i64 - off;
                        if r < 0 || r as u64 >= rows {
                            continue;
                        }
                        let v = *data.get(k * w + j).ok_or_else(|| bad("data"))?;
                        put(r, j as i64, v)?;
                    }
                }
            }
        }
        Ok(out)
    }
}

/// Writes `m` to `path` as `scipy.sparse.save_npz` does (its members in its order, `format`
/// as a 0-d `|S3`, `shape` as two `<i8`, `_is_array` for the array form, index arrays `<i4`
/// when every value fits, else `<i8`), stored or, with `compressed`, deflated as
/// `save_npz(compressed=True)`. `scipy.sparse.load_npz` loads it to an equal matrix. The file
/// appears complete or not at all.
///
/// # Errors
/// [`Error::BadMatrix`] when the arrays' lengths disagree with each other or the shape;
/// [`Error::Invalid`] (naming `path` and the member) when they break what [`read`] checks:
/// an index outside the shape, an `indptr` that does not start at 0, decreases or does not
/// end at the number of indices, a BSR blocksize that does not divide the shape, repeated DIA
/// offsets (scipy loads such a file without a word, and its products read outside the
/// arrays); nothing is written then. [`Error::Npz`] for write errors.
pub fn write<T: NpyElement>(
    path: impl AsRef<Path>,
    m: &SparseMatrix<T>,
    compressed: bool,
) -> Result<(), Error> {
    let path = path.as_ref();
    let npy = |source| Error::Npz {
        path: path.to_owned(),
        source,
    };
    let bad = |s: String| Error::BadMatrix(s);
    check_structure(path, m)?;
    let mut w = NpzWriter::create(path).map_err(npy)?;
    if compressed {
        w = w.compression(Compression::Deflated { level: 6 });
    }
    let shape = [m.shape[0] as i64, m.shape[1] as i64];
    let fits = |v: &[i64]| v.iter().all(|&x| i32::try_from(x).is_ok());
    let dims_fit = shape.iter().all(|&d| i32::try_from(d).is_ok());
    let index = |w: &mut npy_npz::NpzPathWriter, key: &str, v: &[i64], narrow: bool| {
        if narrow {
            let v: Vec<i32> = v.iter().map(|&x| x as i32).collect();
            w.add(key, &v, &[v.len() as u64])
        } else {
            w.add(key, v, &[v.len() as u64])
        }
    };
    let (format, data_shape): (Format, Vec<u64>) = match &m.storage {
        Storage::Csr {
            indptr,
            indices,
            data,
        }
        | Storage::Csc {
            indptr,
            indices,
            data,
        } => {
            if indices.len() != data.len() {
                return Err(bad(format!(
                    "{} indices for {} values",
                    indices.len(),
                    data.len()
                )));
            }
            let narrow = dims_fit && fits(indices) && fits(indptr);
            index(&mut w, "indices", indices, narrow).map_err(npy)?;
            index(&mut w, "indptr", indptr, narrow).map_err(npy)?;
            let f = if matches!(m.storage, Storage::Csr { .. }) {
                Format::Csr
            } else {
                Format::Csc
            };
            (f, vec![data.len() as u64])
        }
        Storage::Bsr {
            blocksize,
            indptr,
            indices,
            data,
        } => {
            let per = blocksize[0].saturating_mul(blocksize[1]);
            if per == 0 || data.len() as u64 != (indices.len() as u64).saturating_mul(per) {
                return Err(bad(format!(
                    "{} values for {} blocks of {blocksize:?}",
                    data.len(),
                    indices.len()
                )));
            }
            let narrow = dims_fit && fits(indices) && fits(indptr);
            index(&mut w, "indices", indices, narrow).map_err(npy)?;
            index(&mut w, "indptr", indptr, narrow).map_err(npy)?;
            (
                Format::Bsr,
                vec![indices.len() as u64, blocksize[0], blocksize[1]],
            )
        }
        Storage::Coo { row, col, data } => {
            if row.len() != data.len() || col.len() != data.len() {
                return Err(bad(format!(
                    "{} rows, {} cols for {} values",
                    row.len(),
                    col.len(),
                    data.len()
                )));
            }
            let narrow = dims_fit && fits(row) && fits(col);
            index(&mut w, "row", row, narrow).map_err(npy)?;
            index(&mut w, "col", col, narrow).map_err(npy)?;
            (Format::Coo, vec![data.len() as u64])
        }
        Storage::Dia {
            offsets,
            width,
            data,
        } => {
            if data.len() as u64 != (offsets.len() as u64).saturating_mul(*width) {
                return Err(bad(format!(
                    "{} values for {} diagonals of {width}",
                    data.len(),
                    offsets.len()
                )));
            }
            index(&mut w, "offsets", offsets, dims_fit && fits(offsets)).map_err(npy)?;
            (Format::Dia, vec![offsets.len() as u64, *width])
        }
    };
    let data: &[T] = match &m.storage {
        Storage::Csr { data, .. }
        | Storage::Csc { data, .. }
        | Storage::Coo { data, .. }
        | Storage::Bsr { data, .. }
        | Storage::Dia { data, .. } => data,
    };
    w.add("format", &[format.name().as_bytes().to_vec()], &[])
        .map_err(npy)?;
    w.add("shape", &shape, &[2]).map_err(npy)?;
    w.add("data", data, &data_shape).map_err(npy)?;
    if m.is_array {
        w.add("_is_array", &[true], &[]).map_err(npy)?;
    }
    w.finish().map_err(npy)?;
    Ok(())
}
