//! Rows of a remote array as an Arrow [`RecordBatch`] (feature `arrow`): one ranged GET of the
//! rows' bytes, converted by npy-arrow's mapping (the one `npy_arrow::read_npy` uses).

use std::ops::Range;

use arrow_buffer::Buffer;
use npy_arrow::RecordBatch;

use crate::error::{RemoteError, RemoteErrorKind};
use crate::remote::RemoteNpy;

impl RemoteNpy {
    /// Rows `rows` (outermost dimension) of a C-order array as one Arrow [`RecordBatch`] of
    /// `rows.end - rows.start` rows, with one GET of exactly those rows' bytes (none when the
    /// first GET's bytes hold them).
    ///
    /// The batch is npy-arrow's mapping of the array (`npy_arrow::read_npy`'s): a record's
    /// fields as columns, a plain array as one column named by the object's file stem (`x`
    /// for `s3://bucket/x.npy`), each row of an array of shape `(n, d1, …)` a
    /// `fixed_shape_tensor` of shape `[d1, …]`. Numbers in native byte order are slices of
    /// the response's bytes, not copies.
    ///
    /// Memory: the rows' bytes (and the columns gathered from them, for records and
    /// byte-swapped numbers).
    ///
    /// # Errors
    /// The store's faults ([`RemoteErrorKind`]); [`RemoteErrorKind::Npy`] with npy-core's
    /// `OutOfRange` for rows outside the array, `Unsupported` for Fortran-order and 0-d arrays
    /// (as [`RemoteNpy::read_rows`]), `Truncated` for an object shorter than its header's
    /// claim; [`RemoteErrorKind::Arrow`] for a dtype Arrow cannot hold (object arrays,
    /// longdouble, …) or a value out of its Arrow type's range.
    ///
    /// # Examples
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::sync::Arc;
    /// use object_store::{memory::InMemory, path::Path, ObjectStoreExt};
    /// let store = Arc::new(InMemory::new());
    /// let mut bytes = Vec::new();
    /// let data: Vec<f64> = (0..300).map(f64::from).collect();
    /// npy_core::WriteOptions::new().write_to(&mut bytes, &data, &[300])?;
    /// store.put(&Path::from("x.npy"), bytes.into()).await?;
    ///
    /// let a = npy_object_store::RemoteNpy::open(store, "x.npy".into(), "memory:///x.npy").await?;
    /// let batch = a.read_record_batch(100..104).await?;
    /// assert_eq!(batch.num_rows(), 4);
    /// assert_eq!(batch.schema().field(0).name(), "x");
    /// # Ok(()) }
    /// ```
    pub async fn read_record_batch(&self, rows: Range<u64>) -> Result<RecordBatch, RemoteError> {
        let source = self.source();
        let bytes = source
            .row_byte_range(rows.clone())
            .map_err(|e| self.npy(e))?;
        self.backed(&bytes)?;
        let fetched = self.bytes(bytes).await?;
        let count = usize::try_from(rows.end - rows.start).map_err(|_| {
            self.npy(npy_core::Error::from(std::io::Error::other(
                "more rows than this platform's address space",
            )))
        })?;
        let data = Buffer::from(fetched.bytes().clone());
        let name = self.object().path().filename().map_or_else(
            || "values".to_owned(),
            |f| npy_arrow::stem_name(std::path::Path::new(f)),
        );
        npy_arrow::batch_from_bytes(source.dtype(), &source.shape()[1..], count, &data, &name)
            .map_err(|e| RemoteError::new(self.url(), RemoteErrorKind::Arrow(e)))
    }
}
