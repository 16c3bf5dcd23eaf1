//! Adapter selection through the environment: what `Gpu::new` returns when it finds
//! nothing. A binary of its own, because it sets process-wide environment variables;
//! one test, so that the settings never race.

#![cfg(not(target_arch = "wasm32"))]

use revseq::{Error, Gpu};

#[test]
fn adapter_selection_failures_are_errors_not_panics() {
    // A name that matches no adapter.
    std::env::set_var("WGPU_ADAPTER_NAME", "no adapter is called this");
    let err = Gpu::new().unwrap_err();
    assert!(
        matches!(&err, Error::AdapterNotFound { name, .. } if name == "no adapter is called this"),
        "{err}"
    );
    std::env::remove_var("WGPU_ADAPTER_NAME");

    // No backend with an adapter at all (this backend does not exist on this
    // platform): the error says how to install one.
    let absent = if cfg!(target_os = "macos") {
        "dx12"
    } else {
        "metal"
    };
    std::env::set_var("WGPU_BACKEND", absent);
    let err = Gpu::new().unwrap_err();
    assert!(matches!(err, Error::NoAdapter { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("apt-get install mesa-vulkan-drivers"),
        "{err}"
    );
}
