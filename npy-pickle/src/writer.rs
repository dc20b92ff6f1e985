//! The pickler: an object array as `np.save` writes it (protocol 4, framed), so that
//! `np.load(..., allow_pickle=True)` gives the same array.
//!
//! The output follows CPython's C pickler opcode for opcode: the same opcode for each value
//! and size, `MEMOIZE` after every value Python memoizes, lists and dicts in batches of 1000,
//! frames of at least 64 KiB committed between values, and large `str`/`bytes` written
//! outside frames. Python shares objects by identity, which values here do not have; the
//! writer shares what CPython always shares (module names, globals, one-character and empty
//! `str` and `bytes`, which are interpreter-wide singletons) and writes every other value in
//! full, as numpy does for an array whose elements are distinct objects.

use std::collections::HashMap;

use num_bigint::BigInt;

use npy_core::__private::objects::{array_bytes, encode};
use npy_core::{
    dtype::{TimeKind, TimeUnit},
    ByteOrder, DType, DynArray, DynValue,
};

use crate::error::PickleError;
use crate::globals::PyGlobal;
use crate::limits::MAX_PICKLE_DEPTH;
use crate::value::{NpyScalar, PyDType, PyObject};

const FRAME_SIZE_TARGET: usize = 64 * 1024;
const FRAME_SIZE_MIN: usize = 4;
const FRAME_HEADER: usize = 9;
const BATCH: usize = 1000;

/// What Python shares by identity, and so the writer by value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Shared {
    Str(String),
    Bytes(Vec<u8>),
    Global(PyGlobal),
    /// numpy's built-in dtypes in native byte order (and `O`) are singletons.
    DType(DType),
}

struct Pickler {
    out: Vec<u8>,
    frame_start: Option<usize>,
    memo: HashMap<Shared, u32>,
    next_memo: u32,
    depth: usize,
}

/// The pickle `np.save` writes for an object array (`dtype=object`) of `shape` whose elements,
/// listed in C order, are `items`; `fortran` is the array's memory order.
///
/// # Errors
/// [`PickleError::Unpicklable`] for values this writer does not write (records, subarrays,
/// `StringDType`, functions), and [`PickleError::TooDeep`] past
/// [`MAX_PICKLE_DEPTH`](MAX_PICKLE_DEPTH) levels.
pub(crate) fn dump_object_array(
    items: &[&PyObject],
    shape: &[u64],
    fortran: bool,
) -> Result<Vec<u8>, PickleError> {
    let mut p = Pickler {
        out: Vec::new(),
        frame_start: None,
        memo: HashMap::new(),
        next_memo: 0,
        depth: 0,
    };
    p.out.extend_from_slice(&[0x80, 4]);
    // _reconstruct(ndarray, (0,), b'b')
    p.global(PyGlobal::Reconstruct);
    p.global(PyGlobal::NdArray);
    p.op(&[b'K', 0, 0x85]);
    p.memoize();
    p.bytes(b"b");
    p.op(&[0x87]);
    p.memoize();
    p.op(b"R");
    p.memoize();
    p.boundary();
    // state: (1, shape, dtype('O8'), fortran, [items])
    p.op(b"(");
    p.int(&BigInt::from(1));
    p.tuple_of_ints(shape);
    p.boundary();
    p.dtype(&DType::Object)?;
    p.boundary();
    p.op(&[if fortran { 0x88 } else { 0x89 }]);
    p.list(items)?;
    p.boundary();
    p.op(b"t");
    p.memoize();
    p.op(b"b");
    p.boundary();
    p.op(b".");
    p.commit_frame();
    Ok(p.out)
}

/// The opcode and length of a payload of `len` bytes: `ops` are the opcodes with a 1-, 4- and
/// 8-byte length, used as CPython does (1 byte up to 255, 4 bytes up to 2³² − 1).
fn sized(ops: [u8; 3], len: usize) -> Vec<u8> {
    let mut h = Vec::with_capacity(9);
    if let Ok(n) = u8::try_from(len) {
        h.extend_from_slice(&[ops[0], n]);
    } else if let Ok(n) = u32::try_from(len) {
        h.push(ops[1]);
        h.extend_from_slice(&n.to_le_bytes());
    } else {
        h.push(ops[2]);
        h.extend_from_slice(&(len as u64).to_le_bytes());
    }
    h
}

