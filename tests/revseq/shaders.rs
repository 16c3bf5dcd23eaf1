//! naga parses and validates every kernel in every specialisation the pipeline
//! cache can build, and writes SPIR-V for it. Needs no adapter.

use revseq::shaders::{Kernel, PipelineKey};

/// A validator with no optional capability but 64-bit integers for the kernels that
/// move 64-bit words and subgroup broadcasts for those that share lengths: every
/// other kernel runs on any WebGPU device.
fn validator(kernel: Kernel) -> naga::valid::Validator {
    let mut capabilities = naga::valid::Capabilities::empty();
    if kernel.word_bits() == 64 {
        capabilities |= naga::valid::Capabilities::SHADER_INT64;
    }
    if kernel.uses_subgroups() {
        capabilities |= naga::valid::Capabilities::SUBGROUP;
    }
    let mut validator =
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities);
    if kernel.uses_subgroups() {
        validator
            .subgroup_stages(naga::valid::ShaderStages::COMPUTE)
            .subgroup_operations(naga::valid::SubgroupOperationSet::BALLOT);
    }
    validator
}

#[test]
fn every_specialisation_parses_validates_and_translates() {
    let mut checked = 0;
    for kernel in Kernel::ALL {
        let module = naga::front::wgsl::parse_str(kernel.source()).unwrap_or_else(|e| {
            panic!("{}: {}", kernel.label(), e.emit_to_string(kernel.source()))
        });
        let info = validator(kernel).validate(&module).unwrap_or_else(|e| {
            panic!("{}: {}", kernel.label(), e.emit_to_string(kernel.source()))
        });
        for key in PipelineKey::all().filter(|key| key.kernel() == kernel) {
            let mut constants = naga::back::PipelineConstants::default();
            for (name, value) in key.constants() {
                constants.insert(name.to_string(), value);
            }
            let (specialised, specialised_info) =
                naga::back::pipeline_constants::process_overrides(
                    &module,
                    &info,
                    Some((naga::ShaderStage::Compute, Kernel::ENTRY_POINT)),
                    &constants,
                )
                .unwrap_or_else(|e| panic!("{key:?}: {e}"));
            validator(kernel)
                .validate(&specialised)
                .unwrap_or_else(|e| panic!("{key:?}: {e}"));
            naga::back::spv::write_vec(
                &specialised,
                &specialised_info,
                &naga::back::spv::Options::default(),
                Some(&naga::back::spv::PipelineOptions {
                    shader_stage: naga::ShaderStage::Compute,
                    entry_point: Kernel::ENTRY_POINT.to_string(),
                }),
            )
            .unwrap_or_else(|e| panic!("{key:?}: {e}"));
            assert_eq!(key.word_bits, kernel.word_bits(), "{key:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, PipelineKey::all().count());
    // 4 length types × (General: 5 widths × 36 rank-axis pairs; Rows: 5 widths × 8
    // ranks with the axis innermost × 4 step counts (1, 2, 4, 8) and 8- and 16-byte
    // ones × 8 × 1 more (16, packed rows on a CPU), and on words 4
    // widths × 8 × 6 step counts (to 32); Runs: 5 widths × the 28 pairs with the
    // axis outside × 5 step counts (to 16), and on words 4 widths × 28 × 7 (to 64);
    // Gather: the same 28 pairs, 1- and 2-byte widths × 4 step counts (to 8) and
    // wider ones × 3 (to 4), on 16-byte vectors (5 widths) and on words (4 widths);
    // Columns: the 28 pairs, 4 widths (below 16 bytes) × 4 row counts (8 to 64);
    // again on 64-bit words: Runs on 16-byte vectors, 5 widths × 28 × 5; Rows on
    // them, 2 widths (8, 16 bytes: `Rows64`) × 8 × 5; Columns, 4 widths × 4 × 28;
    // Gather, 2 widths (8, 16 bytes) × 3 × 28; Rows, 3 widths (1, 2, 4 bytes:
    // `RowsSplit64`) × 8 × 4; and both again for rows an invocation holds whole:
    // 5 × 8 × 4 + 2 × 8 × 1 and 3 × 8 × 4; and every `Rows` kernel on 16-byte vectors
    // again for rows whose segments are all full: (5 × 4 + 2) × 8, 3 × 8 × 4 and
    // 2 × 8 × 5; and with lengths shared by 2, 4 or 8 invocations, the `Rows`
    // kernels on 64-bit words, partial and full, 3 × 2 × (3 × 8 × 4 + 2 × 8 × 5),
    // and `Runs` on them, 3 × 5 × 28 × 5).
    assert_eq!(
        checked,
        4 * (5 * 36
            + (5 * 4 + 2) * 8
            + 4 * 8 * 6
            + 5 * 28 * 5
            + 4 * 28 * 7
            + (2 * 4 + 3 * 3) * 28
            + (2 * 4 + 2 * 3) * 28
            + 4 * 4 * 28
            + 5 * 28 * 5
            + 2 * 8 * 5
            + 4 * 4 * 28
            + 2 * 3 * 28
            + 3 * 8 * 4
            + (5 * 4 + 2) * 8
            + 3 * 8 * 4
            + (5 * 4 + 2) * 8
            + 3 * 8 * 4
            + 2 * 8 * 5
            + 3 * 2 * (3 * 8 * 4 + 2 * 8 * 5)
            + 3 * 5 * 28 * 5)
    );
}
