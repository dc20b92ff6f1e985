//! numpy's record layout rules: packed offsets, `align=True` offsets and each dtype's alignment.

use super::{descr_error, DType, DescrError, Field, Primitive, Record};

impl Record {
    /// A packed record (numpy's default layout): fields one after another, no padding.
    ///
    /// # Errors
    /// As [`Record::new`], and when the total size overflows.
    pub fn packed<N: Into<String>>(
        fields: impl IntoIterator<Item = (N, DType)>,
    ) -> Result<Record, DescrError> {
        Record::laid_out(fields, false)
    }

    /// A record laid out as numpy's `align=True` (a C struct): each field at the next multiple
    /// of its [`alignment`], the itemsize rounded up to the largest alignment. The gaps are
    /// padding (written as `('', '|Vn')` entries in the descr).
    ///
    /// # Errors
    /// As [`Record::new`], and when the total size overflows.
    pub fn aligned<N: Into<String>>(
        fields: impl IntoIterator<Item = (N, DType)>,
    ) -> Result<Record, DescrError> {
        Record::laid_out(fields, true)
    }

    fn laid_out<N: Into<String>>(
        fields: impl IntoIterator<Item = (N, DType)>,
        align: bool,
    ) -> Result<Record, DescrError> {
        let mut out = Vec::new();
        let mut offset = 0u64;
        let mut max_align = 1u64;
        let overflow = |name: &str| descr_error(name, "record size overflows 64 bits");
        for (name, dtype) in fields {
            let name = name.into();
            let align = if align { alignment(&dtype).max(1) } else { 1 };
            max_align = max_align.max(align);
            offset = offset
                .checked_next_multiple_of(align)
                .ok_or_else(|| overflow(&name))?;
            let next = offset
                .checked_add(dtype.itemsize())
                .ok_or_else(|| overflow(&name))?;
            out.push(Field {
                name: name.into(),
                title: None,
                dtype,
                offset,
            });
            offset = next;
        }
        let itemsize = offset.checked_next_multiple_of(max_align);
        let itemsize = itemsize.ok_or_else(|| overflow("record"))?;
        Record::new(out, itemsize)
    }
}

/// numpy's alignment of a dtype (`dtype.alignment` under `align=True`): the scalar size for
/// numbers (the component size for complex), 4 for `U`, 1 for `S` and `V`, the base's for a
/// subarray and the largest of its fields' for a record.
pub fn alignment(dtype: &DType) -> u64 {
    match dtype {
        DType::Number(Primitive::LongDouble { .. } | Primitive::CLongDouble { .. }, _) => 16,
        DType::Number(p, _) if p.kind() == 'c' => p.itemsize() / 2,
        DType::Unicode(..) => 4,
        DType::Bytes(_) | DType::Void(_) => 1,
        DType::SubArray(s) => alignment(s.base()),
        DType::Record(r) => r
            .fields()
            .iter()
            .map(|f| alignment(&f.dtype))
            .max()
            .unwrap_or(1),
        // The other numbers, datetimes, objects and ml_dtypes: their size.
        scalar => scalar.itemsize(),
    }
}
