//! JSON → Python: a JSON value as Python objects (integers exact at any size,
//! as a `decimal.Decimal` past the digits Python converts), at most
//! [`MAX_DEPTH`] deep.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use serde_json::Value;

use crate::MAX_DEPTH;
use crate::boundary::error;

/// Whether `value` nests deeper than `limit`, found without recursion.
pub(crate) fn deeper_than(value: &Value, limit: usize) -> bool {
    let mut stack = vec![(value, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        if depth > limit {
            return true;
        }
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, depth + 1))),
            _ => {}
        }
    }
    false
}

/// `value` as Python objects: integers as `int` (exact at any size; past the
/// digits Python converts, `sys.get_int_max_str_digits()`, as an integral
/// `decimal.Decimal` with the same digits), other numbers as `float` (the
/// nearest double), objects as `dict` in their order.
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    to_py_at(py, value, 0)
}

fn to_py_at<'py>(py: Python<'py>, value: &Value, depth: usize) -> PyResult<Bound<'py, PyAny>> {
    if depth > MAX_DEPTH {
        return Err(error(format!(
            "a value nests deeper than {MAX_DEPTH} levels"
        )));
    }
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            let text = n.as_str();
            if text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
                PyFloat::new(py, text.parse::<f64>().unwrap_or(f64::NAN)).into_any()
            } else if let Ok(i) = text.parse::<i64>() {
                i.into_pyobject(py)?.into_any()
            } else {
                match py.get_type::<PyInt>().call1((text,)) {
                    Ok(int) => int,
                    // More digits than Python turns into an int (its guard
                    // against quadratic conversion): exact as a Decimal.
                    Err(_) => py.import("decimal")?.getattr("Decimal")?.call1((text,))?,
                }
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for v in items {
                list.append(to_py_at(py, v, depth + 1)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py_at(py, v, depth + 1)?)?;
            }
            dict.into_any()
        }
    })
}
