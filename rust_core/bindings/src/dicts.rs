//! Engine values (events) as plain Python objects through serde, the way `pythonize` makes them
//! (structs and variants with fields as dicts, tuples as tuples, unit variants as strings), but
//! with every field and variant name made into a Python string once and kept: `pythonize` makes
//! a fresh string for every key of every dict, and creating and hashing those strings was a
//! large part of what `Game.apply` cost from Python.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use pyo3::BoundObject;
use serde::ser::{self, Impossible, Serialize};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

/// `value` as Python objects (see the module documentation).
pub fn to_py<'py, T: Serialize + ?Sized>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    value.serialize(Ser { py }).map_err(|e| e.0)
}

/// The Python string of a name that serde hands out as `&'static str` (field and variant names),
/// made once and kept for the life of the process, found again by the name's address.
fn name<'py>(py: Python<'py>, name: &'static str) -> Bound<'py, PyString> {
    static NAMES: Mutex<Option<NameMap>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let key = (name.as_ptr() as usize, name.len());
    let string =
        names.get_or_insert_with(NameMap::default).entry(key).or_insert_with(|| PyString::intern(py, name).unbind());
    string.bind(py).clone()
}

/// Names by (address, length): the address is already a good hash.
type NameMap = HashMap<(usize, usize), Py<PyString>, BuildHasherDefault<AddressHasher>>;

#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (self.0 ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A Python error carried through serde.
#[derive(Debug)]
pub struct Error(PyErr);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(pyo3::exceptions::PyValueError::new_err(msg.to_string()))
    }
}

impl From<PyErr> for Error {
    fn from(e: PyErr) -> Self {
        Error(e)
    }
}

type Result<T> = std::result::Result<T, Error>;

#[derive(Clone, Copy)]
struct Ser<'py> {
    py: Python<'py>,
}

impl<'py> Ser<'py> {
    fn object(self, value: impl IntoPyObject<'py>) -> Result<Bound<'py, PyAny>> {
        Ok(value.into_pyobject(self.py).map_err(Into::into)?.into_any().into_bound())
    }

    /// `{variant: value}`, the form of a variant with data.
    fn tagged(self, variant: &'static str, value: Bound<'py, PyAny>) -> Result<Bound<'py, PyAny>> {
        let d = PyDict::new(self.py);
        d.set_item(name(self.py, variant), value)?;
        Ok(d.into_any())
    }
}

impl<'py> ser::Serializer for Ser<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    type SerializeSeq = Items<'py>;
    type SerializeTuple = Items<'py>;
    type SerializeTupleStruct = Items<'py>;
    type SerializeTupleVariant = Impossible<Self::Ok, Error>;
    type SerializeMap = Impossible<Self::Ok, Error>;
    type SerializeStruct = Fields<'py>;
    type SerializeStructVariant = Fields<'py>;

    fn serialize_bool(self, v: bool) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_i8(self, v: i8) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_i16(self, v: i16) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_i32(self, v: i32) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_i64(self, v: i64) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_u8(self, v: u8) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_u16(self, v: u16) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_u32(self, v: u32) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_u64(self, v: u64) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_f32(self, v: f32) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_f64(self, v: f64) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_char(self, v: char) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_str(self, v: &str) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Self::Ok> {
        Ok(pyo3::types::PyBytes::new(self.py, v).into_any())
    }
    fn serialize_none(self) -> Result<Self::Ok> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Self::Ok> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Self::Ok> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Self::Ok> {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<Self::Ok> {
        Ok(name(self.py, variant).into_any())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result<Self::Ok> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Self::Ok> {
        let value = value.serialize(self)?;
        self.tagged(variant, value)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Items<'py>> {
        Ok(Items { ser: self, items: Vec::with_capacity(len.unwrap_or(0)), tuple: false })
    }
    fn serialize_tuple(self, len: usize) -> Result<Items<'py>> {
        Ok(Items { ser: self, items: Vec::with_capacity(len), tuple: true })
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Items<'py>> {
        self.serialize_tuple(len)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(ser::Error::custom("tuple variants are not converted"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        Err(ser::Error::custom("maps are not converted"))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Fields<'py>> {
        Ok(Fields { ser: self, dict: PyDict::new(self.py), variant: None })
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Fields<'py>> {
        Ok(Fields { ser: self, dict: PyDict::new(self.py), variant: Some(variant) })
    }
}

/// A sequence (a list) or a tuple being built.
pub struct Items<'py> {
    ser: Ser<'py>,
    items: Vec<Bound<'py, PyAny>>,
    tuple: bool,
}

impl<'py> Items<'py> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.items.push(value.serialize(self.ser)?);
        Ok(())
    }
    fn finish(self) -> Result<Bound<'py, PyAny>> {
        Ok(if self.tuple {
            PyTuple::new(self.ser.py, self.items)?.into_any()
        } else {
            PyList::new(self.ser.py, self.items)?.into_any()
        })
    }
}

/// serde's compound traits differ only in name: each one forwards to its builder's method
/// (`$add`: push an item, or put a named field) and ends with `finish`.
macro_rules! forward {
    ($builder:ident, $trait:ident, $method:ident => $add:ident) => {
        impl<'py> ser::$trait for $builder<'py> {
            type Ok = Bound<'py, PyAny>;
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.$add(value)
            }
            fn end(self) -> Result<Self::Ok> {
                self.finish()
            }
        }
    };
    ($builder:ident, $trait:ident, $method:ident => $add:ident with key) => {
        impl<'py> ser::$trait for $builder<'py> {
            type Ok = Bound<'py, PyAny>;
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
                self.$add(key, value)
            }
            fn end(self) -> Result<Self::Ok> {
                self.finish()
            }
        }
    };
}

forward!(Items, SerializeSeq, serialize_element => push);
forward!(Items, SerializeTuple, serialize_element => push);
forward!(Items, SerializeTupleStruct, serialize_field => push);

/// A struct (or a struct variant, then wrapped as `{variant: fields}`) being built as a dict.
pub struct Fields<'py> {
    ser: Ser<'py>,
    dict: Bound<'py, PyDict>,
    variant: Option<&'static str>,
}

impl<'py> Fields<'py> {
    fn put<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.dict.set_item(name(self.ser.py, key), value.serialize(self.ser)?)?;
        Ok(())
    }
    fn finish(self) -> Result<Bound<'py, PyAny>> {
        match self.variant {
            Some(variant) => self.ser.tagged(variant, self.dict.into_any()),
            None => Ok(self.dict.into_any()),
        }
    }
}

forward!(Fields, SerializeStruct, serialize_field => put with key);
forward!(Fields, SerializeStructVariant, serialize_field => put with key);
