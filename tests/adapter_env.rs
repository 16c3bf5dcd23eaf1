//! `WGPU_ADAPTER_NAME` that matches nothing is an error, not a panic. A binary of
//! its own: it sets a process-wide environment variable.

#[test]
fn unknown_adapter_name_is_an_error() {
    std::env::set_var("WGPU_ADAPTER_NAME", "no adapter is called this");
    let err = revseq::Gpu::new().unwrap_err();
    assert!(
        matches!(&err, revseq::Error::AdapterNotFound { name, .. } if name == "no adapter is called this"),
        "{err}"
    );
}
