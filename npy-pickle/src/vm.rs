//! The opcode interpreter: pickle bytes to a flat arena of nodes, then to a [`PyObject`] tree.
//!
//! Two stages keep the work bounded. The machine runs the opcodes once, left to right, never
//! recursing: every container is a node in one arena, the stack and the memo hold small
//! [`Ref`]s to nodes, and mutations (`APPEND`, `SETITEM`, `BUILD`) change nodes in place, so
//! shared references behave as Python's do. After `STOP` the root is materialised into an
//! owned tree, recursively with a depth limit. One budget ([`PickleLimits::max_bytes`]) is
//! charged with everything either stage holds or builds: the pickle's bytes, the stack and the
//! marks at their deepest, each memo entry, each node and what it holds, each value of the tree
//! (each copy of a shared one too), the keys that compare dict keys and set items. Every
//! opcode does work in proportion to what it charges or to its own bytes: arguments are
//! counted before anything copies them.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashMap;

use num_bigint::BigInt;

use npy_core::__private::objects::{array_from_bytes, decode_all, decoded_bytes};
use npy_core::header::MAX_DIMS;
use npy_core::{
    dtype::{Field, Primitive, Record, SubArray, TimeKind, TimeType, TimeUnit},
    dynamic::UcsString,
    ByteOrder, DType, DynArray, DynValue, Header,
};

use crate::error::PickleError;
use crate::globals::{lookup, PyGlobal};
use crate::keys::{check_hashable, dedup_dict, dedup_set};
use crate::limits::PickleLimits;
use crate::opcode::{self, Family, Opcode};
use crate::value::{NpyScalar, PyDType, PyObject};

// Most decimal digits of an `int` written as text (`INT`, `LONG`), as Python's `int(s)`.
use crate::decimal::MAX_INT_DIGITS;

/// Bytes of a stack slot, of an item of a list, tuple or set node (half a dict pair).
const REF: u64 = std::mem::size_of::<Ref>() as u64;

/// Bytes of a node of the arena, before what it holds.
const NODE: u64 = std::mem::size_of::<Node>() as u64;

/// Bytes of a memo entry: its key and ref, and the hash table's slack.
const MEMO_ENTRY: u64 = 48;

/// Most positional arguments each allowed global's constructor takes (as the interpreter
/// reads them; Python's own signatures take no more).
fn max_args(g: PyGlobal) -> usize {
    match g {
        PyGlobal::Reconstruct => 3,
        // numpy.dtype(obj, align, copy, metadata)
        PyGlobal::DType => 4,
        PyGlobal::NdArray => 0,
        PyGlobal::Scalar | PyGlobal::StringDType | PyGlobal::Complex => 2,
        PyGlobal::FromBuffer => 5,
        PyGlobal::Set | PyGlobal::FrozenSet | PyGlobal::Bytes => 1,
        PyGlobal::ByteArray | PyGlobal::Encode => 2,
        PyGlobal::Range | PyGlobal::Slice => 3,
    }
}

/// Heap bytes a node holds when it is made (later `APPEND`s and `SETITEM`s charge theirs).
fn node_heap(n: &Node) -> u64 {
    match n {
        Node::Str(s) => s.len() as u64,
        Node::Bytes(b) | Node::ByteArray(b) => b.len() as u64,
        Node::BigInt(b) => b.bits() / 8 + 8,
        Node::List(v) | Node::Tuple(v) | Node::Set(v) | Node::FrozenSet(v) => {
            REF.saturating_mul(v.len() as u64)
        }
        Node::Dict(d) => 2 * REF.saturating_mul(d.len() as u64),
        Node::DType { typestr, built } => {
            typestr.len() as u64 + built.as_ref().map_or(0, dtype_weight)
        }
        _ => 0,
    }
}

/// A stack or memo entry: small values inline, everything else a node of the arena.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ref {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Node(usize),
}

#[derive(Debug)]
enum Node {
    Str(String),
    Bytes(Vec<u8>),
    ByteArray(Vec<u8>),
    BigInt(BigInt),
    Complex(f64, f64),
    List(Vec<Ref>),
    Tuple(Vec<Ref>),
    Dict(Vec<(Ref, Ref)>),
    Set(Vec<Ref>),
    FrozenSet(Vec<Ref>),
    Range(i64, i64, i64),
    Slice([Ref; 3]),
    Global(PyGlobal),
    /// `numpy.dtype(typestr, ...)`, and what `BUILD` made of it.
    DType {
        typestr: String,
        built: Option<DType>,
    },
    StringDType {
        coerce: bool,
        na_object: Option<Ref>,
    },
    /// `_reconstruct(...)` before `BUILD` (`None`), or a built array.
    Array(Option<ArrayNode>),
    Scalar(NpyScalar),
}

#[derive(Debug)]
struct ArrayNode {
    shape: Vec<u64>,
    /// `None` for `StringDType`, whose elements are objects.
    dtype: Option<DType>,
    fortran: bool,
    len: u64,
    data: ArrayData,
}

#[derive(Debug)]
enum ArrayData {
    /// Objects, in C order (numpy lists them so whatever the memory order).
    Items(Vec<Ref>),
    /// Raw element bytes, in memory order.
    Raw(Vec<u8>),
}

/// Decodes one pickle; see [`crate::loads_with`].
pub(crate) fn run(input: &[u8], limits: &PickleLimits) -> Result<PyObject, PickleError> {
    let mut vm = Vm {
        input,
        pos: 0,
        op_at: 0,
        op: 0,
        stack: Vec::new(),
        marks: Vec::new(),
        memo: HashMap::new(),
        nodes: Vec::new(),
        spent: Cell::new(0),
        budget: limits.max_bytes,
        stack_peak: 0,
        marks_peak: 0,
        max_depth: limits.max_depth,
        visiting: Vec::new(),
    };
    vm.charge(input.len() as u64)?;
    let root = vm.execute()?;
    // A value shared n times is built n times: a tree of 3^n copies from 3n bytes is refused
    // here, by what building it would charge at least, without building any of it.
    if vm.spent.get().saturating_add(vm.tree_floor(root)?) > vm.budget {
        return Err(PickleError::TooLarge {
            pickle_bytes: input.len() as u64,
            limit: vm.budget,
        });
    }
    vm.visiting = vec![false; vm.nodes.len()];
    vm.materialize(root, 1)
}

struct Vm<'a> {
    input: &'a [u8],
    pos: usize,
    /// Offset and byte of the opcode being run, for errors.
    op_at: usize,
    op: u8,
    stack: Vec<Ref>,
    /// Stack lengths at each `MARK`.
    marks: Vec<usize>,
    memo: HashMap<u32, Ref>,
    nodes: Vec<Node>,
    /// Bytes of values built so far, against `budget` (a `Cell`: dtypes are charged from
    /// `&self` methods as they are copied).
    spent: Cell<u64>,
    budget: u64,
    /// The deepest the stack and the marks have been (what their buffers hold).
    stack_peak: usize,
    marks_peak: usize,
    max_depth: usize,
    /// Nodes being materialised (a node reached again while set contains itself).
    visiting: Vec<bool>,
}

