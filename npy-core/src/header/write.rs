//! Writing a header as `np.save` does: the dict's `repr`, the growth-axis spaces, the padding.

use super::read::decode_header;
use super::{Header, ParsedHeader};
use crate::error::{py_shape, Error, ErrorKind};
use crate::format::{Version, ARRAY_ALIGN, GROWTH_AXIS_MAX_DIGITS, MAGIC};
use crate::literal::Value;

impl Header {
    /// The header dict as numpy writes it, before padding: keys in sorted order, `repr` of each
    /// value, a trailing `, }`, then the spaces numpy reserves for the growth axis (21 minus
    /// the digits of the first dimension in C order, the last in Fortran order; none for `()`).
    pub fn to_text(&self) -> String {
        let (descr, shape) = (self.dtype.to_descr_value(), py_shape(&self.shape));
        let order = Value::Bool(self.fortran_order);
        let mut s = format!("{{'descr': {descr}, 'fortran_order': {order}, 'shape': {shape}, }}");
        if let Some(d) = self.shape.get(self.order().growth_axis(self.shape.len())) {
            let spaces = GROWTH_AXIS_MAX_DIGITS.saturating_sub(d.to_string().len());
            s.extend(std::iter::repeat_n(' ', spaces));
        }
        s
    }

    /// The whole prefix and header as `np.save` writes them: magic, version, header length,
    /// text, 1 to 64 spaces and `\n`, so that the data starts at a multiple of [`ARRAY_ALIGN`].
    ///
    /// With `version` `None`, numpy's choice: 1.0; 2.0 when the header needs more than 65,535
    /// bytes; 3.0 when the text is not latin-1.
    ///
    /// # Errors
    /// [`ErrorKind::SizeOverflow`] for a shape numpy cannot load ([`Header::nbytes`]); for an
    /// explicit `version`, [`ErrorKind::HeaderNotLatin1`] (1.0, 2.0 with non-latin-1 text) and
    /// [`ErrorKind::HeaderTooLargeForVersion`].
    pub fn to_bytes(&self, version: Option<Version>) -> Result<Vec<u8>, Error> {
        self.nbytes()?;
        self.to_bytes_unchecked(version)
    }

    /// [`Header::to_bytes`] without the size check: the longest header a streaming writer
    /// might need, measured over row counts beyond any real array.
    pub(crate) fn to_bytes_unchecked(&self, version: Option<Version>) -> Result<Vec<u8>, Error> {
        let text = self.to_text();
        match version {
            Some(v) => wrap_header(&text, v, 0),
            None => wrap_numpy(&text).map(|(_, bytes)| bytes),
        }
    }

    /// [`Header::to_bytes`] in `version`, padded with 64 more spaces at a time until it is at
    /// least `min_len` bytes long (a streaming writer's header keeps the length it reserved).
    ///
    /// # Errors
    /// As [`Header::to_bytes`].
    pub(crate) fn to_bytes_at_least(
        &self,
        version: Version,
        min_len: usize,
    ) -> Result<Vec<u8>, Error> {
        self.nbytes()?;
        wrap_header(&self.to_text(), version, min_len as u64)
    }

    /// The prefix and header for a file that already holds a header of `header_len` bytes (its
    /// `HEADER_LEN` field) in `version`, so that it can be rewritten in place without moving the
    /// data; `None` when it does not fit.
    ///
    /// These are `np.save`'s bytes ([`Header::to_bytes`]) whenever they are exactly that long:
    /// always for a file numpy or this crate wrote whose shape grew only along the growth axis
    /// (numpy reserves 21 digits there). Another writer's header gets the dict without the
    /// growth-axis spaces, padded with spaces to `header_len` (numpy reads any padding).
    ///
    /// # Errors
    /// As [`Header::to_bytes`] with an explicit version; [`ErrorKind::HeaderTooLargeForVersion`]
    /// for a `header_len` the version's length field cannot hold (no file has one).
    pub fn to_bytes_in_room(
        &self,
        version: Version,
        header_len: u64,
    ) -> Result<Option<Vec<u8>>, Error> {
        self.nbytes()?;
        let room = version.prefix_len().saturating_add(header_len);
        let text = self.to_text();
        match wrap_header(&text, version, 0) {
            Ok(bytes) if bytes.len() as u64 == room => return Ok(Some(bytes)),
            Err(e) if matches!(e.kind(), ErrorKind::HeaderNotLatin1 { .. }) => return Err(e),
            _ => {}
        }
        let encoded = encode(text.trim_end_matches(' '), version)?;
        let Some(pad) = header_len.checked_sub(encoded.len() as u64 + 1) else {
            return Ok(None);
        };
        prefixed(version, &encoded, Some(pad)).map(Some)
    }
}

/// The header text in the version's encoding: latin-1 for 1.0 and 2.0, UTF-8 for 3.0.
fn encode(text: &str, version: Version) -> Result<Vec<u8>, Error> {
    match version {
        Version::V3_0 => Ok(text.as_bytes().to_vec()),
        _ => text
            .chars()
            .map(|c| {
                u8::try_from(c).map_err(|_| Error::new(ErrorKind::HeaderNotLatin1 { version }))
            })
            .collect(),
    }
}