impl Pickler {
    /// Writes opcode bytes, opening a frame first if none is open.
    fn op(&mut self, bytes: &[u8]) {
        if self.frame_start.is_none() {
            self.frame_start = Some(self.out.len());
            self.out.extend_from_slice(&[0; FRAME_HEADER]);
        }
        self.out.extend_from_slice(bytes);
    }

    /// After each value: a frame that reached the target size is closed.
    fn boundary(&mut self) {
        if let Some(start) = self.frame_start {
            if self.out.len() - start - FRAME_HEADER >= FRAME_SIZE_TARGET {
                self.commit_frame();
            }
        }
    }

    fn commit_frame(&mut self) {
        let Some(start) = self.frame_start.take() else {
            return;
        };
        let len = self.out.len() - start - FRAME_HEADER;
        if len >= FRAME_SIZE_MIN {
            self.out[start] = 0x95;
            self.out[start + 1..start + FRAME_HEADER].copy_from_slice(&(len as u64).to_le_bytes());
        } else {
            self.out.drain(start..start + FRAME_HEADER);
        }
    }

    /// An opcode with a large payload: the payload goes outside any frame, as CPython writes
    /// `str` and `bytes` of 64 KiB or more.
    fn op_with_payload(&mut self, header: &[u8], payload: &[u8]) {
        if payload.len() >= FRAME_SIZE_TARGET {
            self.commit_frame();
            self.out.extend_from_slice(header);
            self.out.extend_from_slice(payload);
        } else {
            self.op(header);
            self.op(payload);
        }
    }

    fn memoize(&mut self) -> u32 {
        self.op(&[0x94]);
        self.next_memo += 1;
        self.next_memo - 1
    }

    /// `BINGET` of a shared value already written, if it was.
    fn get_shared(&mut self, key: &Shared) -> bool {
        let Some(&i) = self.memo.get(key) else {
            return false;
        };
        match u8::try_from(i) {
            Ok(b) => self.op(&[b'h', b]),
            Err(_) => {
                let mut o = vec![b'j'];
                o.extend_from_slice(&i.to_le_bytes());
                self.op(&o);
            }
        }
        true
    }

    fn global(&mut self, g: PyGlobal) {
        if self.get_shared(&Shared::Global(g)) {
            return;
        }
        let (module, name) = g.path();
        self.shared_str(module);
        self.str_fresh(name);
        self.op(&[0x93]);
        let i = self.memoize();
        self.memo.insert(Shared::Global(g), i);
    }

    /// A `str` Python shares (a module name or a singleton).
    fn shared_str(&mut self, s: &str) {
        let key = Shared::Str(s.to_owned());
        if self.get_shared(&key) {
            return;
        }
        self.str_fresh(s);
        self.memo.insert(key, self.next_memo - 1);
    }

    fn str_fresh(&mut self, s: &str) {
        let b = s.as_bytes();
        // SHORT_BINUNICODE, BINUNICODE, BINUNICODE8
        self.op_with_payload(&sized([0x8c, b'X', 0x8d], b.len()), b);
        self.memoize();
    }

    fn string(&mut self, s: &str) {
        let mut chars = s.chars();
        let singleton = match (chars.next(), chars.next()) {
            (None, _) => true,
            (Some(c), None) => u32::from(c) < 256,
            _ => false,
        };
        if singleton {
            self.shared_str(s);
        } else {
            self.str_fresh(s);
        }
    }

    fn bytes(&mut self, b: &[u8]) {
        let key = Shared::Bytes(b.to_vec());
        if b.len() <= 1 && self.get_shared(&key) {
            return;
        }
        // SHORT_BINBYTES, BINBYTES, BINBYTES8
        self.op_with_payload(&sized([b'C', b'B', 0x8e], b.len()), b);
        let i = self.memoize();
        if b.len() <= 1 {
            self.memo.insert(key, i);
        }
    }

    fn int(&mut self, v: &BigInt) {
        if let Ok(i) = i64::try_from(v) {
            if (0..=0xff).contains(&i) {
                return self.op(&[b'K', i as u8]);
            }
            if (0..=0xffff).contains(&i) {
                let b = (i as u16).to_le_bytes();
                return self.op(&[b'M', b[0], b[1]]);
            }
            if let Ok(j) = i32::try_from(i) {
                let mut o = vec![b'J'];
                o.extend_from_slice(&j.to_le_bytes());
                return self.op(&o);
            }
        }
        let bytes = v.to_signed_bytes_le();
        let mut o = Vec::with_capacity(bytes.len() + 5);
        match u8::try_from(bytes.len()) {
            Ok(n) => o.extend_from_slice(&[0x8a, n]),
            Err(_) => {
                o.push(0x8b);
                o.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            }
        }
        o.extend_from_slice(&bytes);
        self.op(&o);
    }

