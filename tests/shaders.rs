//! naga parses and validates every kernel in every specialisation the pipeline
//! cache can build, and translates each into what wgpu's native backends hand
//! their drivers: SPIR-V (Vulkan), MSL (Metal) and HLSL (DX12); and the trace
//! build of every source. Needs no adapter, so it is a binary of its own, run
//! once, not in each backend's pass of the GPU suite.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};

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
/// translates it for each native backend.
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
    let entry_point = || {
        (
            naga::ShaderStage::Compute,
            KernelFile::ENTRY_POINT.to_string(),
        )
    };
    naga::back::spv::write_vec(
        &specialised,
        &specialised_info,
        &naga::back::spv::Options::default(),
        Some(&naga::back::spv::PipelineOptions {
            shader_stage: naga::ShaderStage::Compute,
            entry_point: KernelFile::ENTRY_POINT.to_string(),
        }),
    )
    .unwrap_or_else(|e| panic!("{key:?}, SPIR-V: {e}"));
    // The oldest versions wgpu's Metal and DX12 backends accept (DX12's with its
    // default compiler, FXC), and the first with 64-bit integers for the
    // sources that need them.
    let int64 = source.needs_int64();
    let msl = naga::back::msl::Options {
        lang_version: if int64 { (2, 3) } else { (1, 2) },
        ..Default::default()
    };
    naga::back::msl::write_string(
        &specialised,
        &specialised_info,
        &msl,
        &naga::back::msl::PipelineOptions {
            entry_point: Some(entry_point()),
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{key:?}, MSL {:?}: {e}", msl.lang_version));
    let hlsl = naga::back::hlsl::Options {
        shader_model: match int64 {
            true => naga::back::hlsl::ShaderModel::V6_0,
            false => naga::back::hlsl::ShaderModel::V5_1,
        },
        ..Default::default()
    };
    let pipeline = naga::back::hlsl::PipelineOptions {
        entry_point: Some(entry_point()),
    };
    let mut text = String::new();
    naga::back::hlsl::Writer::new(&mut text, &hlsl, &pipeline)
        .write(&specialised, &specialised_info, None)
        .unwrap_or_else(|e| panic!("{key:?}, HLSL {:?}: {e}", hlsl.shader_model));
    assert!(
        text.contains("[numthreads("),
        "{key:?}: HLSL without a kernel"
    );
}

#[test]
fn every_specialisation_parses_validates_and_translates() {
    let mut by_source: BTreeMap<Source, Vec<PipelineKey>> = BTreeMap::new();
    for key in PipelineKey::all() {
        by_source.entry(key.source()).or_default().push(key);
    }
    let sources: Vec<(&Source, &Vec<PipelineKey>)> = by_source.iter().collect();
    // Sources taken in turn by a thread a core.
    let next = AtomicUsize::new(0);
    let checked = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some((source, keys)) = sources.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let wgsl = source.wgsl();
                    assert!(
                        !wgsl.contains("trace"),
                        "{}: the normal build traces",
                        source.label()
                    );
                    let (module, info) = parse(source, &wgsl);
                    for key in keys.iter() {
                        specialise(source, &module, &info, key, &[]);
                        checked.fetch_add(1, Ordering::Relaxed);
                    }
                    // The trace build of the same source, with one of its keys.
                    let (module, info) = parse(source, &source.traced_wgsl());
                    specialise(source, &module, &info, &keys[0], &[("TRACE_EVERY", 7.0)]);
                }
            });
        }
    });
    let checked = checked.into_inner();
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
        "{checked} specialisations of {} sources validated and translated to SPIR-V, MSL and HLSL",
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
        wgsl.matches("// ---- src/kernels/shared/params.wgsl")
            .count(),
        1
    );
    assert_eq!(
        wgsl.matches("// ---- src/kernels/shared/lengths.wgsl")
            .count(),
        1
    );
    assert!(!wgsl.contains("#import"));
    // The storage slot holds the storage the key names.
    assert!(wgsl.contains(match source.storage {
        Storage::Vec4 => "// ---- src/kernels/shared/storage_vec4.wgsl",
        Storage::U64 => "// ---- src/kernels/shared/storage_u64.wgsl",
        Storage::Words => "// ---- src/kernels/shared/storage_words.wgsl",
        Storage::Vec2 => "// ---- src/kernels/shared/storage_vec2.wgsl",
    }));
    // The trace build records every access the storage functions make.
    let traced = source.traced_wgsl();
    assert!(traced.contains("// ---- src/kernels/trace/record.wgsl"));
    assert!(traced.contains("trace_access(TRACE_LOAD | TRACE_INPUT"));
}
