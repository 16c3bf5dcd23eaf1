//! naga parses and validates every kernel in every specialisation the pipeline
//! cache can build, and writes SPIR-V for it; and the trace build of every source.
//! Needs no adapter.

use std::collections::{BTreeMap, BTreeSet};

use revseq::shaders::{KernelFile, Source, Storage};
use revseq::PipelineKey;

/// A validator with no optional capability but 64-bit integers for the sources
/// that use them: every other kernel runs on any WebGPU device.
fn validator(source: &Source) -> naga::valid::Validator {
    let mut capabilities = naga::valid::Capabilities::empty();
    if source.needs_int64() {
        capabilities |= naga::valid::Capabilities::SHADER_INT64;
    }
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
}

fn parse(source: &Source, wgsl: &str) -> (naga::Module, naga::valid::ModuleInfo) {
    let module = naga::front::wgsl::parse_str(wgsl)
        .unwrap_or_else(|e| panic!("{}: {}", source.label(), e.emit_to_string(wgsl)));
    let info = validator(source)
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}: {}", source.label(), e.emit_to_string(wgsl)));
    (module, info)
}

/// Specialises `module` for `key` (plus `extra` constants), validates it and
/// writes SPIR-V.
fn specialise(
    source: &Source,
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    key: &PipelineKey,
    extra: &[(&str, f64)],
) {
    let mut constants = naga::back::PipelineConstants::default();
    for (name, value) in key.constants().into_iter().chain(extra.iter().copied()) {
        constants.insert(name.to_string(), value);
    }
    let (specialised, specialised_info) = naga::back::pipeline_constants::process_overrides(
        module,
        info,
        Some((naga::ShaderStage::Compute, KernelFile::ENTRY_POINT)),
        &constants,
    )
    .unwrap_or_else(|e| panic!("{key:?}: {e}"));
    validator(source)
        .validate(&specialised)
        .unwrap_or_else(|e| panic!("{key:?}: {e}"));
    naga::back::spv::write_vec(
        &specialised,
        &specialised_info,
        &naga::back::spv::Options::default(),
        Some(&naga::back::spv::PipelineOptions {
            shader_stage: naga::ShaderStage::Compute,
            entry_point: KernelFile::ENTRY_POINT.to_string(),
        }),
    )
    .unwrap_or_else(|e| panic!("{key:?}: {e}"));
}

#[test]
fn every_specialisation_parses_validates_and_translates() {
    let mut by_source: BTreeMap<Source, Vec<PipelineKey>> = BTreeMap::new();
    for key in PipelineKey::all() {
        by_source.entry(key.source()).or_default().push(key);
    }
    let mut checked = 0;
    for (source, keys) in &by_source {
        let wgsl = source.wgsl();
        assert!(
            !wgsl.contains("trace"),
            "{}: the normal build traces",
            source.label()
        );
        let (module, info) = parse(source, &wgsl);
        for key in keys {
            specialise(source, &module, &info, key, &[]);
            checked += 1;
        }
        // The trace build of the same source, with one of its keys.
        let (module, info) = parse(source, &source.traced_wgsl());
        specialise(source, &module, &info, &keys[0], &[("TRACE_EVERY", 7.0)]);
    }
    assert_eq!(checked, PipelineKey::all().count());
    // Every kernel, with every storage it takes.
    let kernels: BTreeSet<(KernelFile, Storage)> =
        by_source.keys().map(|s| (s.kernel, s.storage)).collect();
    // general/elements and general/swap take three of them each (words, vec2
    // and vec4 elements), runs/swap three (words, vec4, 64-bit words), rows/swap
    // and gather/swap two (vec4, 64-bit words); general/swap_pairs three (words,
    // vec2, vec4), swap_pairs_subwords one (words).
    assert_eq!(kernels.len(), 34, "{kernels:?}");
    eprintln!(
        "{checked} specialisations of {} sources validated",
        by_source.len()
    );
}

#[test]
fn each_file_is_pasted_once_and_says_what_it_imports() {
    let source = PipelineKey::all()
        .find(|key| key.source().kernel.file() == "gather/gather")
        .unwrap()
        .source();
    let wgsl = source.wgsl();
    // Imported by several files, pasted once.
    assert_eq!(
        wgsl.matches("// ---- shaders/shared/params.wgsl").count(),
        1
    );
    assert_eq!(
        wgsl.matches("// ---- shaders/shared/lengths.wgsl").count(),
        1
    );
    assert!(!wgsl.contains("#import"));
    // The storage slot holds the storage the key names.
    assert!(wgsl.contains(match source.storage {
        Storage::Vec4 => "// ---- shaders/shared/storage_vec4.wgsl",
        Storage::U64 => "// ---- shaders/shared/storage_u64.wgsl",
        Storage::Words => "// ---- shaders/shared/storage_words.wgsl",
        Storage::Vec2 => "// ---- shaders/shared/storage_vec2.wgsl",
    }));
    // The trace build records every access the storage functions make.
    let traced = source.traced_wgsl();
    assert!(traced.contains("// ---- shaders/trace/record.wgsl"));
    assert!(traced.contains("trace_access(TRACE_LOAD | TRACE_INPUT"));
}
