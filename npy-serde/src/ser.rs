//! Serialising: write Python's `repr` of the value directly, with npy-core's repr helpers.

use std::fmt;
use std::io;

use npy_core::__private::{write_repr_bytes, write_repr_float, write_repr_str};
use serde::ser::{self, Serialize};

use crate::error::{Error, Result};

/// Serialises `value` as a Python literal, exactly as Python's `repr` writes the same data.
///
/// Structs and maps become dicts (`{'a': 1, 'b': 2}`), tuples and tuple structs become tuples
/// (`(1,)`, `()`), sequences become lists — except the value of a struct field named `shape`
/// or of a map entry whose key is the str `"shape"`, which becomes a tuple, as the `.npy`
/// header's `shape` must be (numpy refuses a list there; format card, "header"), so a
/// `Vec<u64>` shape writes a header numpy loads, from a struct or a map — `None` and `()`
/// become `None`, bytes become `b'...'`,
/// unit enum variants their name as a str and other variants a one-key dict
/// `{'Variant': value}`.
///
/// # Errors
/// [`Category::Data`](crate::Category::Data) for a float that is infinite or NaN (Python writes
/// `inf` and `nan`, which are not literals; see [`Serializer::non_finite_as_repr`]), for a list
/// or dict used as a dict key (unhashable in Python), and for errors of the `Serialize` impl.
///
/// # Examples
/// ```
/// use serde::Serialize;
///
/// #[derive(Serialize)]
/// struct Header { descr: &'static str, fortran_order: bool, shape: (u64, u64) }
///
/// let h = Header { descr: "<f4", fortran_order: false, shape: (4, 64) };
/// assert_eq!(
///     npy_serde::to_string(&h)?,
///     "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64)}"
/// );
/// // A map's "shape" entry is the header's tuple too.
/// let m = std::collections::BTreeMap::from([("shape", vec![4u64, 64])]);
/// assert_eq!(npy_serde::to_string(&m)?, "{'shape': (4, 64)}");
/// assert_eq!(npy_serde::to_string(&(5,))?, "(5,)");
/// assert_eq!(npy_serde::to_string(&vec![0.5, 1.0, 1e16])?, "[0.5, 1.0, 1e+16]");
/// assert!(npy_serde::to_string(&f64::NAN).is_err());
/// # Ok::<(), npy_serde::Error>(())
/// ```
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    let mut ser = Serializer::new(String::new());
    value.serialize(&mut ser)?;
    Ok(ser.into_inner())
}

/// [`to_string`] as UTF-8 bytes.
///
/// # Errors
/// As [`to_string`].
///
/// # Examples
/// ```
/// assert_eq!(npy_serde::to_vec(&Some("it's"))?, b"\"it's\"");
/// # Ok::<(), npy_serde::Error>(())
/// ```
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    to_string(value).map(String::into_bytes)
}

/// [`to_string`], written to `writer`.
///
/// # Errors
/// As [`to_string`], and [`Category::Io`](crate::Category::Io) when writing fails.
///
/// # Examples
/// ```
/// use std::collections::BTreeMap;
///
/// let mut out = Vec::new();
/// let m = BTreeMap::from([("a", vec![1, 2]), ("b", vec![])]);
/// npy_serde::to_writer(&mut out, &m)?;
/// assert_eq!(out, b"{'a': [1, 2], 'b': []}");
/// # Ok::<(), npy_serde::Error>(())
/// ```
pub fn to_writer<W: io::Write, T: Serialize + ?Sized>(mut writer: W, value: &T) -> Result<()> {
    let text = to_string(value)?;
    writer.write_all(text.as_bytes()).map_err(Error::io)
}

/// A serde `Serializer` writing Python literals to a [`fmt::Write`] (a `String`).
///
/// # Examples
/// ```
/// use serde::Serialize;
/// use npy_serde::Serializer;
///
/// let mut ser = Serializer::new(String::new()).non_finite_as_repr(true);
/// vec![1.5, f64::INFINITY].serialize(&mut ser)?;
/// assert_eq!(ser.into_inner(), "[1.5, inf]");
/// # Ok::<(), npy_serde::Error>(())
/// ```
#[derive(Debug)]
pub struct Serializer<W> {
    out: W,
    non_finite_as_repr: bool,
    /// Greater than 0 while a dict key is being written.
    key_depth: usize,
    /// Set while the value of a struct field or map entry named `shape` is written, until its
    /// sequence (if it is one) opens: that sequence is written as a tuple.
    shape_field: bool,
    /// Set between a map key that is the str `shape` and its value.
    shape_key: bool,
}

