//! burn's default wgpu device, as a burn program makes it (`Device::default()`,
//! no revseq call first), for the test binaries that run revseq's kernels.

use std::io::Write;

use burn::tensor::Device;

/// burn's default wgpu device. Without an adapter the tests fail, saying how to
/// get one; the adapter's name goes to stderr, after `what` runs on it.
pub fn default_device(what: &str) -> Device {
    let device = Device::default();
    let adapter = revseq_burn::lab::adapter(&device).unwrap_or_else(|| {
        panic!(
            "revseq-burn tests need a wgpu adapter that runs WGSL and found {device:?}\n\
             On Debian or Ubuntu: apt-get update && apt-get install -y mesa-vulkan-drivers"
        )
    });
    let _ = writeln!(std::io::stderr(), "{what} run on adapter {adapter:?}");
    device
}
