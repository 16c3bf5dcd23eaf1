//! naga parses and validates every kernel in every specialisation a program
//! can give, in the published form the pipelines compile (constants fixed,
//! bindings renumbered: `revseq::program::Kernel`), the staging copy kernels
//! included, and translates each into what wgpu's native backends hand their
//! drivers: SPIR-V (Vulkan), MSL (Metal) and HLSL (DX12); and the trace build
//! of every source. Needs no adapter, so it is a binary of its own, run
//! once, not in each backend's pass of the GPU suite.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use revseq::program::Kernel;
use revseq::shaders::{KernelFile, Source, Storage};
use revseq::PipelineKey;

/// A validator with no optional capability but 64-bit integers for the
/// kernels that use them: every other kernel runs on any WebGPU device.
fn validator(int64: bool) -> naga::valid::Validator {
    let mut capabilities = naga::valid::Capabilities::empty();
    if int64 {
        capabilities |= naga::valid::Capabilities::SHADER_INT64;
    }
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
}

fn parse(what: &str, int64: bool, wgsl: &str) -> (naga::Module, naga::valid::ModuleInfo) {
    let module = naga::front::wgsl::parse_str(wgsl)
        .unwrap_or_else(|e| panic!("{what}: {}", e.emit_to_string(wgsl)));
    let info = validator(int64)
        .validate(&module)
        .unwrap_or_else(|e| panic!("{what}: {}", e.emit_to_string(wgsl)));
    (module, info)
}

/// A published kernel, parsed, validated and translated for each native
/// backend.
fn publish(what: &str, kernel: &Kernel) {
    assert!(
        !kernel.wgsl.contains("override"),
        "{what}: an override left"
    );
    let (module, info) = parse(what, kernel.needs_int64(), &kernel.wgsl);
    translate(what, kernel.needs_int64(), &module, &info, &[]);
}

/// Specialises `module` for `constants`, validates it and translates it for
/// each native backend.
fn translate(
    key: &str,
    int64: bool,
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    constants: &[(&str, f64)],
) {
    let constants: naga::back::PipelineConstants = constants
        .iter()
        .map(|(name, value)| (name.to_string(), *value))
        .collect();
    let (specialised, specialised_info) = naga::back::pipeline_constants::process_overrides(
        module,
        info,
        Some((naga::ShaderStage::Compute, KernelFile::ENTRY_POINT)),
        &constants,
    )
    .unwrap_or_else(|e| panic!("{key}: {e}"));
    validator(int64)
        .validate(&specialised)
        .unwrap_or_else(|e| panic!("{key}: {e}"));
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
    .unwrap_or_else(|e| panic!("{key}, SPIR-V: {e}"));
    // The oldest versions wgpu's Metal and DX12 backends accept (DX12's with its
    // default compiler, FXC), and the first with 64-bit integers for the
    // sources that need them.
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
    .unwrap_or_else(|e| panic!("{key}, MSL {:?}: {e}", msl.lang_version));
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
        .unwrap_or_else(|e| panic!("{key}, HLSL {:?}: {e}", hlsl.shader_model));
    assert!(
        text.contains("[numthreads("),
        "{key}: HLSL without a kernel"
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
                    let int64 = source.needs_int64();
                    // The source itself, overrides and all.
                    parse(&source.label(), int64, &wgsl);
                    for key in keys.iter() {
                        publish(&format!("{key:?}"), &Kernel::of_key(*key));
                        checked.fetch_add(1, Ordering::Relaxed);
                    }
                    // The trace build of the same source, with one of its keys.
                    let (module, info) = parse(&source.label(), int64, &source.traced_wgsl());
                    let mut constants = keys[0].constants();
                    constants.push(("TRACE_EVERY", 7.0));
                    translate(&source.label(), int64, &module, &info, &constants);
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
    // The staging copy kernels, as the programs that stage give them.
    let copies = Kernel::copies();
    for copy in &copies {
        publish(&format!("copy kernel ({} bytes)", copy.wgsl.len()), copy);
    }
    assert_eq!(copies.len(), 6);
    eprintln!(
        "{checked} specialisations of {} sources and {} copy kernels, published, validated \
         and translated to SPIR-V, MSL and HLSL",
        by_source.len(),
        copies.len()
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