    fn float(&mut self, x: f64) {
        let mut o = vec![b'G'];
        o.extend_from_slice(&x.to_be_bytes());
        self.op(&o);
    }

    fn tuple_of_ints(&mut self, shape: &[u64]) {
        let items: Vec<PyObject> = shape
            .iter()
            .map(|&d| PyObject::from_bigint(BigInt::from(d)))
            .collect();
        let refs: Vec<&PyObject> = items.iter().collect();
        // Ints cannot fail to pickle.
        let _ = self.tuple(&refs);
    }

    /// `dtype(typestr, False, True)` and `BUILD` with its state `(version, byte order, None,
    /// None, None, elsize, alignment, flags[, datetime metadata])`, as numpy's
    /// `dtype.__reduce__` gives them: `('O8', ...), (3, '|', None, None, None, -1, -1, 63)`.
    fn dtype(&mut self, dt: &DType) -> Result<(), PickleError> {
        let singleton = match dt {
            DType::Object => true,
            DType::Number(_, o) => *o == ByteOrder::NATIVE || *o == ByteOrder::NotApplicable,
            _ => false,
        };
        let key = Shared::DType(dt.clone());
        if singleton && self.get_shared(&key) {
            return Ok(());
        }
        let (typestr, elsize, align, flags): (String, u64, i64, u8) = match dt {
            DType::Object => ("O8".into(), 0, -1, 63),
            DType::Number(p, _) => (format!("{}{}", p.kind(), p.itemsize()), 0, -1, 0),
            DType::Bytes(n) => (format!("S{n}"), *n, 1, 0),
            DType::Unicode(n, _) => (format!("U{n}"), n.saturating_mul(4), 4, 8),
            DType::Void(n) => (format!("V{n}"), *n, 1, 0),
            // ml_dtypes types pickle as ml_dtypes' own classes; here they are their bytes.
            DType::Ml(t) => (format!("V{}", t.itemsize()), t.itemsize(), 1, 0),
            DType::Time(t, _) => {
                let k = if t.kind == TimeKind::Datetime {
                    "M8"
                } else {
                    "m8"
                };
                (k.into(), 0, -1, 0)
            }
            DType::Record(_) | DType::SubArray(_) => {
                return Err(PickleError::Unpicklable {
                    what: format!("dtype '{dt}'"),
                    reason: "records and subarrays inside object arrays are not written",
                })
            }
        };
        self.global(PyGlobal::DType);
        self.str_fresh(&typestr);
        self.op(&[0x89, 0x88, 0x87]);
        self.memoize();
        self.op(b"R");
        let at = self.memoize();
        if singleton {
            self.memo.insert(key, at);
        }
        let time = match dt {
            DType::Time(t, _) => Some(*t),
            _ => None,
        };
        self.op(&[b'(', b'K', if time.is_some() { 4 } else { 3 }]);
        self.shared_str(match dt.byte_order() {
            ByteOrder::Little => "<",
            ByteOrder::Big => ">",
            ByteOrder::NotApplicable => "|",
        });
        self.op(b"NNN");
        // elsize -1 (not flexible) or the bytes; alignment -1 or the flexible type's.
        match elsize {
            0 if align < 0 => self.op(&[b'J', 0xff, 0xff, 0xff, 0xff]),
            n => self.int(&BigInt::from(n)),
        }
        match align {
            -1 => self.op(&[b'J', 0xff, 0xff, 0xff, 0xff]),
            a => self.int(&BigInt::from(a)),
        }
        self.int(&BigInt::from(flags));
        if let Some(t) = time {
            // (None, (unit, multiplier, 1, 1))
            self.op(b"N(");
            let unit = if t.unit == TimeUnit::Generic {
                "generic"
            } else {
                t.unit.code()
            };
            self.bytes(unit.as_bytes());
            self.int(&BigInt::from(t.multiplier));
            self.op(&[b'K', 1, b'K', 1, b't']);
            self.memoize();
            self.op(&[0x86]);
            self.memoize();
        }
        self.op(b"t");
        self.memoize();
        self.op(b"b");
        Ok(())
    }