impl Vm<'_> {
    // -----------------------------------------------------------------------------------------
    // errors
    // -----------------------------------------------------------------------------------------

    #[cold]
    fn bad(&self, reason: impl Into<String>) -> PickleError {
        PickleError::Malformed {
            offset: self.op_at as u64,
            opcode: opcode::name_of(self.op),
            reason: reason.into(),
        }
    }

    #[cold]
    fn unsupported(&self, what: impl Into<String>, reason: impl Into<String>) -> PickleError {
        PickleError::Unsupported {
            what: what.into(),
            offset: self.op_at as u64,
            reason: reason.into(),
        }
    }

    fn charge(&self, bytes: u64) -> Result<(), PickleError> {
        self.spent.set(self.spent.get().saturating_add(bytes));
        if self.spent.get() > self.budget {
            return Err(PickleError::TooLarge {
                pickle_bytes: self.input.len() as u64,
                limit: self.budget,
            });
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // input
    // -----------------------------------------------------------------------------------------

    fn take(&mut self, n: u64, what: &'static str) -> Result<&[u8], PickleError> {
        let start = self.pos;
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| start.checked_add(n))
            .filter(|&e| e <= self.input.len())
            .ok_or(PickleError::Truncated {
                what,
                offset: self.op_at as u64,
                len: self.input.len() as u64,
            })?;
        self.pos = end;
        Ok(&self.input[start..end])
    }

    fn le<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], PickleError> {
        let b = self.take(N as u64, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// A text argument: the bytes up to the next `\n` (which is consumed).
    fn line(&mut self) -> Result<&[u8], PickleError> {
        let rest = &self.input[self.pos..];
        let n = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or(PickleError::Truncated {
                what: "a text argument (no newline)",
                offset: self.op_at as u64,
                len: self.input.len() as u64,
            })?;
        self.pos += n + 1;
        Ok(&rest[..n])
    }

    fn text_line(&mut self) -> Result<String, PickleError> {
        let l = self.line()?;
        match std::str::from_utf8(l) {
            Ok(s) => Ok(s.to_owned()),
            Err(_) => Err(self.bad("text argument is not UTF-8")),
        }
    }

    // -----------------------------------------------------------------------------------------
    // stack
    // -----------------------------------------------------------------------------------------

    fn floor(&self) -> usize {
        self.marks.last().copied().unwrap_or(0)
    }

    fn push(&mut self, r: Ref) -> Result<(), PickleError> {
        self.stack.push(r);
        if self.stack.len() > self.stack_peak {
            self.stack_peak = self.stack.len();
            self.charge(REF)?;
        }
        Ok(())
    }

    fn mark(&mut self) -> Result<(), PickleError> {
        self.marks.push(self.stack.len());
        if self.marks.len() > self.marks_peak {
            self.marks_peak = self.marks.len();
            self.charge(std::mem::size_of::<usize>() as u64)?;
        }
        Ok(())
    }

    /// A new node of the arena, charged with its size and what it holds.
    fn node(&mut self, n: Node) -> Result<Ref, PickleError> {
        self.charge(NODE.saturating_add(node_heap(&n)))?;
        self.nodes.push(n);
        Ok(Ref::Node(self.nodes.len() - 1))
    }

    fn pop(&mut self) -> Result<Ref, PickleError> {
        if self.stack.len() <= self.floor() {
            return Err(self.bad("the stack is empty (above the last MARK)"));
        }
        self.stack
            .pop()
            .ok_or_else(|| self.bad("the stack is empty"))
    }

    fn peek(&self) -> Result<Ref, PickleError> {
        if self.stack.len() <= self.floor() {
            return Err(self.bad("the stack is empty (above the last MARK)"));
        }
        self.stack
            .last()
            .copied()
            .ok_or_else(|| self.bad("the stack is empty"))
    }

    fn pop_mark(&mut self) -> Result<Vec<Ref>, PickleError> {
        let m = self
            .marks
            .pop()
            .ok_or_else(|| self.bad("no MARK on the stack"))?;
        Ok(self.stack.split_off(m))
    }

    // -----------------------------------------------------------------------------------------
    // reading refs
    // -----------------------------------------------------------------------------------------

    fn get(&self, r: Ref) -> Option<&Node> {
        match r {
            Ref::Node(i) => self.nodes.get(i),
            _ => None,
        }
    }

    fn describe(&self, r: Ref) -> &'static str {
        match r {
            Ref::None => "None",
            Ref::Bool(_) => "a bool",
            Ref::Int(_) => "an int",
            Ref::Float(_) => "a float",
            Ref::Node(i) => match self.nodes.get(i) {
                Some(Node::Str(_)) => "a str",
                Some(Node::Bytes(_)) => "bytes",
                Some(Node::ByteArray(_)) => "a bytearray",
                Some(Node::BigInt(_)) => "an int",
                Some(Node::Complex(..)) => "a complex",
                Some(Node::List(_)) => "a list",
                Some(Node::Tuple(_)) => "a tuple",
                Some(Node::Dict(_)) => "a dict",
                Some(Node::Set(_)) => "a set",
                Some(Node::FrozenSet(_)) => "a frozenset",
                Some(Node::Range(..)) => "a range",
                Some(Node::Slice(_)) => "a slice",
                Some(Node::Global(_)) => "a global",
                Some(Node::DType { .. } | Node::StringDType { .. }) => "a dtype",
                Some(Node::Array(_)) => "an array",
                Some(Node::Scalar(_)) => "a numpy scalar",
                None => "nothing",
            },
        }
    }

    fn int(&self, r: Ref) -> Option<i64> {
        match r {
            Ref::Int(i) => Some(i),
            Ref::Bool(b) => Some(i64::from(b)),
            _ => None,
        }
    }

    fn tuple(&self, r: Ref) -> Option<&[Ref]> {
        match self.get(r) {
            Some(Node::Tuple(t)) => Some(t),
            _ => None,
        }
    }

    /// A `str`, or ASCII `bytes` (a Python 2 `str`).
    fn text(&self, r: Ref) -> Option<&str> {
        match self.get(r) {
            Some(Node::Str(s)) => Some(s),
            Some(Node::Bytes(b)) if b.is_ascii() => std::str::from_utf8(b).ok(),
            _ => None,
        }
    }

    fn number(&self, r: Ref) -> Option<f64> {
        match r {
            Ref::Int(i) => Some(i as f64),
            Ref::Bool(b) => Some(f64::from(u8::from(b))),
            Ref::Float(x) => Some(x),
            _ => None,
        }
    }

    fn global_of(&self, r: Ref) -> Option<PyGlobal> {
        match self.get(r) {
            Some(Node::Global(g)) => Some(*g),
            _ => None,
        }
    }

    /// Items of a list, tuple, set or frozenset.
    fn items(&self, r: Ref) -> Option<&[Ref]> {
        match self.get(r) {
            Some(Node::List(v) | Node::Tuple(v) | Node::Set(v) | Node::FrozenSet(v)) => Some(v),
            _ => None,
        }
    }

    fn shape(&self, r: Ref) -> Option<Vec<u64>> {
        if let Some(d) = self.int(r) {
            return u64::try_from(d).ok().map(|d| vec![d]);
        }
        self.tuple(r)?
            .iter()
            .map(|&d| self.int(d).and_then(|d| u64::try_from(d).ok()))
            .collect()
    }

    // -----------------------------------------------------------------------------------------
    // the machine
    // -----------------------------------------------------------------------------------------

    fn execute(&mut self) -> Result<Ref, PickleError> {
        loop {
            self.op_at = self.pos;
            let byte = *self.take(1, "an opcode (no STOP)")?.first().unwrap_or(&0);
            self.op = byte;
            let Some(op) = Opcode::from_byte(byte) else {
                return Err(self.bad("not a pickle opcode"));
            };
            match op.family() {
                Family::Stop => return self.pop(),
                Family::Control => self.run_control(op)?,
                Family::Number => self.run_number(op)?,
                Family::TextOrBytes => self.run_text_or_bytes(op)?,
                Family::Container => self.run_container(op)?,
                Family::Memo => self.run_memo(op)?,
                Family::Call => self.run_call(op)?,
                Family::External => {
                    return Err(PickleError::External {
                        opcode: op.name(),
                        offset: self.op_at as u64,
                    })
                }
            }
        }
    }

    /// An opcode given to a family that does not run it: the dispatch in [`Vm::execute`]
    /// never does this.
    #[cold]
    fn not_in(&self, op: Opcode, family: &str) -> PickleError {
        self.bad(format!("{} is not one of the {family} opcodes", op.name()))
    }

    /// Protocol, framing and the stack itself: `PROTO`, `FRAME`, `MARK`, `POP`, `POP_MARK`, `DUP`.
    fn run_control(&mut self, op: Opcode) -> Result<(), PickleError> {
        match op {
            Opcode::Proto => {
                let [v] = self.le::<1>("the argument of PROTO")?;
                if v > 5 {
                    return Err(self.bad(format!("unsupported pickle protocol {v}")));
                }
            }
            Opcode::Frame => {
                let n = u64::from_le_bytes(self.le("the argument of FRAME")?);
                let left = (self.input.len() - self.pos) as u64;
                if n > left {
                    return Err(PickleError::Truncated {
                        what: "a frame",
                        offset: self.op_at as u64,
                        len: self.input.len() as u64,
                    });
                }
            }
            Opcode::Mark => self.mark()?,
            Opcode::Pop => {
                if self.stack.len() > self.floor() {
                    self.stack.pop();
                } else {
                    self.pop_mark()?;
                }
            }
            Opcode::PopMark => {
                self.pop_mark()?;
            }
            Opcode::Dup => {
                let r = self.peek()?;
                self.push(r)?;
            }
            other => return Err(self.not_in(other, "control")),
        }
        Ok(())
    }

    /// `None`, bools, ints and floats, pushed.
    fn run_number(&mut self, op: Opcode) -> Result<(), PickleError> {
        match op {
            Opcode::None => self.push(Ref::None)?,
            Opcode::NewTrue => self.push(Ref::Bool(true))?,
            Opcode::NewFalse => self.push(Ref::Bool(false))?,
            Opcode::BinInt1 => {
                let [b] = self.le::<1>("the argument of BININT1")?;
                self.push(Ref::Int(i64::from(b)))?;
            }
            Opcode::BinInt2 => {
                let v = u16::from_le_bytes(self.le("the argument of BININT2")?);
                self.push(Ref::Int(i64::from(v)))?;
            }
            Opcode::BinInt => {
                let v = i32::from_le_bytes(self.le("the argument of BININT")?);
                self.push(Ref::Int(i64::from(v)))?;
            }
            Opcode::Int => {
                let l = self.text_line()?;
                let r = match l.as_str() {
                    "00" => Ref::Bool(false),
                    "01" => Ref::Bool(true),
                    s => self.decimal(s)?,
                };
                self.push(r)?;
            }
            Opcode::Long => {
                let l = self.text_line()?;
                let r = self.decimal(l.strip_suffix('L').unwrap_or(&l))?;
                self.push(r)?;
            }
            Opcode::Long1 => {
                let [n] = self.le::<1>("the argument of LONG1")?;
                let r = self.long(u64::from(n))?;
                self.push(r)?;
            }
            Opcode::Long4 => {
                let n = i32::from_le_bytes(self.le("the argument of LONG4")?);
                let n = u64::try_from(n).map_err(|_| self.bad("negative byte count"))?;
                let r = self.long(n)?;
                self.push(r)?;
            }
            Opcode::BinFloat => {
                let x = f64::from_be_bytes(self.le("the argument of BINFLOAT")?);
                self.push(Ref::Float(x))?;
            }
            Opcode::Float => {
                let l = self.text_line()?;
                let x = parse_float(l.trim()).ok_or_else(|| self.bad("not a float"))?;
                self.push(Ref::Float(x))?;
            }
            other => return Err(self.not_in(other, "number")),
        }
        Ok(())
    }

    /// `str`, `bytes` and `bytearray` values of every protocol, pushed.
    fn run_text_or_bytes(&mut self, op: Opcode) -> Result<(), PickleError> {
        match op {
            Opcode::String => {
                let l = self.line()?.to_vec();
                let inner = match (l.first(), l.last()) {
                    (Some(&a), Some(&b)) if l.len() >= 2 && a == b && (a == b'\'' || a == b'"') => {
                        &l[1..l.len() - 1]
                    }
                    _ => return Err(self.bad("the STRING opcode argument must be quoted")),
                };
                let bytes = escape_decode(inner);
                let r = self.node(Node::Bytes(bytes))?;
                self.push(r)?;
            }
            Opcode::BinString => {
                let n = i32::from_le_bytes(self.le("the argument of BINSTRING")?);
                let n = u64::try_from(n).map_err(|_| self.bad("negative byte count"))?;
                self.bytes_op(n, false)?;
            }
            Opcode::ShortBinString => {
                let [n] = self.le::<1>("the argument of SHORT_BINSTRING")?;
                self.bytes_op(u64::from(n), false)?;
            }
            Opcode::ShortBinBytes => {
                let [n] = self.le::<1>("the argument of SHORT_BINBYTES")?;
                self.bytes_op(u64::from(n), false)?;
            }
            Opcode::BinBytes => {
                let n = u32::from_le_bytes(self.le("the argument of BINBYTES")?);
                self.bytes_op(u64::from(n), false)?;
            }
            Opcode::BinBytes8 => {
                let n = u64::from_le_bytes(self.le("the argument of BINBYTES8")?);
                self.bytes_op(n, false)?;
            }
            Opcode::ByteArray8 => {
                let n = u64::from_le_bytes(self.le("the argument of BYTEARRAY8")?);
                self.bytes_op(n, true)?;
            }
            Opcode::Unicode => {
                let l = self.line()?.to_vec();
                let s = raw_unicode_escape(&l)
                    .ok_or_else(|| self.bad("invalid \\u escape or a lone surrogate in UNICODE"))?;
                let r = self.node(Node::Str(s))?;
                self.push(r)?;
            }
            Opcode::ShortBinUnicode => {
                let [n] = self.le::<1>("the argument of SHORT_BINUNICODE")?;
                self.unicode_op(u64::from(n))?;
            }
            Opcode::BinUnicode => {
                let n = u32::from_le_bytes(self.le("the argument of BINUNICODE")?);
                self.unicode_op(u64::from(n))?;
            }
            Opcode::BinUnicode8 => {
                let n = u64::from_le_bytes(self.le("the argument of BINUNICODE8")?);
                self.unicode_op(n)?;
            }
            other => return Err(self.not_in(other, "text or bytes")),
        }
        Ok(())
    }

    /// Tuples, lists, dicts and sets: made from the stack, or extended in place.
    fn run_container(&mut self, op: Opcode) -> Result<(), PickleError> {
        match op {
            Opcode::EmptyTuple => {
                let r = self.node(Node::Tuple(Vec::new()))?;
                self.push(r)?;
            }
            Opcode::Tuple => {
                let items = self.pop_mark()?;
                let r = self.node(Node::Tuple(items))?;
                self.push(r)?;
            }
            Opcode::Tuple1 | Opcode::Tuple2 | Opcode::Tuple3 => {
                let n = match op {
                    Opcode::Tuple1 => 1,
                    Opcode::Tuple2 => 2,
                    _ => 3,
                };
                if self.stack.len() < self.floor() + n {
                    return Err(self.bad(format!("needs {n} items above the last MARK")));
                }
                let items = self.stack.split_off(self.stack.len() - n);
                let r = self.node(Node::Tuple(items))?;
                self.push(r)?;
            }
            Opcode::EmptyList => {
                let r = self.node(Node::List(Vec::new()))?;
                self.push(r)?;
            }
            Opcode::List => {
                let items = self.pop_mark()?;
                let r = self.node(Node::List(items))?;
                self.push(r)?;
            }
            Opcode::EmptyDict => {
                let r = self.node(Node::Dict(Vec::new()))?;
                self.push(r)?;
            }
            Opcode::Dict => {
                let items = self.pop_mark()?;
                let pairs = self.pairs(items)?;
                let r = self.node(Node::Dict(pairs))?;
                self.push(r)?;
            }
            Opcode::EmptySet => {
                let r = self.node(Node::Set(Vec::new()))?;
                self.push(r)?;
            }
            Opcode::FrozenSet => {
                let items = self.pop_mark()?;
                let r = self.node(Node::FrozenSet(items))?;
                self.push(r)?;
            }
            Opcode::Append => {
                let v = self.pop()?;
                self.extend(vec![v])?;
            }
            Opcode::Appends => {
                let items = self.pop_mark()?;
                self.extend(items)?;
            }
            Opcode::SetItem => {
                let v = self.pop()?;
                let k = self.pop()?;
                self.set_items(vec![(k, v)])?;
            }
            Opcode::SetItems => {
                let items = self.pop_mark()?;
                let pairs = self.pairs(items)?;
                self.set_items(pairs)?;
            }
            Opcode::AddItems => {
                let items = self.pop_mark()?;
                let target = self.peek()?;
                match target {
                    Ref::Node(i) if matches!(self.nodes.get(i), Some(Node::Set(_))) => {
                        self.charge(REF.saturating_mul(items.len() as u64))?;
                        if let Some(Node::Set(s)) = self.nodes.get_mut(i) {
                            s.extend(items);
                        }
                    }
                    other => {
                        return Err(
                            self.bad(format!("ADDITEMS to {}, not a set", self.describe(other)))
                        )
                    }
                }
            }
            other => return Err(self.not_in(other, "container")),
        }
        Ok(())
    }

    /// The memo: `PUT`s store the top of the stack, `GET`s push a stored value again.
    fn run_memo(&mut self, op: Opcode) -> Result<(), PickleError> {
        match op {
            Opcode::Put => {
                let l = self.text_line()?;
                let i = self.memo_index(&l)?;
                self.put(i)?;
            }
            Opcode::BinPut => {
                let [i] = self.le::<1>("the argument of BINPUT")?;
                self.put(u32::from(i))?;
            }
            Opcode::LongBinPut => {
                let i = u32::from_le_bytes(self.le("the argument of LONG_BINPUT")?);
                self.put(i)?;
            }
            Opcode::Memoize => {
                let i = u32::try_from(self.memo.len()).map_err(|_| self.bad("memo full"))?;
                self.put(i)?;
            }
            Opcode::Get => {
                let l = self.text_line()?;
                let i = self.memo_index(&l)?;
                self.memo_get(i)?;
            }
            Opcode::BinGet => {
                let [i] = self.le::<1>("the argument of BINGET")?;
                self.memo_get(u32::from(i))?;
            }
            Opcode::LongBinGet => {
                let i = u32::from_le_bytes(self.le("the argument of LONG_BINGET")?);
                self.memo_get(i)?;
            }
            other => return Err(self.not_in(other, "memo")),
        }
        Ok(())
    }

    /// Globals (only those of the allow-list), the calls of their constructors and `BUILD`.
    fn run_call(&mut self, op: Opcode) -> Result<(), PickleError> {
        match op {
            Opcode::Global => {
                let module = self.text_line()?;
                let name = self.text_line()?;
                let g = lookup(&module, &name)?;
                let r = self.node(Node::Global(g))?;
                self.push(r)?;
            }
            Opcode::StackGlobal => {
                let name = self.pop()?;
                let module = self.pop()?;
                let (Some(Node::Str(m)), Some(Node::Str(n))) = (self.get(module), self.get(name))
                else {
                    return Err(self.bad("module and name must be str"));
                };
                let g = lookup(m, n)?;
                let r = self.node(Node::Global(g))?;
                self.push(r)?;
            }
            Opcode::Reduce => {
                let args = self.pop()?;
                let callable = self.pop()?;
                let g = self
                    .global_of(callable)
                    .ok_or_else(|| self.bad(format!("REDUCE calls {}", self.describe(callable))))?;
                let given = self
                    .tuple(args)
                    .ok_or_else(|| self.bad("REDUCE arguments are not a tuple"))?
                    .len();
                // Python raises TypeError here, before anything is copied: the copy
                // below is at most `max_args` refs.
                self.check_arity(g, given)?;
                let args = self.tuple(args).map(<[Ref]>::to_vec).unwrap_or_default();
                let r = self.call(g, &args)?;
                self.push(r)?;
            }
            Opcode::Inst => {
                let module = self.text_line()?;
                let name = self.text_line()?;
                let g = lookup(&module, &name)?;
                let args = self.pop_mark()?;
                self.check_arity(g, args.len())?;
                let r = self.call(g, &args)?;
                self.push(r)?;
            }
            Opcode::Obj => {
                let mut items = self.pop_mark()?;
                if items.is_empty() {
                    return Err(self.bad("OBJ needs a class"));
                }
                let cls = items.remove(0);
                let g = self
                    .global_of(cls)
                    .ok_or_else(|| self.bad(format!("OBJ calls {}", self.describe(cls))))?;
                self.check_arity(g, items.len())?;
                let r = self.call(g, &items)?;
                self.push(r)?;
            }
            Opcode::NewObj | Opcode::NewObjEx => {
                let name = op.name();
                if op == Opcode::NewObjEx {
                    self.pop()?; // kwargs
                }
                self.pop()?; // args
                let cls = self.pop()?;
                return Err(match self.global_of(cls) {
                    Some(g) => {
                        let (m, n) = g.path();
                        self.unsupported(
                            format!("{name} on {m}.{n}"),
                            "numpy's pickles never create objects this way",
                        )
                    }
                    None => self.bad(format!("{name} on {}", self.describe(cls))),
                });
            }
            Opcode::Build => {
                let state = self.pop()?;
                let target = self.peek()?;
                self.build(target, state)?;
            }
            other => return Err(self.not_in(other, "call")),
        }
        Ok(())
    }

    fn decimal(&mut self, s: &str) -> Result<Ref, PickleError> {
        let s = s.trim();
        if let Ok(i) = s.parse::<i64>() {
            return Ok(Ref::Int(i));
        }
        let digits = s.trim_start_matches(['-', '+']);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.bad(format!("not a decimal int: {:?}", truncate(s))));
        }
        if digits.len() > MAX_INT_DIGITS {
            return Err(self.bad(format!(
                "an int of {} decimal digits (Python's limit is {MAX_INT_DIGITS})",
                digits.len()
            )));
        }
        let b: BigInt = s
            .trim_start_matches('+')
            .parse()
            .map_err(|_| self.bad("not a decimal int"))?;
        self.charge(b.bits() / 8)?;
        self.node(Node::BigInt(b))
    }

    fn long(&mut self, n: u64) -> Result<Ref, PickleError> {
        // The digits (a copy of the argument) before they are built: the node charges them
        // again below.
        self.charge(n)?;
        let b = self.take(n, "the bytes of a LONG")?;
        let b = BigInt::from_signed_bytes_le(b);
        Ok(match i64::try_from(&b) {
            Ok(i) => Ref::Int(i),
            Err(_) => self.node(Node::BigInt(b))?,
        })
    }

    fn bytes_op(&mut self, n: u64, bytearray: bool) -> Result<(), PickleError> {
        let b = self.take(n, "the bytes of a bytes opcode")?.to_vec();
        let r = self.node(if bytearray {
            Node::ByteArray(b)
        } else {
            Node::Bytes(b)
        })?;
        self.push(r)?;
        Ok(())
    }

    fn unicode_op(&mut self, n: u64) -> Result<(), PickleError> {
        let b = self.take(n, "the text of a unicode opcode")?;
        let s = match std::str::from_utf8(b) {
            Ok(s) => s.to_owned(),
            Err(_) => return Err(self.bad(
                "text is not UTF-8 (a lone surrogate, which this reader does not keep, or garbage)",
            )),
        };
        let r = self.node(Node::Str(s))?;
        self.push(r)?;
        Ok(())
    }

    fn pairs(&self, items: Vec<Ref>) -> Result<Vec<(Ref, Ref)>, PickleError> {
        if !items.len().is_multiple_of(2) {
            return Err(self.bad("an odd number of items for key/value pairs"));
        }
        let mut out = Vec::with_capacity(items.len() / 2);
        let mut it = items.into_iter();
        while let (Some(k), Some(v)) = (it.next(), it.next()) {
            out.push((k, v));
        }
        Ok(out)
    }

    fn extend(&mut self, items: Vec<Ref>) -> Result<(), PickleError> {
        let target = self.peek()?;
        if let Ref::Node(i) = target {
            if matches!(self.nodes.get(i), Some(Node::List(_))) {
                self.charge(REF.saturating_mul(items.len() as u64))?;
            }
            if let Some(Node::List(l)) = self.nodes.get_mut(i) {
                l.extend(items);
                return Ok(());
            }
        }
        Err(self.bad(format!("APPEND to {}, not a list", self.describe(target))))
    }

    fn set_items(&mut self, pairs: Vec<(Ref, Ref)>) -> Result<(), PickleError> {
        let target = self.peek()?;
        if let Ref::Node(i) = target {
            if matches!(self.nodes.get(i), Some(Node::Dict(_))) {
                self.charge(2 * REF.saturating_mul(pairs.len() as u64))?;
            }
            if let Some(Node::Dict(d)) = self.nodes.get_mut(i) {
                d.extend(pairs);
                return Ok(());
            }
        }
        Err(self.bad(format!("SETITEM on {}, not a dict", self.describe(target))))
    }

    fn memo_index(&self, l: &str) -> Result<u32, PickleError> {
        l.trim()
            .parse()
            .map_err(|_| self.bad("memo index is not a number below 2**32"))
    }

    fn put(&mut self, i: u32) -> Result<(), PickleError> {
        let r = self.peek()?;
        if self.memo.insert(i, r).is_none() {
            self.charge(MEMO_ENTRY)?;
        }
        Ok(())
    }

    fn memo_get(&mut self, i: u32) -> Result<(), PickleError> {
        let r = *self
            .memo
            .get(&i)
            .ok_or_else(|| self.bad(format!("memo entry {i} does not exist")))?;
        self.push(r)?;
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // allowed globals
    // -----------------------------------------------------------------------------------------

    /// Python's `TypeError` for more arguments than the constructor takes, before they are
    /// copied or looked at.
    fn check_arity(&self, g: PyGlobal, given: usize) -> Result<(), PickleError> {
        let most = max_args(g);
        if given > most {
            let (m, n) = g.path();
            return Err(self.unsupported(
                format!("{m}.{n}"),
                format!("takes at most {most} arguments ({given} given)"),
            ));
        }
        Ok(())
    }

    fn call(&mut self, g: PyGlobal, args: &[Ref]) -> Result<Ref, PickleError> {
        let (m, n) = g.path();
        let wrong = |vm: &Self, why: &str| vm.unsupported(format!("{m}.{n}"), why.to_owned());
        let node = match g {
            PyGlobal::Reconstruct => {
                if args.first().and_then(|&a| self.global_of(a)) != Some(PyGlobal::NdArray) {
                    return Err(wrong(self, "only numpy.ndarray is rebuilt (no subclasses)"));
                }
                Node::Array(None)
            }
            PyGlobal::DType => {
                let typestr = args
                    .first()
                    .and_then(|&a| self.text(a))
                    .ok_or_else(|| wrong(self, "the type string is not a str"))?
                    .to_owned();
                Node::DType {
                    typestr,
                    built: None,
                }
            }
            PyGlobal::NdArray => return Err(wrong(self, "arrays are rebuilt with _reconstruct")),
            PyGlobal::Scalar => {
                let dtype = match args.first().and_then(|&a| self.get(a)) {
                    Some(Node::DType { typestr, built }) => match built {
                        Some(d) => {
                            self.charge(dtype_weight(d))?;
                            d.clone()
                        }
                        None => self.resolve_dtype(typestr, None)?,
                    },
                    _ => return Err(wrong(self, "the first argument is not a dtype")),
                };
                if dtype.has_object() {
                    return Err(wrong(self, "object scalars are not rebuilt"));
                }
                let bytes = match args.get(1).and_then(|&a| self.get(a)) {
                    Some(Node::Bytes(b)) if b.len() as u64 == dtype.itemsize() => {
                        // The copy of the bytes, and the value they decode to (a subarray
                        // field is a value per element, 48 bytes for each byte of `u1`):
                        // charged before either is made.
                        self.charge(decoded_bytes(&dtype).saturating_add(b.len() as u64))?;
                        b.clone()
                    }
                    Some(Node::Bytes(_)) => {
                        return Err(wrong(self, "the bytes are not one element of the dtype"))
                    }
                    _ => return Err(wrong(self, "the second argument is not bytes")),
                };
                let value = decode_all(&dtype, &bytes, 1)
                    .map_err(|e| wrong(self, &e.to_string()))?
                    .pop()
                    .ok_or_else(|| wrong(self, "no value"))?;
                Node::Scalar(NpyScalar { dtype, value })
            }
            PyGlobal::FromBuffer => {
                let [buf, dtype, shape, order, ..] = args else {
                    return Err(wrong(self, "needs buffer, dtype, shape and order"));
                };
                if args.len() > 5 || args.get(4).is_some_and(|&a| a != Ref::None) {
                    return Err(wrong(
                        self,
                        "non-contiguous layouts (axis_order) are not rebuilt",
                    ));
                }
                let fortran = match self.text(*order) {
                    Some("C") => false,
                    Some("F") => true,
                    _ => return Err(wrong(self, "order is not 'C' or 'F'")),
                };
                let dtype = self.array_dtype(*dtype)?;
                let shape = self
                    .shape(*shape)
                    .ok_or_else(|| wrong(self, "the shape is not a tuple of ints"))?;
                let raw = match self.get(*buf) {
                    Some(Node::Bytes(b) | Node::ByteArray(b)) => {
                        self.charge(b.len() as u64)?;
                        b.clone()
                    }
                    _ => return Err(wrong(self, "the buffer is not bytes")),
                };
                let data = self.array_node(shape, dtype, fortran, ArrayData::Raw(raw))?;
                Node::Array(Some(data))
            }
            PyGlobal::StringDType => {
                let coerce = args
                    .first()
                    .and_then(|&a| self.int(a))
                    .ok_or_else(|| wrong(self, "coerce is not a bool"))?;
                if args.len() > 2 {
                    return Err(wrong(self, "too many arguments"));
                }
                Node::StringDType {
                    coerce: coerce != 0,
                    na_object: args.get(1).copied(),
                }
            }
            PyGlobal::Complex => {
                let part = |i: usize| match args.get(i) {
                    None => Some(0.0),
                    Some(&a) => self.number(a),
                };
                match (part(0), part(1), args.len() <= 2) {
                    (Some(re), Some(im), true) => Node::Complex(re, im),
                    _ => return Err(wrong(self, "arguments are not two real numbers")),
                }
            }
            PyGlobal::Set | PyGlobal::FrozenSet => {
                let items = match args {
                    [] => Vec::new(),
                    [it] => {
                        let items = self.items(*it).ok_or_else(|| {
                            wrong(self, "the argument is not a list, tuple or set")
                        })?;
                        // Charged by `node` below too: the copy, before it is made.
                        self.charge(REF * items.len() as u64)?;
                        items.to_vec()
                    }
                    _ => return Err(wrong(self, "too many arguments")),
                };
                if g == PyGlobal::Set {
                    Node::Set(items)
                } else {
                    Node::FrozenSet(items)
                }
            }
            PyGlobal::ByteArray => {
                let b = match args {
                    [] => Vec::new(),
                    [b] => match self.get(*b) {
                        Some(Node::Bytes(b) | Node::ByteArray(b)) => {
                            self.charge(b.len() as u64)?;
                            b.clone()
                        }
                        _ => return Err(wrong(self, "the argument is not bytes")),
                    },
                    [s, enc] => self.encode(*s, *enc).map_err(|why| wrong(self, why))?,
                    _ => return Err(wrong(self, "too many arguments")),
                };
                Node::ByteArray(b)
            }
            PyGlobal::Bytes => match args {
                [] => Node::Bytes(Vec::new()),
                [b] => match self.get(*b) {
                    Some(Node::Bytes(b) | Node::ByteArray(b)) => {
                        self.charge(b.len() as u64)?;
                        Node::Bytes(b.clone())
                    }
                    _ => return Err(wrong(self, "the argument is not bytes")),
                },
                _ => return Err(wrong(self, "too many arguments")),
            },
            PyGlobal::Encode => {
                let [s, enc] = args else {
                    return Err(wrong(self, "needs a str and an encoding"));
                };
                let b = self.encode(*s, *enc).map_err(|why| wrong(self, why))?;
                Node::Bytes(b)
            }
            PyGlobal::Range => {
                let ints: Option<Vec<i64>> = args.iter().map(|&a| self.int(a)).collect();
                match ints.as_deref() {
                    Some([stop]) => Node::Range(0, *stop, 1),
                    Some([start, stop]) => Node::Range(*start, *stop, 1),
                    Some([_, _, 0]) => return Err(wrong(self, "range() step must not be zero")),
                    Some([start, stop, step]) => Node::Range(*start, *stop, *step),
                    _ => return Err(wrong(self, "arguments are not 1 to 3 ints of 64 bits")),
                }
            }
            PyGlobal::Slice => match args {
                [stop] => Node::Slice([Ref::None, *stop, Ref::None]),
                [a, b] => Node::Slice([*a, *b, Ref::None]),
                [a, b, c] => Node::Slice([*a, *b, *c]),
                _ => return Err(wrong(self, "needs 1 to 3 arguments")),
            },
        };
        self.node(node)
    }

    /// `_codecs.encode(s, 'latin1')`: the code points of `s`, each below 256.
    fn encode(&self, s: Ref, enc: Ref) -> Result<Vec<u8>, &'static str> {
        let Some(Node::Str(s)) = self.get(s) else {
            return Err("the first argument is not a str");
        };
        match self.text(enc) {
            Some("latin1" | "latin-1" | "iso-8859-1" | "iso8859-1") => {}
            _ => return Err("only the latin-1 encoding is supported"),
        }
        s.chars()
            .map(|c| u8::try_from(u32::from(c)).map_err(|_| "a character past U+00FF for latin-1"))
            .collect()
    }

    /// A dtype argument: a built numpy dtype, or `None` for `StringDType`.
    fn array_dtype(&self, r: Ref) -> Result<Option<DType>, PickleError> {
        match self.get(r) {
            Some(Node::DType { typestr, built }) => match built {
                Some(d) => {
                    // A dtype used many times (fields of fields, one per scalar) is copied each
                    // time: its size counts each time.
                    self.charge(dtype_weight(d))?;
                    Ok(Some(d.clone()))
                }
                None => self.resolve_dtype(typestr, None).map(Some),
            },
            Some(Node::StringDType { .. }) => Ok(None),
            _ => Err(self.bad(format!("{} where a dtype belongs", self.describe(r)))),
        }
    }

    fn array_node(
        &self,
        shape: Vec<u64>,
        dtype: Option<DType>,
        fortran: bool,
        data: ArrayData,
    ) -> Result<ArrayNode, PickleError> {
        if shape.len() > MAX_DIMS {
            return Err(self.bad("an array of more than 64 dimensions"));
        }
        let len = shape
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d))
            .ok_or_else(|| self.bad("the array's size overflows"))?;
        let object = dtype.as_ref().is_none_or(DType::has_object);
        match &data {
            ArrayData::Items(items) if object => {
                if items.len() as u64 != len {
                    return Err(self.bad(format!(
                        "{} items for an array of shape {shape:?}",
                        items.len()
                    )));
                }
            }
            ArrayData::Raw(raw) if !object => {
                let itemsize = dtype.as_ref().map_or(0, DType::itemsize);
                if len.checked_mul(itemsize) != Some(raw.len() as u64) {
                    return Err(self.bad(format!(
                        "{} data bytes for an array of shape {shape:?} and itemsize {itemsize}",
                        raw.len()
                    )));
                }
            }
            ArrayData::Items(_) => {
                return Err(self.bad("a list of items for an array without objects"))
            }
            ArrayData::Raw(_) => return Err(self.bad("raw bytes for an array of objects")),
        }
        Ok(ArrayNode {
            shape,
            dtype,
            fortran,
            len,
            data,
        })
    }

    fn build(&mut self, target: Ref, state: Ref) -> Result<(), PickleError> {
        let Ref::Node(idx) = target else {
            return Err(self.unsupported(
                format!("BUILD on {}", self.describe(target)),
                "only arrays and dtypes have state",
            ));
        };
        match self.nodes.get(idx) {
            Some(Node::Array(None)) => {
                let st = self
                    .tuple(state)
                    .ok_or_else(|| self.bad("array state is not a tuple"))?;
                let (shape, dtype, fortran, data) = match st {
                    [_, s, d, f, x] | [s, d, f, x] => (*s, *d, *f, *x),
                    _ => {
                        return Err(
                            self.bad("array state is not (version, shape, dtype, fortran, data)")
                        )
                    }
                };
                let shape = self
                    .shape(shape)
                    .ok_or_else(|| self.bad("array shape is not a tuple of ints"))?;
                let dtype = self.array_dtype(dtype)?;
                let fortran = self
                    .int(fortran)
                    .ok_or_else(|| self.bad("the Fortran flag is not a bool"))?
                    != 0;
                let object = dtype.as_ref().is_none_or(DType::has_object);
                let data = match self.get(data) {
                    Some(Node::List(items)) if object => ArrayData::Items(items.clone()),
                    Some(Node::Bytes(b) | Node::ByteArray(b)) if !object => {
                        ArrayData::Raw(b.clone())
                    }
                    Some(Node::Str(s)) if !object => {
                        // Python 2 pickles decoded with encoding='latin1'.
                        ArrayData::Raw(s.chars().map(|c| u32::from(c) as u8).collect())
                    }
                    _ => return Err(self.bad(format!("array data is {}", self.describe(data)))),
                };
                let cost = match &data {
                    ArrayData::Items(v) => 16 * v.len() as u64,
                    ArrayData::Raw(b) => b.len() as u64,
                };
                self.charge(cost)?;
                let node = self.array_node(shape, dtype, fortran, data)?;
                self.nodes[idx] = Node::Array(Some(node));
                Ok(())
            }
            Some(Node::DType {
                typestr,
                built: None,
            }) => {
                let typestr = typestr.clone();
                // Borrowed, not copied: a memoised state tuple of any length may be given to
                // every dtype of the pickle, and only its first nine items are read.
                let st = self
                    .tuple(state)
                    .ok_or_else(|| self.bad("dtype state is not a tuple"))?;
                let dt = self.resolve_dtype(&typestr, Some(st))?;
                self.nodes[idx] = Node::DType {
                    typestr,
                    built: Some(dt),
                };
                Ok(())
            }
            _ => Err(self.unsupported(
                format!("BUILD on {}", self.describe(target)),
                "only arrays and dtypes have state, once",
            )),
        }
    }

    /// A numpy dtype from `dtype(typestr)` and its `BUILD` state
    /// `(version, endian, subarray, names, fields, elsize, alignment, flags[, metadata])`.
    fn resolve_dtype(&self, typestr: &str, state: Option<&[Ref]>) -> Result<DType, PickleError> {
        let bad = |why: String| self.unsupported(format!("numpy.dtype({typestr:?})"), why);
        let get = |i: usize| state.and_then(|s| s.get(i).copied());
        if let Some(s) = state {
            match s.first().and_then(|&v| self.int(v)) {
                Some(3 | 4) if s.len() >= 8 => {}
                _ => return Err(bad("dtype state of an unknown version".into())),
            }
        }
        // numpy's '=' is the machine's order, as is '|' for a dtype that has one.
        let order = match get(1).map(|r| self.text(r)) {
            None | Some(Some("<" | "=")) => ByteOrder::Little,
            Some(Some(">")) => ByteOrder::Big,
            Some(Some("|")) => ByteOrder::NATIVE,
            Some(_) => return Err(bad("byte order is not one of < > | =".into())),
        };
        let elsize = get(5).and_then(|r| self.int(r)).unwrap_or(-1);
        // A subarray: (base, shape).
        if let Some(sub) = get(2).filter(|&r| r != Ref::None) {
            let [base, shape] = self
                .tuple(sub)
                .ok_or_else(|| bad("subarray is not a tuple".into()))?
            else {
                return Err(bad("subarray is not (base, shape)".into()));
            };
            let base = self
                .array_dtype(*base)?
                .ok_or_else(|| bad("a subarray of StringDType".into()))?;
            let shape = self
                .shape(*shape)
                .ok_or_else(|| bad("subarray shape is not a tuple of ints".into()))?;
            return SubArray::new(base, shape)
                .map(DType::SubArray)
                .map_err(|e| bad(e.to_string()));
        }
        // A record: names and fields.
        if let Some(names) = get(3).filter(|&r| r != Ref::None) {
            let names = self
                .tuple(names)
                .ok_or_else(|| bad("names are not a tuple".into()))?;
            let Some(Node::Dict(fields)) = get(4).and_then(|r| self.get(r)) else {
                return Err(bad("fields are not a dict".into()));
            };
            self.charge(32 * (fields.len() + names.len()) as u64)?;
            let by_name: HashMap<&str, Ref> = fields
                .iter()
                .filter_map(|(k, v)| Some((self.text(*k)?, *v)))
                .collect();
            let mut out = Vec::with_capacity(names.len());
            for &n in names {
                let name = self
                    .text(n)
                    .ok_or_else(|| bad("a field name is not a str".into()))?;
                let entry = by_name
                    .get(name)
                    .and_then(|&v| self.tuple(v))
                    .ok_or_else(|| bad(format!("field {name:?} is not in the fields dict")))?;
                let (dt, offset, title) = match entry {
                    [d, o] => (*d, *o, None),
                    [d, o, t] => (*d, *o, Some(*t)),
                    _ => return Err(bad(format!("field {name:?} is not (dtype, offset)"))),
                };
                let dtype = self
                    .array_dtype(dt)?
                    .ok_or_else(|| bad("a StringDType field".into()))?;
                let offset = self
                    .int(offset)
                    .and_then(|o| u64::try_from(o).ok())
                    .ok_or_else(|| bad(format!("field {name:?} has a bad offset")))?;
                let title = match title {
                    None | Some(Ref::None) => None,
                    Some(t) => Some(
                        self.text(t)
                            .ok_or_else(|| bad("a title is not a str".into()))?
                            .to_owned(),
                    ),
                };
                out.push(Field {
                    name: name.into(),
                    title,
                    dtype,
                    offset,
                });
            }
            out.sort_by_key(|f| f.offset);
            let itemsize = u64::try_from(elsize).map_err(|_| bad("negative itemsize".into()))?;
            return Record::new(out, itemsize)
                .map(DType::Record)
                .map_err(|e| bad(e.to_string()));
        }
        let mut chars = typestr.chars();
        let kind = chars
            .next()
            .ok_or_else(|| bad("empty type string".into()))?;
        let size: Option<u64> = chars.as_str().parse().ok();
        let flexible = |unit: u64| -> Result<u64, PickleError> {
            match (u64::try_from(elsize), size) {
                (Ok(e), _) => Ok(e / unit),
                (_, Some(s)) => Ok(s),
                _ => Err(bad("no itemsize".into())),
            }
        };
        let dtype = match kind {
            'O' => DType::Object,
            'S' | 'a' => DType::Bytes(flexible(1)?),
            'V' => DType::Void(flexible(1)?),
            'U' => {
                // numpy keeps the itemsize (4 bytes a character) in a C int.
                let chars = flexible(4)?;
                if chars > i32::MAX as u64 / 4 {
                    return Err(bad(
                        "itemsize exceeds numpy's limit of 2147483647 bytes".into()
                    ));
                }
                DType::Unicode(chars, order)
            }
            'b' => DType::Number(Primitive::Bool, ByteOrder::NotApplicable),
            'i' | 'u' | 'f' | 'c' => {
                let primitive = size
                    .and_then(|n| number(kind, n))
                    .ok_or_else(|| bad("not a number type numpy writes".into()))?;
                // One-byte numbers have no byte order, whatever the state says.
                if primitive.itemsize() == 1 {
                    DType::Number(primitive, ByteOrder::NotApplicable)
                } else {
                    DType::Number(primitive, order)
                }
            }
            'M' | 'm' => {
                let (unit, multiplier) = match get(8) {
                    Some(meta) => self.time_unit(meta).map_err(|why| bad(why.into()))?,
                    None => (TimeUnit::Generic, 1),
                };
                let kind = if kind == 'M' {
                    TimeKind::Datetime
                } else {
                    TimeKind::Timedelta
                };
                DType::Time(
                    TimeType {
                        kind,
                        unit,
                        multiplier,
                    },
                    order,
                )
            }
            _ => return Err(bad("unknown kind".into())),
        };
        // What the caller keeps (a dtype value of the tree, an array's or scalar's dtype):
        // records and subarrays above charged their parts, this is the one node.
        self.charge(dtype_weight(&dtype))?;
        Ok(dtype)
    }

    /// The unit and multiplier of datetime metadata `(None, (b'ms', 10, 1, 1))`: the generic
    /// unit when the metadata has another form (as numpy's `M8` without one).
    ///
    /// # Errors
    /// A unit code numpy does not have, a multiplier outside a C int.
    fn time_unit(&self, meta: Ref) -> Result<(TimeUnit, u32), &'static str> {
        let parts = || -> Option<(&str, i64)> {
            let [_, unit] = self.tuple(meta)? else {
                return None;
            };
            let unit = self.tuple(*unit)?;
            Some((self.text(*unit.first()?)?, self.int(*unit.get(1)?)?))
        };
        let Some((code, num)) = parts() else {
            return Ok((TimeUnit::Generic, 1));
        };
        if code == "generic" {
            return Ok((TimeUnit::Generic, 1));
        }
        let unit = TIME_UNITS
            .iter()
            .copied()
            .find(|u| u.code() == code || (code == "\u{3bc}s" && *u == TimeUnit::Microsecond))
            .ok_or("invalid datetime unit")?;
        // A C int, not negative.
        let multiplier = i32::try_from(num)
            .ok()
            .and_then(|m| u32::try_from(m).ok())
            .ok_or("invalid datetime metadata")?;
        Ok((unit, multiplier))
    }

    // -----------------------------------------------------------------------------------------
    // materialising
    // -----------------------------------------------------------------------------------------

    /// The least [`Vm::materialize`] charges for `root`: a value per copy of every value, and
    /// the refs, text and bytes each copy of a container, str or bytes takes (saturating). One
    /// pass over the nodes, each summed once however often it is shared; without recursion,
    /// so any depth is fine; a node met again while it is being summed (a value that contains
    /// itself, which materialising refuses) adds nothing. Its table, 8 bytes a node, is
    /// charged.
    fn tree_floor(&self, root: Ref) -> Result<u64, PickleError> {
        const OBJ: u64 = std::mem::size_of::<PyObject>() as u64;
        const TODO: u64 = u64::MAX;
        const BUSY: u64 = u64::MAX - 1;
        let Ref::Node(root) = root else {
            return Ok(OBJ);
        };
        self.charge(8 * self.nodes.len() as u64)?;
        let mut floor = vec![TODO; self.nodes.len()];
        // The k-th value node i holds.
        let child = |i: usize, k: usize| -> Option<Ref> {
            match &self.nodes[i] {
                Node::List(v) | Node::Tuple(v) | Node::Set(v) | Node::FrozenSet(v) => {
                    v.get(k).copied()
                }
                Node::Dict(d) => d
                    .get(k / 2)
                    .map(|&(key, v)| if k.is_multiple_of(2) { key } else { v }),
                Node::Slice(s) => s.get(k).copied(),
                Node::StringDType { na_object, .. } => na_object.filter(|_| k == 0),
                Node::Array(Some(ArrayNode {
                    data: ArrayData::Items(v),
                    ..
                })) => v.get(k).copied(),
                _ => None,
            }
        };
        let own = |i: usize| -> u64 {
            OBJ.saturating_add(match &self.nodes[i] {
                Node::Str(s) => s.len() as u64,
                Node::Bytes(b) | Node::ByteArray(b) => b.len() as u64,
                Node::List(v) | Node::Tuple(v) | Node::Set(v) | Node::FrozenSet(v) => {
                    REF.saturating_mul(v.len() as u64)
                }
                // Charged twice: the copy of the pairs, and the pairs being built.
                Node::Dict(d) => 4 * REF.saturating_mul(d.len() as u64),
                _ => 0,
            })
        };
        // Post-order: each node's sum, its children's first. Each entry: the node, the next
        // child to look at, the sum so far. Its depth is at most the number of nodes, which
        // are charged 64 bytes or more each: the stack's 24 bytes an entry are within that.
        let mut stack = vec![(root, 0usize, own(root))];
        floor[root] = BUSY;
        while let Some(top) = stack.last_mut() {
            let (i, k) = (top.0, top.1);
            top.1 += 1;
            match child(i, k) {
                None => {
                    let (i, _, sum) = top.to_owned();
                    stack.pop();
                    floor[i] = sum;
                    if let Some(parent) = stack.last_mut() {
                        parent.2 = parent.2.saturating_add(sum);
                    }
                }
                Some(Ref::Node(j)) => match floor[j] {
                    TODO => {
                        floor[j] = BUSY;
                        stack.push((j, 0, own(j)));
                    }
                    BUSY => {}
                    f => top.2 = top.2.saturating_add(f),
                },
                Some(_) => top.2 = top.2.saturating_add(OBJ),
            }
        }
        Ok(floor[root])
    }

    fn materialize(&mut self, r: Ref, depth: usize) -> Result<PyObject, PickleError> {
        if depth > self.max_depth {
            return Err(PickleError::TooDeep {
                limit: self.max_depth,
            });
        }
        const OBJ: u64 = std::mem::size_of::<PyObject>() as u64;
        self.charge(OBJ)?;
        let i = match r {
            Ref::None => return Ok(PyObject::None),
            Ref::Bool(b) => return Ok(PyObject::Bool(b)),
            Ref::Int(i) => return Ok(PyObject::Int(i)),
            Ref::Float(x) => return Ok(PyObject::Float(x)),
            Ref::Node(i) => i,
        };
        if self.visiting.get(i).copied().unwrap_or(false) {
            let memo = self
                .memo
                .iter()
                .find(|(_, v)| **v == r)
                .map_or(0, |(k, _)| u64::from(*k));
            return Err(PickleError::Recursive { memo });
        }
        self.visiting[i] = true;
        let out = self.materialize_node(i, depth);
        self.visiting[i] = false;
        out
    }

    fn many(&mut self, refs: &[Ref], depth: usize) -> Result<Vec<PyObject>, PickleError> {
        // Grown as each value is charged, not reserved ahead of the charges.
        let mut out = Vec::new();
        for &r in refs {
            out.push(self.materialize(r, depth + 1)?);
        }
        Ok(out)
    }

    fn materialize_node(&mut self, i: usize, depth: usize) -> Result<PyObject, PickleError> {
        // Take what the node holds by cheap clones of refs; values are built below.
        enum Plan {
            Done(PyObject),
            Seq(u8, Vec<Ref>),
            Dict(Vec<(Ref, Ref)>),
            Slice([Ref; 3]),
            StringDType(bool, Option<Ref>),
            Array(usize),
        }
        let plan = match &self.nodes[i] {
            Node::Str(s) => {
                self.charge(s.len() as u64)?;
                Plan::Done(PyObject::Str(s.clone()))
            }
            Node::Bytes(b) => {
                self.charge(b.len() as u64)?;
                Plan::Done(PyObject::Bytes(b.clone()))
            }
            Node::ByteArray(b) => {
                self.charge(b.len() as u64)?;
                Plan::Done(PyObject::ByteArray(b.clone()))
            }
            Node::BigInt(b) => {
                self.charge(b.bits() / 8 + 32)?;
                Plan::Done(PyObject::from_bigint(b.clone()))
            }
            Node::Complex(re, im) => Plan::Done(PyObject::Complex(*re, *im)),
            Node::Range(a, b, c) => Plan::Done(PyObject::Range(*a, *b, *c)),
            Node::Global(g) => Plan::Done(PyObject::Global(*g)),
            // The refs are copied (a node may be reached again below): charged first.
            Node::List(v) | Node::Tuple(v) | Node::Set(v) | Node::FrozenSet(v) => {
                self.charge(REF * v.len() as u64)?;
                let kind = match &self.nodes[i] {
                    Node::List(_) => 0,
                    Node::Tuple(_) => 1,
                    Node::Set(_) => 2,
                    _ => 3,
                };
                Plan::Seq(kind, v.clone())
            }
            Node::Dict(d) => {
                self.charge(2 * REF * d.len() as u64)?;
                Plan::Dict(d.clone())
            }
            Node::Slice(s) => Plan::Slice(*s),
            Node::DType { typestr, built } => {
                let dt = match built {
                    Some(d) => {
                        self.charge(dtype_weight(d))?;
                        d.clone()
                    }
                    None => self.resolve_dtype(&typestr.clone(), None)?,
                };
                Plan::Done(PyObject::DType(Box::new(PyDType::Numpy(dt))))
            }
            Node::StringDType { coerce, na_object } => Plan::StringDType(*coerce, *na_object),
            Node::Scalar(s) => {
                // Each reference to a shared scalar is a copy of its value and dtype.
                self.charge(decoded_bytes(&s.dtype).saturating_add(dtype_weight(&s.dtype)))?;
                Plan::Done(PyObject::Scalar(Box::new(s.clone())))
            }
            Node::Array(None) => {
                return Err(PickleError::Malformed {
                    offset: 0,
                    opcode: "BUILD".into(),
                    reason: "an array from _reconstruct was never given its state".into(),
                })
            }
            Node::Array(Some(_)) => Plan::Array(i),
        };
        Ok(match plan {
            Plan::Done(v) => v,
            Plan::Seq(kind, refs) => {
                let items = self.many(&refs, depth)?;
                match kind {
                    0 => PyObject::List(items),
                    1 => PyObject::Tuple(items),
                    2 => PyObject::Set(dedup_set(items, &|b| self.charge(b))?),
                    _ => PyObject::FrozenSet(dedup_set(items, &|b| self.charge(b))?),
                }
            }
            Plan::Dict(pairs) => {
                self.charge(2 * REF * pairs.len() as u64)?;
                let mut out = Vec::new();
                for (k, v) in pairs {
                    let k = self.materialize(k, depth + 1)?;
                    // Python's TypeError at SETITEM: before the value is built.
                    check_hashable(&k, &|b| self.charge(b))?;
                    let v = self.materialize(v, depth + 1)?;
                    out.push((k, v));
                }
                PyObject::Dict(dedup_dict(out, &|b| self.charge(b))?)
            }
            Plan::Slice([a, b, c]) => PyObject::Slice(Box::new([
                self.materialize(a, depth + 1)?,
                self.materialize(b, depth + 1)?,
                self.materialize(c, depth + 1)?,
            ])),
            Plan::StringDType(coerce, na) => {
                let na_object = match na {
                    Some(r) => Some(Box::new(self.materialize(r, depth + 1)?)),
                    None => None,
                };
                PyObject::DType(Box::new(PyDType::String { coerce, na_object }))
            }
            Plan::Array(i) => PyObject::Array(Box::new(self.materialize_array(i, depth)?)),
        })
    }

    fn materialize_array(&mut self, i: usize, depth: usize) -> Result<DynArray, PickleError> {
        const DYN: u64 = std::mem::size_of::<DynValue>() as u64;
        let Node::Array(Some(a)) = &self.nodes[i] else {
            return Err(PickleError::Malformed {
                offset: 0,
                opcode: "BUILD".into(),
                reason: "not an array".into(),
            });
        };
        let (shape, dtype, fortran, len) = (a.shape.clone(), a.dtype.clone(), a.fortran, a.len);
        self.charge(2 * a.dtype.as_ref().map_or(0, dtype_weight))?;
        let values = match &a.data {
            ArrayData::Raw(raw) => {
                let dt = dtype.clone().unwrap_or(DType::Object);
                self.charge(len.saturating_mul(DYN.saturating_add(dt.itemsize())))?;
                let header = Header {
                    dtype: dt,
                    fortran_order: fortran,
                    shape,
                };
                // The bytes gathered into the array's columns, no value per element.
                return array_from_bytes(header, raw).map_err(|e| PickleError::Malformed {
                    offset: 0,
                    opcode: "BUILD".into(),
                    reason: format!("array data: {e}"),
                });
            }
            ArrayData::Items(items) => {
                self.charge(len.saturating_mul(DYN.saturating_add(REF)))?;
                let items = items.clone();
                let mut values = Vec::with_capacity(items.len());
                for r in items {
                    let obj = self.materialize(r, depth + 1)?;
                    values.push(match &dtype {
                        None | Some(DType::Object) => DynValue::from(obj),
                        Some(dt) => py_to_dyn(obj, dt)?,
                    });
                }
                if fortran && shape.len() > 1 {
                    // Reordered through a second buffer of the values.
                    self.charge(len.saturating_mul(DYN + 8))?;
                    c_to_fortran(values, &shape)
                } else {
                    values
                }
            }
        };
        let header = Header {
            dtype: dtype.unwrap_or(DType::Object),
            fortran_order: fortran,
            shape,
        };
        DynArray::new(header, values).map_err(|e| PickleError::Malformed {
            offset: 0,
            opcode: "BUILD".into(),
            reason: format!("array state: {}", e.kind()),
        })
    }
}