impl<W: fmt::Write> Serializer<W> {
    /// A serializer appending to `out`.
    pub fn new(out: W) -> Self {
        Serializer {
            out,
            non_finite_as_repr: false,
            key_depth: 0,
            shape_field: false,
            shape_key: false,
        }
    }

    /// Write infinite and NaN floats as Python's `repr` does (`inf`, `-inf`, `nan`) instead of
    /// failing. The output is then no longer a literal: `ast.literal_eval` and
    /// [`from_str`](crate::from_str) reject it.
    #[must_use]
    pub fn non_finite_as_repr(mut self, yes: bool) -> Self {
        self.non_finite_as_repr = yes;
        self
    }

    /// The output written so far.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn w(&mut self, s: &str) -> Result<()> {
        self.out.write_str(s).map_err(fmt_error)
    }

    fn check_hashable(&self, type_name: &str) -> Result<()> {
        if self.key_depth > 0 {
            return Err(Error::data(format_args!(
                "unhashable dict key of type '{type_name}'"
            )));
        }
        Ok(())
    }

    fn float(&mut self, x: f64) -> Result<()> {
        if !x.is_finite() && !self.non_finite_as_repr {
            let mut repr = String::new();
            let _ = write_repr_float(&mut repr, x);
            return Err(Error::data(format_args!(
                "float {repr} is not a python literal"
            )));
        }
        write_repr_float(&mut self.out, x).map_err(fmt_error)
    }
}

#[cold]
fn fmt_error(_: fmt::Error) -> Error {
    Error::io(io::Error::other("formatter error"))
}

/// The open container of a compound value, which decides how it closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    List,
    Tuple,
    Dict,
    /// `{'Variant': (...)}`
    VariantTuple,
    /// `{'Variant': {...}}`
    VariantDict,
}

/// The state of a list, tuple or dict being written; returned by [`Serializer`]'s methods.
#[derive(Debug)]
pub struct Compound<'a, W> {
    ser: &'a mut Serializer<W>,
    kind: Kind,
    count: usize,
}

impl<W: fmt::Write> Compound<'_, W> {
    fn separator(&mut self) -> Result<()> {
        if self.count > 0 {
            self.ser.w(", ")?;
        }
        self.count += 1;
        Ok(())
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.separator()?;
        value.serialize(&mut *self.ser)
    }

    fn close(self) -> Result<()> {
        let tuple_end = if self.count == 1 { ",)" } else { ")" };
        match self.kind {
            Kind::List => self.ser.w("]"),
            Kind::Tuple => self.ser.w(tuple_end),
            Kind::Dict => self.ser.w("}"),
            Kind::VariantTuple => {
                self.ser.w(tuple_end)?;
                self.ser.w("}")
            }
            Kind::VariantDict => self.ser.w("}}"),
        }
    }
}

