//! Object arrays (`|O`, alone or anywhere inside a record or subarray) hold a pickle, which
//! numpy reads by executing it. Every typed reading entry point, and `read_dyn` (which has no
//! `ObjectCodec`), must refuse them with `ErrorKind::ObjectArray` before any byte of the data
//! is read: the streams here panic if asked for a byte past the header, and the data is a
//! pickle that would run `os.system`. npy-pickle's tests decode the same files with its codec,
//! which refuses the global by name.

use std::io::Read;

use npy_convert::ConvertOptions;
use npy_core::{Error, ErrorKind, Header, NpyReader, NpyView};

/// A pickle calling `os.system('echo pwned')`: what a hostile object array holds.
const PICKLE: &[u8] = b"\x80\x04\x95\x1f\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x94\x8c\x06system\x94\x93\x94\x8c\necho pwned\x94\x85\x94R\x94.";

const OBJECT_DESCRS: &[&str] = &[
    "'|O'",
    "'|O8'",
    "[('a', '<f8'), ('o', '|O')]",
    "[('a', '<f8'), ('inner', [('b', '<i4'), ('o', '|O')])]",
    "[('s', '|O', (2,))]",
    "[('a', '<f8'), ('s', [('o', '|O')], (2, 2))]",
    "('|O', (3,))",
    "[(('title', 'o'), '|O')]",
];

fn file(descr: &str) -> (Vec<u8>, usize) {
    let text = format!("{{'descr': {descr}, 'fortran_order': False, 'shape': (4,), }}\n");
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&u16::try_from(text.len()).unwrap().to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    let header_end = out.len();
    for _ in 0..64 {
        out.extend_from_slice(PICKLE);
    }
    (out, header_end)
}

/// Yields the header, then panics at the first read of a data byte.
struct HeaderOnly<'a> {
    bytes: &'a [u8],
    pos: usize,
    header_end: usize,
}

impl Read for HeaderOnly<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        assert!(
            self.pos < self.header_end || buf.is_empty(),
            "read a data byte of an object array"
        );
        let n = buf.len().min(self.header_end - self.pos);
        buf[..n].copy_from_slice(&self.bytes[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

fn is_object(r: Result<impl Sized, Error>) -> bool {
    matches!(
        r.as_ref().map_err(Error::kind),
        Err(ErrorKind::ObjectArray { .. })
    )
}

#[cfg(feature = "derive")]
#[derive(npy_core::NpyElement, Debug)]
struct Rec {
    a: f64,
}

#[test]
fn object_arrays_are_refused_before_any_data_byte() {
    let dir = tempfile::tempdir().unwrap();
    for (i, descr) in OBJECT_DESCRS.iter().enumerate() {
        let (bytes, header_end) = file(descr);
        let parsed = Header::read(&mut &bytes[..]).expect("an object header is a valid header");
        assert!(parsed.header.dtype.has_object(), "{descr}");
        assert_eq!(parsed.data_offset() as usize, header_end);
        let stream = || {
            NpyReader::new(HeaderOnly {
                bytes: &bytes,
                pos: 0,
                header_end,
            })
            .unwrap()
        };
        assert!(
            is_object(stream().read_dyn()),
            "{descr}: read_dyn without a codec"
        );
        let refusal = stream().read_dyn().unwrap_err().to_string();
        assert!(
            refusal.contains("npy-pickle") && refusal.contains("npy_pickle::read_dyn"),
            "{descr}: the refusal names the crate that decodes objects: {refusal}"
        );
        assert!(
            is_object(stream().read_vec::<f64>()),
            "{descr}: read_vec f64"
        );
        #[cfg(feature = "derive")]
        assert!(
            is_object(stream().read_vec::<Rec>()),
            "{descr}: derived record"
        );
        assert!(is_object(stream().read_vec::<String>()), "{descr}: String");
        assert!(
            is_object(stream().read_into(&mut [0f64; 2])),
            "{descr}: read_into"
        );
        assert!(
            is_object(stream().iter::<f64>().map(|_| ())),
            "{descr}: iter"
        );

        let path = dir.path().join(format!("o{i}.npy"));
        std::fs::write(&path, &bytes).unwrap();
        assert!(is_object(npy_core::read_dyn(&path)), "{descr}: read_dyn");
        assert!(is_object(npy_core::read::<f64>(&path)), "{descr}: read");
        #[cfg(feature = "derive")]
        assert!(
            is_object(npy_core::read::<Rec>(&path)),
            "{descr}: read of records"
        );
        let mut r = NpyReader::open(&path).unwrap();
        assert!(is_object(r.read_range::<f64>(1..3)), "{descr}: read_range");
        let out = dir.path().join(format!("o{i}-out.npy"));
        assert!(
            is_object(npy_convert::convert_file(
                &path,
                &out,
                &ConvertOptions::new()
            )),
            "{descr}: convert_file"
        );
        assert!(!out.exists(), "{descr}: convert_file left an output");

        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        let aligned = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()];
        aligned.copy_from_slice(&bytes);
        assert!(is_object(NpyView::<f64>::new(aligned)), "{descr}: view");
        assert!(is_object(NpyView::<u8>::new(aligned)), "{descr}: u8 view");
        assert!(
            is_object(npy_core::view::view_or_copy::<f64>(aligned)),
            "{descr}: view_or_copy"
        );
        #[cfg(feature = "mmap")]
        {
            // SAFETY: the test's own file, not modified while mapped.
            let mapped = unsafe { npy_core::NpyMmap::<u8>::open(&path) };
            assert!(is_object(mapped), "{descr}: mmap");
        }
        #[cfg(feature = "ndarray")]
        assert!(
            is_object(npy_core::read_ndarray::<f64, ndarray::IxDyn>(&path)),
            "{descr}: read_ndarray"
        );
    }
}
