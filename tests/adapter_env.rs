//! Adapter selection through the environment: what `Gpu::new` returns when it finds
//! nothing. A binary of its own, because it sets process-wide environment variables;
//! the settings it changes are read by it alone (the other test runs `Gpu::new` in a
//! child process with them removed).

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

/// On a healthy machine `Gpu::new` writes nothing to stderr: GL (whose EGL setup
/// may talk to a display server) is searched only when the primary backends have
/// no adapter. "Healthy" includes a login session's `XDG_RUNTIME_DIR`: without one,
/// Mesa's implicit Vulkan layer `VK_LAYER_MESA_device_select` asks libwayland for a
/// compositor, which prints two lines whatever the application does
/// (`NODEVICE_SELECT=1` silences it). Checked in a child process, whose stderr is
/// the library's alone.
#[cfg(unix)]
#[test]
fn opening_the_default_adapter_prints_nothing() {
    const CHILD: &str = "REVSEQ_STDERR_PROBE";
    if std::env::var_os(CHILD).is_some() {
        Gpu::new().expect("an adapter");
        return;
    }
    let runtime_dir = std::env::temp_dir().join(format!("revseq-xdg-{}", std::process::id()));
    std::fs::create_dir_all(&runtime_dir).unwrap();
    std::fs::set_permissions(
        &runtime_dir,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "opening_the_default_adapter_prints_nothing",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .env("XDG_RUNTIME_DIR", &runtime_dir)
        .env_remove("WGPU_BACKEND")
        .env_remove("WGPU_ADAPTER_NAME")
        .output()
        .unwrap();
    let _ = std::fs::remove_dir(&runtime_dir);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the child failed: {stderr}");
    assert!(stderr.trim().is_empty(), "Gpu::new printed: {stderr}");
}
