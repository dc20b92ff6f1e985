//! scipy.sparse archives: the `.npz` files `scipy.sparse.save_npz` writes, read and written.
//!
//! A crate of its own (not an npy-core module): it is a convention on top of `.npz`, with its
//! own validation rules and error type, which only scipy users need.
//!
//! `save_npz` stores a matrix as members of an archive (scipy 1.17, `_matrix_io.py`):
//! `format` (a 0-d `|S3`: `csr`, `csc`, `coo`, `bsr`, `dia`), `shape` (two `<i8`), `data`,
//! and per format `indices` + `indptr` (CSR, CSC, BSR; BSR's `data` is `(blocks, R, C)`, the
//! blocksize), `row` + `col` (COO), `offsets` (DIA; `data` is `(diagonals, width)`); the
//! `*_array` classes add a 0-d `|b1` `_is_array`.
//!
//! - [`detect`] says from the members' headers and the small `format` and `shape` members
//!   whether an archive is a sparse matrix `scipy.sparse.load_npz` loads, and describes it
//!   ([`SparseInfo`]: format, shape, stored elements, dtypes) without reading the data (a DIA
//!   matrix's offsets excepted, up to [`MAX_DETECT_ELEMENTS`]).
//! - [`read`] gives a [`SparseMatrix`], validated (index ranges, `indptr` monotonic, lengths);
//!   [`SparseMatrix::to_dense`] expands it within a caller's element limit.
//! - [`write()`] writes one that `scipy.sparse.load_npz` loads to an equal matrix.
//!
//! # Examples
//! ```
//! use npy_sparse::{SparseMatrix, Storage};
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("m.npz");
//! // [[1, 0], [0, 2]] in CSR.
//! let m = SparseMatrix {
//!     shape: [2, 2],
//!     is_array: false,
//!     storage: Storage::Csr { indptr: vec![0, 1, 2], indices: vec![0, 1], data: vec![1.0f64, 2.0] },
//! };
//! npy_sparse::write(&path, &m, false)?;
//! let info = npy_sparse::detect(&path)?.expect("a sparse archive");
//! assert_eq!((info.format.name(), info.shape, info.stored), ("csr", [2, 2], 2));
//! let back: SparseMatrix<f64> = npy_sparse::read(&path)?;
//! assert_eq!(back.to_dense(100)?, [1.0, 0.0, 0.0, 2.0]);
//! # Ok::<(), npy_sparse::Error>(())
//! ```

#![forbid(unsafe_code)]

mod error;
mod matrix;

pub use error::Error;
pub use matrix::{
    detect, read, write, Format, SparseInfo, SparseMatrix, Storage, MAX_DETECT_ELEMENTS,
};