/// Bytes a copy of `dt` takes, roughly: 64 per dtype node plus names and titles.
fn dtype_weight(dt: &DType) -> u64 {
    64 + match dt {
        DType::Record(r) => r.fields().iter().fold(0u64, |acc, f| {
            acc.saturating_add(
                (f.name.len() + f.title.as_ref().map_or(0, String::len)) as u64
                    + dtype_weight(&f.dtype),
            )
        }),
        DType::SubArray(s) => 8 * s.shape().len() as u64 + dtype_weight(s.base()),
        _ => 0,
    }
}

/// The units of datetime64 and timedelta64 but the generic one.
const TIME_UNITS: &[TimeUnit] = &[
    TimeUnit::Year,
    TimeUnit::Month,
    TimeUnit::Week,
    TimeUnit::Day,
    TimeUnit::Hour,
    TimeUnit::Minute,
    TimeUnit::Second,
    TimeUnit::Millisecond,
    TimeUnit::Microsecond,
    TimeUnit::Nanosecond,
    TimeUnit::Picosecond,
    TimeUnit::Femtosecond,
    TimeUnit::Attosecond,
];

/// The number type of a type string's kind and size, as numpy's `np.dtype('f8')` (x86-64:
/// `f16` and `c32` are `longdouble`, `f12` refused).
fn number(kind: char, size: u64) -> Option<Primitive> {
    use Primitive::*;
    Some(match (kind, size) {
        ('i', 1) => I8,
        ('i', 2) => I16,
        ('i', 4) => I32,
        ('i', 8) => I64,
        ('u', 1) => U8,
        ('u', 2) => U16,
        ('u', 4) => U32,
        ('u', 8) => U64,
        ('f', 2) => F16,
        ('f', 4) => F32,
        ('f', 8) => F64,
        ('f', 16) => LongDouble { size: 16 },
        ('c', 8) => C64,
        ('c', 16) => C128,
        ('c', 32) => CLongDouble { size: 32 },
        _ => return None,
    })
}

