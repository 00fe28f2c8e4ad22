use pyo3::prelude::*;
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("x", ccsim_core::hello())?;
    Ok(())
}
