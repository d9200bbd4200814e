//! Python → JSON: a Python object as the JSON text the library reads. Numbers
//! are written by value (an `int` exactly, a `float` as its shortest
//! round-trip spelling, NumPy scalars, `Decimal` and exact `Fraction`s as the
//! JSON number they equal), never through a subclass's `__str__`; depth and
//! size are capped ([`MAX_DEPTH`], [`MAX_TEXT_BYTES`]).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value;

use crate::MAX_DEPTH;
use crate::boundary::error;

/// The most bytes of JSON text written from one Python object: the CLI's
/// record limit (`--max-record-bytes`'s default), so that a structure too large
/// to be a record is refused before it is all written.
const MAX_TEXT_BYTES: usize = 64 * 1024 * 1024;

/// Writes `obj` as JSON text: `None`, `bool`, `int` (any size, exact), `float`
/// (its shortest round-trip spelling; NaN and infinities refused), `str`, `dict`
/// with `str` keys, `list` and `tuple`.
fn write_json(obj: &Bound<'_, PyAny>, out: &mut Vec<u8>, depth: usize) -> PyResult<()> {
    if depth > MAX_DEPTH {
        return Err(error(format!(
            "arguments nest deeper than {MAX_DEPTH} levels"
        )));
    }
    if obj.is_none() {
        out.extend_from_slice(b"null");
    } else if let Ok(b) = obj.cast::<PyBool>() {
        out.extend_from_slice(if b.is_true() { b"true" } else { b"false" });
    } else if let Ok(s) = obj.cast::<PyString>() {
        write_str(s, out)?;
    } else if obj.is_instance_of::<PyInt>() {
        write_int(obj, out)?;
    } else if let Ok(f) = obj.cast::<PyFloat>() {
        write_float(obj.py(), f.value(), out)?;
    } else if let Ok(d) = obj.cast::<PyDict>() {
        out.push(b'{');
        for (i, (k, v)) in d.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let Ok(k) = k.cast::<PyString>() else {
                return Err(error(format!(
                    "a JSON object's keys are strings, not {}",
                    k.get_type().name()?
                )));
            };
            write_str(k, out)?;
            out.push(b':');
            write_json(&v, out, depth + 1)?;
        }
        out.push(b'}');
    } else if let Ok(l) = obj.cast::<PyList>() {
        write_seq(l.iter(), out, depth)?;
    } else if let Ok(t) = obj.cast::<PyTuple>() {
        write_seq(t.iter(), out, depth)?;
    } else if !write_other_number(obj, out)? {
        return Err(PyTypeError::new_err(format!(
            "cannot send a {} as JSON (use dict, list, str, int, float, bool or None)",
            obj.get_type().name()?
        )));
    }
    if out.len() > MAX_TEXT_BYTES {
        return Err(error(format!(
            "arguments larger than {MAX_TEXT_BYTES} bytes as JSON"
        )));
    }
    Ok(())
}

/// A `str` as a JSON string, from its UTF-8 bytes as Python encodes them (a
/// lone surrogate raises `UnicodeEncodeError`).
fn write_str(s: &Bound<'_, PyString>, out: &mut Vec<u8>) -> PyResult<()> {
    let bytes = s.encode_utf8()?;
    let text = std::str::from_utf8(bytes.as_bytes()).map_err(|e| error(e.to_string()))?;
    serde_json::to_writer(&mut *out, text).map_err(|e| error(e.to_string()))
}

/// An `int` (or a subclass) as JSON: its value in `int`'s own spelling; a
/// subclass's `__str__` or `__repr__` is never called (it could write anything).
/// An int with more digits than Python converts (`sys.set_int_max_str_digits`)
/// is refused, as `json.dumps` refuses it.
fn write_int(obj: &Bound<'_, PyAny>, out: &mut Vec<u8>) -> PyResult<()> {
    if let Ok(n) = obj.extract::<i64>() {
        write_i64(n, out);
        return Ok(());
    }
    let text = obj
        .py()
        .get_type::<PyInt>()
        .getattr("__repr__")?
        .call1((obj,))
        .map_err(|e| error(format!("an int callfix cannot write as JSON: {e}")))?;
    out.extend_from_slice(text.cast::<PyString>()?.to_cow()?.as_bytes());
    Ok(())
}