/// Reorders values listed in C order into Fortran memory order (`values` holds the product of
/// `shape`, which the caller checked).
fn c_to_fortran(values: Vec<DynValue>, shape: &[u64]) -> Vec<DynValue> {
    let mut slots: Vec<Option<DynValue>> = values.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    if shape.contains(&0) {
        return out;
    }
    // C-order strides, in elements.
    let mut strides = vec![0u64; shape.len()];
    let mut stride = 1u64;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = stride;
        stride = stride.saturating_mul(d);
    }
    // The Fortran walk: the first axis moves fastest.
    let mut index = vec![0u64; shape.len()];
    loop {
        let c = index
            .iter()
            .zip(&strides)
            .try_fold(0u64, |acc, (i, s)| acc.checked_add(i.checked_mul(*s)?));
        let slot = c.and_then(|c| usize::try_from(c).ok());
        if let Some(v) = slot.and_then(|c| slots.get_mut(c)).and_then(Option::take) {
            out.push(v);
        }
        let mut axis = 0;
        loop {
            let (Some(i), Some(&d)) = (index.get_mut(axis), shape.get(axis)) else {
                return out;
            };
            *i += 1;
            if *i < d {
                break;
            }
            *i = 0;
            axis += 1;
        }
    }
}

/// A record element (a tuple) or one of its fields as numpy's `item()` gives it, back to a
/// [`DynValue`] of `dtype`.
fn py_to_dyn(obj: PyObject, dtype: &DType) -> Result<DynValue, PickleError> {
    use npy_core::dtype::Primitive as P;
    let mismatch = |obj: &PyObject| PickleError::Malformed {
        offset: 0,
        opcode: "BUILD".into(),
        reason: format!(
            "a record holds {} where its dtype has '{dtype}'",
            obj.type_name()
        ),
    };
    if let PyObject::Scalar(s) = &obj {
        if s.dtype == *dtype {
            return Ok(s.value.clone());
        }
    }
    Ok(match (dtype, obj) {
        (DType::Object, o) => DynValue::from(o),
        (DType::Record(r), PyObject::Tuple(items)) if items.len() == r.fields().len() => {
            let mut out = Vec::with_capacity(items.len());
            for (f, v) in r.fields().iter().zip(items) {
                out.push((f.name.to_string(), py_to_dyn(v, &f.dtype)?));
            }
            DynValue::Record(out)
        }
        (DType::SubArray(_), PyObject::Array(a)) => {
            let a = *a;
            let shape = a.shape().to_vec();
            DynValue::SubArray {
                shape,
                values: a.iter_c_order().map(Cow::into_owned).collect(),
            }
        }
        (DType::Number(P::Bool, _), PyObject::Bool(b)) => DynValue::Bool(b),
        (DType::Number(P::I8 | P::I16 | P::I32 | P::I64, _), PyObject::Int(i)) => DynValue::Int(i),
        (DType::Number(P::U8 | P::U16 | P::U32 | P::U64, _), PyObject::Int(i)) if i >= 0 => {
            DynValue::UInt(i as u64)
        }
        (DType::Number(P::U64, _), PyObject::BigInt(b)) => {
            let u = u64::try_from(&*b).map_err(|_| mismatch(&PyObject::BigInt(b.clone())))?;
            DynValue::UInt(u)
        }
        (DType::Number(P::F16 | P::F32 | P::F64, _), PyObject::Float(x)) => DynValue::Float(x),
        (DType::Number(P::C64 | P::C128, _), PyObject::Complex(re, im)) => {
            DynValue::Complex(re, im)
        }
        (DType::Bytes(_), PyObject::Bytes(b)) => DynValue::Bytes(b),
        (DType::Void(_), PyObject::Bytes(b)) => DynValue::Void(b),
        (DType::Unicode(..), PyObject::Str(s)) => DynValue::Str(UcsString::from(s.as_str())),
        (_, o) => return Err(mismatch(&o)),
    })
}

