//! Arrays handed to Python as little-endian byte buffers (`bytearray`s, written in place):
//! the allocation bindings' results and the result tables' numeric columns, which the
//! Python side reads without one object per item.

use pyo3::prelude::*;
use pyo3::types::PyByteArray;

/// A `bytearray` of `v`'s items in little-endian order, written in place.
pub fn le_bytes<'py, T, const N: usize>(
    py: Python<'py>,
    v: impl ExactSizeIterator<Item = T>,
    to_le: impl Fn(T) -> [u8; N],
) -> PyResult<Bound<'py, PyByteArray>> {
    PyByteArray::new_with(py, v.len() * N, |buf| {
        for (c, x) in buf.chunks_exact_mut(N).zip(v) {
            c.copy_from_slice(&to_le(x));
        }
        Ok(())
    })
}

pub fn f64_out<'py>(py: Python<'py>, v: &[f64]) -> PyResult<Bound<'py, PyByteArray>> {
    le_bytes(py, v.iter().copied(), f64::to_le_bytes)
}

pub fn i64_out<'py>(
    py: Python<'py>,
    v: impl ExactSizeIterator<Item = i64>,
) -> PyResult<Bound<'py, PyByteArray>> {
    le_bytes(py, v, i64::to_le_bytes)
}
