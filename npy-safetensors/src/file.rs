//! Reading a safetensors file: its tensors as `.npy` streams, and conversion to `.npy`/`.npz`.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use npy_core::{DType, Header, NpyReader};
use npy_npz::NpzWriter;

use crate::error::{Error, ErrorKind};
use crate::header::{SafetensorsHeader, TensorEntry};
use crate::write::{persist, temp_beside, COPY_BUFFER_BYTES};

/// An open safetensors file with its validated header.
#[derive(Debug)]
pub struct SafetensorsFile {
    file: File,
    header: SafetensorsHeader,
    path: PathBuf,
}

impl SafetensorsFile {
    /// Opens `path` and reads its header ([`SafetensorsHeader::read`]): memory is the header,
    /// at most [`MAX_HEADER_LEN`](crate::MAX_HEADER_LEN) bytes and its entries.
    ///
    /// # Errors
    /// As [`SafetensorsHeader::read`], naming `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<SafetensorsFile, Error> {
        let path = path.as_ref();
        let open = || -> Result<SafetensorsFile, Error> {
            let mut file = File::open(path).map_err(|e| Error::io(e, "opening"))?;
            let len = file
                .metadata()
                .map_err(|e| Error::io(e, "reading the file size"))?
                .len();
            let header = SafetensorsHeader::read(&mut BufReader::new(&mut file), len)?;
            Ok(SafetensorsFile {
                file,
                header,
                path: path.to_owned(),
            })
        };
        open().map_err(|e| e.at(path))
    }

    /// The header.
    pub fn header(&self) -> &SafetensorsHeader {
        &self.header
    }

    /// The `.npy` header of a tensor: its numpy dtype (little-endian), shape, C order.
    pub fn npy_header(entry: &TensorEntry) -> Header {
        Header::new(entry.dtype().to_npy(), entry.shape().to_vec())
    }

    /// The tensor `name` as the bytes of an `.npy` file (the header `np.save` would write,
    /// then the tensor's data, read from the file as it is consumed): a stream that seeks.
    ///
    /// # Errors
    /// [`ErrorKind::NoSuchTensor`]; header encoding errors.
    pub fn npy_stream(&mut self, name: &str) -> Result<NpyStream<'_>, Error> {
        let entry = self
            .header
            .tensor(name)
            .ok_or_else(|| Error::new(ErrorKind::NoSuchTensor(name.to_owned())).at(&self.path))?;
        let head = Self::npy_header(entry).to_bytes(None)?;
        let start = self.header.data_start() + entry.data_range().start;
        Ok(NpyStream {
            dtype: entry.dtype().to_npy(),
            head,
            file: &mut self.file,
            start,
            len: entry.nbytes(),
            pos: 0,
        })
    }

    /// The tensor `name` as an [`NpyReader`] (buffered), for typed or dynamic reads; its dtype
    /// is the tensor's (`DType::Ml` for BF16 and the F8 kinds).
    ///
    /// # Errors
    /// As [`SafetensorsFile::npy_stream`].
    pub fn npy_reader(&mut self, name: &str) -> Result<NpyReader<BufReader<NpyStream<'_>>>, Error> {
        let stream = self.npy_stream(name)?;
        let len = stream.len;
        // The `.npy` header says `<V2` for BF16 (as np.save writes it): the tensor's dtype is
        // the hint that gives the type back.
        let hint = match stream.dtype {
            DType::Ml(t) => Some(t),
            _ => None,
        };
        Ok(NpyReader::new(BufReader::with_capacity(1 << 16, stream))?
            .with_hint(hint)
            .with_available_bytes(len))
    }
}

/// A tensor of a safetensors file seen as an `.npy` file: an `.npy` header then the tensor's
/// bytes, read from the file at their offset. See [`SafetensorsFile::npy_stream`].
#[derive(Debug)]
pub struct NpyStream<'a> {
    dtype: DType,
    head: Vec<u8>,
    file: &'a mut File,
    start: u64,
    len: u64,
    pos: u64,
}

impl NpyStream<'_> {
    fn total(&self) -> u64 {
        self.head.len() as u64 + self.len
    }
}

impl Read for NpyStream<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let head = self.head.len() as u64;
        if self.pos < head {
            let from = &self.head[self.pos as usize..];
            let n = from.len().min(buf.len());
            buf[..n].copy_from_slice(&from[..n]);
            self.pos += n as u64;
            return Ok(n);
        }
        let left = self.total() - self.pos;
        if left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        self.file
            .seek(SeekFrom::Start(self.start + (self.pos - head)))?;
        let n = self.file.read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the safetensors file ended inside a tensor",
            ));
        }
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for NpyStream<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let total = self.total();
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => total.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        match target {
            Some(p) if p <= total => {
                self.pos = p;
                Ok(p)
            }
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek outside the tensor",
            )),
        }
    }
}

/// Converts a safetensors file to an `.npz` archive (every tensor as a member under its name,
/// in data order, stored as `np.savez` stores) or, when `dst` ends with `.npy`, to one `.npy`
/// file (the file must hold exactly one tensor). Data is copied through a buffer of
/// [`COPY_BUFFER_BYTES`]; the output appears complete or not at all (temporary file, rename).
/// The header's `__metadata__` has no place in numpy files and is dropped.
///
/// # Errors
/// As [`SafetensorsFile::open`]; [`ErrorKind::NotOneTensor`] for a `.npy` output; I/O errors,
/// naming `src` or `dst`.
pub fn from_safetensors(src: impl AsRef<Path>, dst: impl AsRef<Path>) -> Result<(), Error> {
    let (src, dst) = (src.as_ref(), dst.as_ref());
    let mut st = SafetensorsFile::open(src)?;
    let names: Vec<String> = st
        .header()
        .tensors()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    if dst.to_string_lossy().ends_with(".npy") {
        if names.len() != 1 {
            return Err(Error::new(ErrorKind::NotOneTensor(names.len())).at(src));
        }
        let mut tmp = temp_beside(dst)?;
        let mut out = io::BufWriter::with_capacity(COPY_BUFFER_BYTES, &mut tmp);
        let mut stream = st.npy_stream(&names[0])?;
        io::copy(&mut stream, &mut out).map_err(|e| Error::io(e, "copying").at(src))?;
        io::Write::flush(&mut out).map_err(|e| Error::io(e, "writing").at(dst))?;
        drop(out);
        return persist(tmp, dst);
    }
    let mut npz = NpzWriter::create(dst).map_err(|e| Error::from(e).at(dst))?;
    for name in &names {
        let stream = st.npy_stream(name)?;
        npz.add_npy(name, BufReader::with_capacity(COPY_BUFFER_BYTES, stream))
            .map_err(|e| Error::from(e).at(dst))?;
    }
    npz.finish().map_err(|e| Error::from(e).at(dst))?;
    Ok(())
}