fn truncate(s: &str) -> String {
    s.chars().take(40).collect()
}

/// Python's `float()` of a text argument.
fn parse_float(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    match lower.trim_start_matches(['+', '-']) {
        "inf" | "infinity" | "nan" => {}
        t if t
            .bytes()
            .all(|b| b.is_ascii_digit() || b".eE+-_".contains(&b))
            && !t.is_empty() => {}
        _ => return None,
    }
    lower.replace('_', "").parse().ok()
}

/// `codecs.escape_decode`: the body of a Python 2 `str` literal.
fn escape_decode(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        i += 1;
        if c != b'\\' || i >= s.len() {
            out.push(c);
            continue;
        }
        let e = s[i];
        i += 1;
        match e {
            b'\n' => {}
            b'\\' | b'\'' | b'"' => out.push(e),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(11),
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                for _ in 0..2 {
                    match s.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push(v as u8);
            }
            b'x' => {
                let hex = s.get(i..i + 2).and_then(|h| std::str::from_utf8(h).ok());
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.extend_from_slice(b"\\x"),
                }
            }
            other => out.extend_from_slice(&[b'\\', other]),
        }
    }
    out
}

/// `raw-unicode-escape`: latin-1 bytes with `\uXXXX` and `\UXXXXXXXX` escapes.
fn raw_unicode_escape(s: &[u8]) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let width = match (c, s.get(i + 1)) {
            (b'\\', Some(b'u')) => 4,
            (b'\\', Some(b'U')) => 8,
            _ => 0,
        };
        if width == 0 {
            out.push(char::from(c));
            i += 1;
            continue;
        }
        let hex = std::str::from_utf8(s.get(i + 2..i + 2 + width)?).ok()?;
        out.push(char::from_u32(u32::from_str_radix(hex, 16).ok()?)?);
        i += 2 + width;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_decode(br"a\x41\n\101\\\'q"), b"aA\nA\\'q");
        assert_eq!(escape_decode(br"\q\x4"), b"\\q\\x4");
        assert_eq!(
            raw_unicode_escape(br"a\u00e9\U0001f600\"),
            Some("aé😀\\".into())
        );
        assert_eq!(raw_unicode_escape(br"\ud800"), None);
    }

    #[test]
    fn fortran_order_of_a_c_list() {
        let v: Vec<DynValue> = (0..6).map(DynValue::Int).collect();
        let f = c_to_fortran(v, &[2, 3]);
        let want: Vec<DynValue> = [0, 3, 1, 4, 2, 5].map(DynValue::Int).to_vec();
        assert_eq!(f, want);
    }
}
