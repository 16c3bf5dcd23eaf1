//! revseq-burn on burn's CPU backend (flex), where the portable path runs: the
//! semantics of `common`, against revseq's host reference, as on revseq's
//! kernels (`tests/burn.rs` compares the two paths byte for byte). No adapter is
//! needed here.

#[macro_use]
mod common;

use burn::tensor::Device;
use revseq_burn::KernelPath;

#[test]
fn burns_cpu_backend_takes_the_portable_path() {
    assert_eq!(revseq_burn::path(&Device::flex()), KernelPath::Portable);
    assert_eq!(
        revseq_burn::path(&Device::flex().autodiff()),
        KernelPath::Portable
    );
}

semantics_tests!(&Device::flex());