    /// The bytes of `values` of `dt`, as numpy's `tobytes()` gives them.
    fn raw(dt: &DType, values: &[&DynValue]) -> Result<Vec<u8>, PickleError> {
        let size = usize::try_from(dt.itemsize()).unwrap_or(usize::MAX);
        let mut out = vec![0u8; size.saturating_mul(values.len())];
        for (v, dst) in values.iter().zip(out.chunks_exact_mut(size.max(1))) {
            encode(dt, v, &mut dst[..size]).map_err(|e| PickleError::Unpicklable {
                what: format!("a value of dtype '{dt}' ({e})"),
                reason: "it does not fit its dtype",
            })?;
        }
        Ok(out)
    }

    /// `scalar(dtype, bytes)`, as numpy pickles its scalars.
    fn scalar(&mut self, s: &NpyScalar) -> Result<(), PickleError> {
        if s.dtype.has_object() {
            return Err(PickleError::Unpicklable {
                what: "an object scalar".into(),
                reason: "numpy pickles object scalars as their object",
            });
        }
        let raw = Self::raw(&s.dtype, &[&s.value])?;
        self.global(PyGlobal::Scalar);
        self.dtype(&s.dtype)?;
        self.bytes(&raw);
        self.op(&[0x86]);
        self.memoize();
        self.op(b"R");
        self.memoize();
        Ok(())
    }

    /// `_reconstruct(ndarray, (0,), b'b')` and its state: an array inside the array.
    fn array(&mut self, a: &DynArray) -> Result<(), PickleError> {
        self.global(PyGlobal::Reconstruct);
        self.global(PyGlobal::NdArray);
        self.op(&[b'K', 0, 0x85]);
        self.memoize();
        self.bytes(b"b");
        self.op(&[0x87]);
        self.memoize();
        self.op(b"R");
        self.memoize();
        self.op(&[b'(', b'K', 1]);
        self.tuple_of_ints(a.shape());
        self.dtype(a.dtype())?;
        // numpy's flag: Fortran-contiguous and not C-contiguous.
        let fortran = a.order().is_fortran() && a.shape().iter().filter(|&&d| d > 1).count() > 1;
        self.op(&[if fortran { 0x88 } else { 0x89 }]);
        if *a.dtype() == DType::Object {
            // Borrowed, not copied: an object array holds its values.
            let values: Vec<_> = a.iter_c_order().collect();
            let items = values
                .iter()
                .map(|v| match PyObject::of(v) {
                    Some(o) => Ok(o),
                    None => Err(PickleError::Unpicklable {
                        what: format!("{:?}", &**v),
                        reason: "an object array's element is not an object",
                    }),
                })
                .collect::<Result<Vec<&PyObject>, _>>()?;
            self.list(&items)?;
        } else if let Some(raw) = array_bytes(a) {
            // Held in columns: the bytes as a file holds them.
            self.bytes(&raw);
        } else {
            // Records with object fields: encoded value by value (which refuses the objects).
            let values: Vec<&DynValue> = a.objects().unwrap_or_default().iter().collect();
            let raw = Self::raw(a.dtype(), &values)?;
            self.bytes(&raw);
        }
        self.op(b"t");
        self.memoize();
        self.op(b"b");
        Ok(())
    }

    fn tuple(&mut self, items: &[&PyObject]) -> Result<(), PickleError> {
        if items.is_empty() {
            self.op(b")");
            return Ok(());
        }
        if items.len() > 3 {
            self.op(b"(");
        }
        for v in items {
            self.save(v)?;
        }
        match items.len() {
            1 => self.op(&[0x85]),
            2 => self.op(&[0x86]),
            3 => self.op(&[0x87]),
            _ => self.op(b"t"),
        }
        self.memoize();
        Ok(())
    }

    fn list(&mut self, items: &[&PyObject]) -> Result<(), PickleError> {
        self.op(b"]");
        self.memoize();
        if let [only] = items {
            self.save(only)?;
            self.op(b"a");
            return Ok(());
        }
        for batch in items.chunks(BATCH) {
            self.op(b"(");
            for v in batch {
                self.save(v)?;
            }
            self.op(b"e");
        }
        Ok(())
    }

    fn dict(&mut self, pairs: &[(PyObject, PyObject)]) -> Result<(), PickleError> {
        for (k, _) in pairs {
            check_hashable(k, "a dict key")?;
        }
        self.op(b"}");
        self.memoize();
        if let [(k, v)] = pairs {
            self.save(k)?;
            self.save(v)?;
            self.op(b"s");
            return Ok(());
        }
        for batch in pairs.chunks(BATCH) {
            self.op(b"(");
            for (k, v) in batch {
                self.save(k)?;
                self.save(v)?;
            }
            self.op(b"u");
        }
        Ok(())
    }

