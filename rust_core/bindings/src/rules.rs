//! `Rules`: the engine's rule options from Python, by keyword and by preset.

use crate::{bad_type, bad_value};
use lanopoly_engine as engine;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyString, PyTuple};
use pythonize::{depythonize, pythonize};

/// Rule options; see `lanopoly.Rules` in the stub for the list.
#[pyclass(module = "lanopoly._core", name = "Rules", frozen, eq, hash, from_py_object)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct Rules {
    pub(crate) inner: engine::Rules,
}

#[pymethods]
impl Rules {
    #[new]
    #[pyo3(signature = (**options))]
    fn new(options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        Self::with_options(engine::Rules::default(), options)
    }

    /// The rules of a named preset, with options overridden.
    #[staticmethod]
    #[pyo3(signature = (name, **options))]
    pub(crate) fn preset(name: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let base = engine::Rules::preset(name)
            .ok_or_else(|| bad_value(format!("unknown preset {name:?}; presets: {}", engine::PRESETS.join(", "))))?;
        Self::with_options(base, options)
    }

    /// The rules a log or a saved game recorded, as a dict: an option the record lacks takes the
    /// value that plays the game as before the option existed (`Rules::legacy` in the engine),
    /// so a game recorded then replays exactly.
    #[staticmethod]
    pub(crate) fn recorded(options: &Bound<'_, PyDict>) -> PyResult<Self> {
        Self::with_options(engine::Rules::legacy(), Some(options))
    }

    /// Names of the presets.
    #[staticmethod]
    fn presets() -> Vec<&'static str> {
        engine::PRESETS.to_vec()
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize(py, &self.inner).map_err(bad_value)
    }

    /// Pickling and copying: `Rules(**rules.to_dict())`.
    fn __getnewargs_ex__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyTuple>, Bound<'py, PyAny>)> {
        Ok((PyTuple::empty(py), self.to_dict(py)?))
    }

    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let all = self.to_dict(py)?;
        all.get_item(name).map_err(|_| pyo3::exceptions::PyAttributeError::new_err(format!("no rule option {name:?}")))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let default = engine::Rules::default();
        let changed: Vec<String> = {
            let now = self.to_dict(py)?.cast_into::<PyDict>()?;
            let base = pythonize(py, &default).map_err(bad_value)?.cast_into::<PyDict>()?;
            let mut out = Vec::new();
            for (k, v) in now.iter() {
                if !base.get_item(&k)?.map(|b| b.eq(&v)).transpose()?.unwrap_or(false) {
                    out.push(format!("{}={}", k, v.repr()?));
                }
            }
            out
        };
        Ok(format!("Rules({})", changed.join(", ")))
    }
}

impl Rules {
    /// `base` with `options` set: an unknown option name or a value out of range is a
    /// `ValueError`, a value of the wrong Python type (a number for a flag) a `TypeError`.
    fn with_options(base: engine::Rules, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut rules = base;
        if let Some(options) = options {
            let py = options.py();
            let all = pythonize(py, &rules).map_err(bad_value)?.cast_into::<PyDict>()?;
            for (key, value) in options.iter() {
                let key: String = key.extract()?;
                if key == "free_building" {
                    if !value.is_instance_of::<PyBool>() {
                        return Err(bad_type(format!("rule option {key:?} takes a bool, not {}", value.repr()?)));
                    }
                    if value.is_truthy()? {
                        all.set_item("even_building", false)?;
                        all.set_item("limited_buildings", false)?;
                    }
                    continue;
                }
                let Some(current) = all.get_item(&key)? else {
                    let mut known: Vec<String> = all.keys().iter().map(|k| k.to_string()).collect();
                    known.push("free_building".to_owned());
                    return Err(bad_value(format!("unknown rule option {key:?}; options: {}", known.join(", "))));
                };
                let same_kind = if current.is_instance_of::<PyBool>() {
                    value.is_instance_of::<PyBool>()
                } else if current.is_instance_of::<PyInt>() {
                    value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>()
                } else {
                    value.is_instance_of::<PyString>()
                };
                if !same_kind {
                    let expected = current.get_type().name()?;
                    return Err(bad_type(format!("rule option {key:?} takes a {expected}, not {}", value.repr()?)));
                }
                all.set_item(key, value)?;
            }
            rules =
                depythonize(all.as_any()).map_err(|e| out_of_range(&base, options).unwrap_or_else(|| bad_value(e)))?;
        }
        rules.validate().map_err(bad_value)?;
        Ok(Rules { inner: rules })
    }
}

/// The error for the first option whose value does not fit its rule (a number out of range:
/// `round_limit=-3`), found by trying the options one at a time; None if each fits alone.
fn out_of_range(base: &engine::Rules, options: &Bound<'_, PyDict>) -> Option<PyErr> {
    let py = options.py();
    options.iter().find_map(|(key, value)| {
        let one = pythonize(py, base).ok()?.cast_into::<PyDict>().ok()?;
        one.contains(&key).ok()?.then_some(())?;
        one.set_item(&key, &value).ok()?;
        if depythonize::<engine::Rules>(one.as_any()).is_ok() {
            return None;
        }
        Some(bad_value(format!("rule option {} cannot be {}: out of range", key.repr().ok()?, value.repr().ok()?)))
    })
}