/// Magic, version, the `HEADER_LEN` field and the header: `encoded`, then with `padding`
/// `Some(n)` n spaces and `\n` (a header being written), with `None` nothing (a stored text,
/// its padding and newline included). The one place a header's bytes are put together.
///
/// # Errors
/// [`ErrorKind::HeaderTooLargeForVersion`] when the header is longer than the version's
/// length field can say.
fn prefixed(version: Version, encoded: &[u8], padding: Option<u64>) -> Result<Vec<u8>, Error> {
    let tail = padding.map_or(0, |pad| pad.saturating_add(1));
    let total = (encoded.len() as u64).saturating_add(tail);
    let max = version.max_header_len();
    if total > max {
        return Err(Error::new(ErrorKind::HeaderTooLargeForVersion {
            version,
            len: total,
            max,
        }));
    }
    // At most 4 GiB (the largest length field), which a 32-bit target cannot hold in one Vec.
    let size = version.prefix_len() + total;
    let mut out = usize::try_from(size)
        .ok()
        .filter(|&n| isize::try_from(n).is_ok())
        .map(Vec::with_capacity)
        .ok_or_else(|| {
            Error::new(ErrorKind::PlatformLimit {
                what: "header bytes",
                value: size,
            })
        })?;
    out.extend_from_slice(MAGIC);
    let (major, minor) = version.bytes();
    out.extend_from_slice(&[major, minor]);
    out.extend_from_slice(&total.to_le_bytes()[..version.len_field_size() as usize]);
    out.extend_from_slice(encoded);
    if let Some(pad) = padding {
        // Within the capacity checked above, which counts the padding.
        out.resize(out.len() + pad as usize, b' ');
        out.push(b'\n');
    }
    Ok(out)
}

/// numpy's version choice for `text` ([`Header::to_bytes`] with `None`) and the bytes in it.
fn wrap_numpy(text: &str) -> Result<(Version, Vec<u8>), Error> {
    let wrap = |version| wrap_header(text, version, 0).map(|bytes| (version, bytes));
    wrap(Version::V1_0)
        .or_else(|_| wrap(Version::V2_0))
        .or_else(|_| wrap(Version::V3_0))
}

/// numpy's `_wrap_header`; then `ARRAY_ALIGN` more spaces at a time while the whole is shorter
/// than `min_len` bytes (0: exactly numpy's).
fn wrap_header(text: &str, version: Version, min_len: u64) -> Result<Vec<u8>, Error> {
    let encoded = encode(text, version)?;
    let hlen = encoded.len() as u64 + 1;
    let mut pad = ARRAY_ALIGN - (version.prefix_len() + hlen) % ARRAY_ALIGN;
    let short = min_len.saturating_sub(version.prefix_len() + hlen + pad);
    pad += short.div_ceil(ARRAY_ALIGN) * ARRAY_ALIGN;
    prefixed(version, &encoded, Some(pad))
}

impl ParsedHeader {
    /// `header` as `np.save` would store it: numpy's version choice ([`Header::to_bytes`] with
    /// `None`), its header length and padded text.
    ///
    /// # Errors
    /// As [`Header::to_bytes`].
    pub fn for_header(header: Header) -> Result<ParsedHeader, Error> {
        header.nbytes()?;
        let (version, bytes) = wrap_numpy(&header.to_text())?;
        // The header's bytes after the prefix, decoded as `Header::read` decodes them.
        let prefix = version.prefix_len() as usize;
        let raw = bytes.get(prefix..).unwrap_or_default();
        Ok(ParsedHeader {
            header,
            version,
            header_len: raw.len() as u64,
            text: decode_header(raw.to_vec(), version)?,
        })
    }

    /// The prefix and header as stored, the data following them: magic, version, `HEADER_LEN`
    /// (the encoded text's length, whatever [`ParsedHeader::header_len`] holds) and
    /// [`ParsedHeader::text`] (padding and newline included) in the version's encoding: latin-1
    /// for 1.0 and 2.0, one byte a char (not `text.as_bytes()`); UTF-8 for 3.0. For a header
    /// [`Header::read`] returned, the bytes it read: how a header read from a file is written
    /// out again (an `.npz` member copied from an `.npy` stream).
    ///
    /// # Errors
    /// [`ErrorKind::HeaderNotLatin1`] for a 1.0 or 2.0 header whose text has a char past
    /// U+00FF; [`ErrorKind::HeaderTooLargeForVersion`] when the encoded text does not fit the
    /// version's length field.
    ///
    /// # Examples
    /// ```
    /// use npy_core::{Header, WriteOptions};
    /// let mut file = Header::new("[('\u{e9}', '<i4')]".parse()?, vec![1]).to_bytes(None)?;
    /// file.extend_from_slice(&7i32.to_le_bytes());
    /// let parsed = Header::read(&mut &file[..])?;
    /// // 'é' is one byte in a 1.0 header: in UTF-8, numpy would read the data a byte early.
    /// assert_eq!(parsed.data_offset(), 128);
    /// assert_eq!(parsed.to_bytes()?, file[..128]);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        prefixed(self.version, &encode(&self.text, self.version)?, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `for_header` stores what `Header::read` reads back from `np.save`'s bytes, in each
    /// version numpy would choose.
    #[test]
    fn for_header_is_what_read_returns() {
        for descr in ["<f4", "[('\u{e9}', '<i4')]", "[('\u{4e2d}', '<i4')]"] {
            let header = Header::new(descr.parse().unwrap(), vec![3, 70_000]);
            let bytes = header.to_bytes(None).unwrap();
            let read = Header::read(&mut &bytes[..]).unwrap();
            assert_eq!(ParsedHeader::for_header(header).unwrap(), read);
        }
    }
}