    /// `global(*args)` as `REDUCE`, memoized: how Python pickles `complex`, `bytearray` (below
    /// protocol 5), `range` and `slice`.
    fn reduce(&mut self, g: PyGlobal, args: &[&PyObject]) -> Result<(), PickleError> {
        self.global(g);
        self.tuple(args)?;
        self.op(b"R");
        self.memoize();
        Ok(())
    }

    fn save(&mut self, v: &PyObject) -> Result<(), PickleError> {
        self.depth += 1;
        if self.depth > MAX_PICKLE_DEPTH {
            return Err(PickleError::TooDeep {
                limit: MAX_PICKLE_DEPTH,
            });
        }
        let r = self.save_inner(v);
        self.depth -= 1;
        self.boundary();
        r
    }

    fn save_inner(&mut self, v: &PyObject) -> Result<(), PickleError> {
        match v {
            PyObject::None => self.op(b"N"),
            PyObject::Bool(b) => self.op(&[if *b { 0x88 } else { 0x89 }]),
            PyObject::Int(i) => self.int(&BigInt::from(*i)),
            PyObject::BigInt(b) => self.int(b),
            PyObject::Float(x) => self.float(*x),
            PyObject::Complex(re, im) => self.reduce(
                PyGlobal::Complex,
                &[&PyObject::Float(*re), &PyObject::Float(*im)],
            )?,
            PyObject::Str(s) => self.string(s),
            PyObject::Bytes(b) => self.bytes(b),
            PyObject::ByteArray(b) => {
                self.reduce(PyGlobal::ByteArray, &[&PyObject::Bytes(b.clone())])?;
            }
            PyObject::List(items) => self.list(&items.iter().collect::<Vec<_>>())?,
            PyObject::Tuple(items) => self.tuple(&items.iter().collect::<Vec<_>>())?,
            PyObject::Dict(pairs) => self.dict(pairs)?,
            PyObject::Set(items) => {
                for v in items {
                    check_hashable(v, "a set item")?;
                }
                self.op(&[0x8f]);
                self.memoize();
                for batch in items.chunks(BATCH) {
                    self.op(b"(");
                    for v in batch {
                        self.save(v)?;
                    }
                    self.op(&[0x90]);
                }
            }
            PyObject::FrozenSet(items) => {
                for v in items {
                    check_hashable(v, "a frozenset item")?;
                }
                self.op(b"(");
                for v in items {
                    self.save(v)?;
                }
                self.op(&[0x91]);
                self.memoize();
            }
            PyObject::Range(a, b, c) => {
                let args = [PyObject::Int(*a), PyObject::Int(*b), PyObject::Int(*c)];
                self.reduce(PyGlobal::Range, &args.iter().collect::<Vec<_>>())?;
            }
            PyObject::Slice(s) => self.reduce(PyGlobal::Slice, &s.iter().collect::<Vec<_>>())?,
            PyObject::Global(g) if g.is_class() => self.global(*g),
            PyObject::Scalar(s) => self.scalar(s)?,
            PyObject::Array(a) => self.array(a)?,
            PyObject::DType(d) => match &**d {
                PyDType::Numpy(dt) => self.dtype(dt)?,
                PyDType::String { .. } => {
                    return Err(PickleError::Unpicklable {
                        what: "StringDType".into(),
                        reason: "write its strings as an object array",
                    })
                }
            },
            other => {
                return Err(PickleError::Unpicklable {
                    what: other.type_name(),
                    reason: "functions are not values numpy writes",
                })
            }
        }
        Ok(())
    }
}

/// Refuses a value Python cannot hash as `what` (a dict key, a set item): `np.load` of such a
/// pickle raises "unhashable type", and this crate's reader refuses it too. Lists, dicts,
/// sets, bytearrays and arrays are unhashable, and so are slices before Python 3.12; a tuple
/// is hashable when its items are.
fn check_hashable(v: &PyObject, what: &'static str) -> Result<(), PickleError> {
    let ok = match v {
        PyObject::List(_)
        | PyObject::Dict(_)
        | PyObject::Set(_)
        | PyObject::ByteArray(_)
        | PyObject::Array(_)
        | PyObject::Slice(_) => false,
        PyObject::Tuple(items) => return items.iter().try_for_each(|x| check_hashable(x, what)),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(PickleError::Unpicklable {
            what: format!("a {} as {what}", v.type_name()),
            reason: "Python cannot hash it, so np.load would fail (unhashable type)",
        })
    }
}