/// `n` in decimal, as `int` spells it.
fn write_i64(n: i64, out: &mut Vec<u8>) {
    if n < 0 {
        out.push(b'-');
    }
    let mut rest = n.unsigned_abs();
    let start = out.len();
    loop {
        out.push(b'0' + u8::try_from(rest % 10).unwrap_or(0));
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if let Some(digits) = out.get_mut(start..) {
        digits.reverse();
    }
}

/// A float as JSON: the shortest spelling that reads back as the same double
/// (`float`'s own `repr` of the value, never a subclass's: `np.float64(1.5)`
/// is written `1.5`). NaN and the infinities are no JSON numbers.
fn write_float(py: Python<'_>, v: f64, out: &mut Vec<u8>) -> PyResult<()> {
    if !v.is_finite() {
        return Err(error(format!("{v} is not a JSON number")));
    }
    out.extend_from_slice(PyFloat::new(py, v).repr()?.to_cow()?.as_bytes());
    Ok(())
}

/// Numbers of other types, where they are exactly a JSON number: an integer
/// type (`operator.index`: NumPy's `int64`, `uint8`, …), a `decimal.Decimal`
/// (its digits as they are), NumPy's `bool_` (a bool), and a type that
/// converts to a float it equals (`float(x) == x`: NumPy's `float32`, a
/// `Fraction(1, 2)`). False when `obj` is none of them; an error when it is a
/// number JSON cannot hold exactly (`Fraction(1, 3)`, `Decimal("NaN")`).
fn write_other_number(obj: &Bound<'_, PyAny>, out: &mut Vec<u8>) -> PyResult<bool> {
    let py = obj.py();
    let ty = obj.get_type();
    let module = ty.module().map(|m| m.to_string()).unwrap_or_default();
    let name = ty.name().map(|n| n.to_string()).unwrap_or_default();
    if module == "numpy" && matches!(name.as_str(), "bool_" | "bool") {
        out.extend_from_slice(if obj.is_truthy()? { b"true" } else { b"false" });
        return Ok(true);
    }
    if ty.hasattr("__index__")? {
        let int = py.import("operator")?.getattr("index")?.call1((obj,))?;
        write_int(&int, out)?;
        return Ok(true);
    }
    let decimal = py.import("decimal")?.getattr("Decimal")?;
    if obj.is_instance(&decimal)? {
        let text = decimal.getattr("__str__")?.call1((obj,))?;
        let text = text.cast::<PyString>()?.to_cow()?.into_owned();
        return match serde_json::from_str::<Value>(&text) {
            Ok(Value::Number(_)) => {
                out.extend_from_slice(text.as_bytes());
                Ok(true)
            }
            _ => Err(error(format!("Decimal {text} is not a JSON number"))),
        };
    }
    if ty.hasattr("__float__")? {
        let float = py.get_type::<PyFloat>().call1((obj,))?;
        if !obj.eq(&float)? {
            return Err(error(format!(
                "{} {} is not exactly a float: convert it first",
                name,
                obj.repr()?.to_cow()?
            )));
        }
        write_float(py, float.cast::<PyFloat>()?.value(), out)?;
        return Ok(true);
    }
    Ok(false)
}

fn write_seq<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    out: &mut Vec<u8>,
    depth: usize,
) -> PyResult<()> {
    out.push(b'[');
    for (i, v) in items.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_json(&v, out, depth + 1)?;
    }
    out.push(b']');
    Ok(())
}

/// A record or arguments: a `str` is the text itself (`bytes` too); anything
/// else is written as JSON.
pub(crate) fn text_of(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(s.encode_utf8()?.as_bytes().to_vec());
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    let mut out = Vec::with_capacity(128);
    write_json(obj, &mut out, 0)?;
    Ok(out)
}

/// A Python value as the JSON value it is (a `str` is a JSON string, never
/// JSON text to parse).
pub(crate) fn json_of(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let mut out = Vec::with_capacity(64);
    write_json(obj, &mut out, 0)?;
    serde_json::from_slice(&out).map_err(|e| error(format!("not valid JSON: {e}")))
}

pub(crate) fn value_of(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let text = text_of(obj)?;
    serde_json::from_slice(&text).map_err(|e| error(format!("not valid JSON: {e}")))
}