impl<'a, W: fmt::Write> ser::Serializer for &'a mut Serializer<W> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, W>;
    type SerializeTuple = Compound<'a, W>;
    type SerializeTupleStruct = Compound<'a, W>;
    type SerializeTupleVariant = Compound<'a, W>;
    type SerializeMap = Compound<'a, W>;
    type SerializeStruct = Compound<'a, W>;
    type SerializeStructVariant = Compound<'a, W>;

    fn serialize_bool(self, v: bool) -> Result<()> {
        self.w(if v { "True" } else { "False" })
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.serialize_i128(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.serialize_i128(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.serialize_i128(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.serialize_i128(v.into())
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        write!(self.out, "{v}").map_err(fmt_error)
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.serialize_u128(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.serialize_u128(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.serialize_u128(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.serialize_u128(v.into())
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        write!(self.out, "{v}").map_err(fmt_error)
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        // The shortest decimal that reads back as this f32, written as Python writes a float
        // (`1.1`, not the f64 widening `1.100000023841858`).
        let x = if v.is_finite() {
            v.to_string().parse::<f64>().unwrap_or(f64::from(v))
        } else {
            f64::from(v)
        };
        self.float(x)
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.float(v)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        write_repr_str(&mut self.out, v).map_err(fmt_error)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        write_repr_bytes(&mut self.out, v).map_err(fmt_error)
    }
    fn serialize_none(self) -> Result<()> {
        self.w("None")
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        self.w("None")
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.w("None")
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
    ) -> Result<()> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.check_hashable("dict")?;
        self.w("{")?;
        self.serialize_str(variant)?;
        self.w(": ")?;
        value.serialize(&mut *self)?;
        self.w("}")
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a, W>> {
        if std::mem::take(&mut self.shape_field) {
            return self.serialize_tuple(len.unwrap_or(0));
        }
        self.check_hashable("list")?;
        self.w("[")?;
        Ok(Compound {
            ser: self,
            kind: Kind::List,
            count: 0,
        })
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'a, W>> {
        self.w("(")?;
        Ok(Compound {
            ser: self,
            kind: Kind::Tuple,
            count: 0,
        })
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a, W>> {
        self.serialize_tuple(len)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, W>> {
        self.check_hashable("dict")?;
        self.w("{")?;
        self.serialize_str(variant)?;
        self.w(": (")?;
        Ok(Compound {
            ser: self,
            kind: Kind::VariantTuple,
            count: 0,
        })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a, W>> {
        self.check_hashable("dict")?;
        self.w("{")?;
        Ok(Compound {
            ser: self,
            kind: Kind::Dict,
            count: 0,
        })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a, W>> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, W>> {
        self.check_hashable("dict")?;
        self.w("{")?;
        self.serialize_str(variant)?;
        self.w(": {")?;
        Ok(Compound {
            ser: self,
            kind: Kind::VariantDict,
            count: 0,
        })
    }
}

impl<W: fmt::Write> ser::SerializeSeq for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.close()
    }
}

impl<W: fmt::Write> ser::SerializeTuple for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.close()
    }
}

impl<W: fmt::Write> ser::SerializeTupleStruct for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.close()
    }
}

impl<W: fmt::Write> ser::SerializeTupleVariant for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.close()
    }
}

impl<W: fmt::Write> ser::SerializeMap for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.separator()?;
        // The key is written apart first, so that an entry keyed by the str 'shape' is known
        // before its value: that value is the header's shape, a tuple as for a struct field
        // (a map's key is any `Serialize`, so its text is the one way to tell).
        let mut text = Serializer {
            out: String::new(),
            non_finite_as_repr: self.ser.non_finite_as_repr,
            key_depth: 1,
            shape_field: false,
            shape_key: false,
        };
        key.serialize(&mut text)?;
        self.ser.shape_key = text.out == "'shape'";
        self.ser.w(&text.out)?;
        self.ser.w(": ")
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.ser.shape_field = std::mem::take(&mut self.ser.shape_key);
        let written = value.serialize(&mut *self.ser);
        self.ser.shape_field = false;
        written
    }
    fn end(self) -> Result<()> {
        self.close()
    }
}

impl<W: fmt::Write> ser::SerializeStruct for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.separator()?;
        self.ser.serialize_str_key(key)?;
        self.ser.shape_field = key == "shape";
        let written = value.serialize(&mut *self.ser);
        self.ser.shape_field = false;
        written
    }
    fn end(self) -> Result<()> {
        self.close()
    }
}

impl<W: fmt::Write> ser::SerializeStructVariant for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.separator()?;
        self.ser.serialize_str_key(key)?;
        value.serialize(&mut *self.ser)
    }
    fn end(self) -> Result<()> {
        self.close()
    }
}

impl<W: fmt::Write> Serializer<W> {
    fn serialize_str_key(&mut self, key: &str) -> Result<()> {
        write_repr_str(&mut self.out, key).map_err(fmt_error)?;
        self.w(": ")
    }
}
