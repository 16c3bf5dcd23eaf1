//! The operator as a program (`revseq::program`), run by an executor of the
//! test's own that does what cubecl does with it: one shader module a kernel,
//! made with bounds checks off, a pipeline layout made from the shader, every
//! tensor a range of one pooled buffer (so that input and output are two
//! writable bindings of one buffer), scratch and placeholders of its own, each
//! uniform a buffer of its bytes. Every layout family, windowed, staged and in
//! place across windows, under both tunings, against the reference; no byte of
//! the pool outside the output tensor changes.

use std::collections::HashMap;

use revseq::program::{self, Binding, Program, Target};
use revseq::{reference, DataType, Gpu, ReverseInPlace, ReverseSubsequences, TensorRole};

use crate::strided::lengths_for;
use crate::support::{gpu, quietly, Rng};
use crate::windows::{outermost_spanning, packed, small_windows, time_major_spanning, WINDOW};

/// Pipelines by kernel digest, as an executor keeps them (cubecl by `KernelId`).
type Pipelines = HashMap<u64, wgpu::ComputePipeline>;

/// Runs `program` on `gpu` over one pooled buffer holding `pool` (the tensors
/// at `bases`, by role), and returns the pool's bytes after.
fn execute(
    gpu: &Gpu,
    cache: &mut Pipelines,
    program: &Program,
    pool: &[u8],
    base: impl Fn(TensorRole) -> u64,
) -> Vec<u8> {
    let device = gpu.device();
    let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
    let make = |size: u64, usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("program test"),
            size: size.next_multiple_of(4).max(16),
            usage,
            mapped_at_creation: false,
        })
    };
    let pooled = make(pool.len() as u64, storage | wgpu::BufferUsages::COPY_SRC);
    gpu.queue().write_buffer(&pooled, 0, pool);
    let scratch = program.scratch_bytes().map(|bytes| make(bytes, storage));
    let pipelines: Vec<wgpu::ComputePipeline> = program
        .kernels()
        .iter()
        .map(|kernel| {
            if let Some(pipeline) = cache.get(&kernel.digest) {
                return pipeline.clone();
            }
            // SAFETY: the program's kernels keep every access inside their
            // bindings by their own arithmetic, as cubecl requires of the
            // shaders it makes without bounds checks.
            let module = unsafe {
                device.create_shader_module_trusted(
                    wgpu::ShaderModuleDescriptor {
                        label: Some("program test"),
                        source: wgpu::ShaderSource::Wgsl(kernel.wgsl.as_str().into()),
                    },
                    wgpu::ShaderRuntimeChecks::unchecked(),
                )
            };
            let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("program test"),
                layout: None,
                module: &module,
                entry_point: Some(kernel.entry_point),
                compilation_options: Default::default(),
                cache: None,
            });
            cache.insert(kernel.digest, pipeline.clone());
            pipeline
        })
        .collect();
    let mut encoder = device.create_command_encoder(&Default::default());
    for dispatch in program.dispatches() {
        let pipeline = &pipelines[dispatch.kernel];
        let uniforms: Vec<wgpu::Buffer> = dispatch
            .bindings
            .iter()
            .filter_map(|b| match b {
                Binding::Params { bytes } => {
                    let buffer = make(
                        bytes.len() as u64,
                        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    );
                    gpu.queue().write_buffer(&buffer, 0, bytes);
                    Some(buffer)
                }
                _ => None,
            })
            .collect();
        let placeholder = make(16, storage);
        let entries: Vec<wgpu::BindGroupEntry> = dispatch
            .bindings
            .iter()
            .enumerate()
            .map(|(i, binding)| {
                let (buffer, offset, size) = match binding {
                    Binding::Tensor {
                        tensor,
                        offset,
                        size,
                    } => (&pooled, base(*tensor) + offset, *size),
                    Binding::Scratch {
                        buffer,
                        offset,
                        size,
                    } => (&scratch[*buffer], *offset, *size),
                    Binding::Placeholder { size } => (&placeholder, 0, *size),
                    Binding::Params { bytes } => (&uniforms[0], 0, bytes.len() as u64),
                    other => panic!("a binding this executor does not know: {other:?}"),
                };
                wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset,
                        size: wgpu::BufferSize::new(size),
                    }),
                }
            })
            .collect();
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("program test"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        let [x, y, z] = dispatch.workgroups;
        pass.dispatch_workgroups(x, y, z);
    }
    let readback = make(
        pool.len() as u64,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    );
    encoder.copy_buffer_to_buffer(&pooled, 0, &readback, 0, pooled.size());
    gpu.queue().submit([encoder.finish()]);
    readback.map_async(wgpu::MapMode::Read, .., |r| r.expect("mapping the pool"));
    revseq::wait_for_queue(device, gpu.queue()).unwrap();
    let bytes = readback.get_mapped_range(..).expect("the pool").to_vec();
    bytes[..pool.len()].to_vec()
}

/// Tensors of `sizes` bytes (rounded up to 4) laid out one after another in a
/// pool of random bytes, each at a multiple of `align`: their offsets, and the
/// pool.
fn pool(rng: &mut Rng, sizes: &[u64], align: u64) -> (Vec<u64>, Vec<u8>) {
    let mut offsets = Vec::new();
    let mut end = 0;
    for size in sizes {
        offsets.push(end);
        end = (end + size.next_multiple_of(4)).next_multiple_of(align);
    }
    (offsets, rng.bytes(end as usize + 64))
}

/// `desc` as a program for `target`, run on `gpu`'s device over a pool, against
/// the reference.
fn check(
    gpu: &Gpu,
    cache: &mut Pipelines,
    target: &Target,
    desc: &ReverseSubsequences,
    rng: &mut Rng,
) -> Program {
    let program = program::program(desc, target).unwrap_or_else(|e| panic!("{desc:?}: {e}"));
    let align = u64::from(target.limits().min_storage_buffer_offset_alignment);
    let sizes = [&desc.input, &desc.sequence_lengths, &desc.output].map(|t| t.min_size_in_bytes());
    let (offsets, mut pool) = pool(rng, &sizes, align);
    let n = desc.input.sizes()[desc.axis as usize];
    let lengths = lengths_for(rng, desc, n);
    let at = |i: usize| offsets[i] as usize..(offsets[i] + sizes[i]) as usize;
    pool[at(1)].copy_from_slice(&lengths);
    let mut expected = pool.clone();
    let input = pool[at(0)].to_vec();
    reference::reverse_subsequences_bytes(desc, &input, &lengths, &mut expected[at(2)]).unwrap();
    let base = |role| match role {
        TensorRole::Input => offsets[0],
        TensorRole::SequenceLengths => offsets[1],
        _ => offsets[2],
    };
    let actual = quietly(gpu, || execute(gpu, cache, &program, &pool, base));
    if let Some(at) = actual.iter().zip(&expected).position(|(a, e)| a != e) {
        panic!(
            "{desc:?} as a program ({:?}): pool byte {at} differs",
            program.variant()
        );
    }
    program
}

/// `desc` in place as a program for `target`, as [`check`] does.
fn check_in_place(
    gpu: &Gpu,
    cache: &mut Pipelines,
    target: &Target,
    desc: &ReverseInPlace,
    rng: &mut Rng,
) -> Program {
    let program =
        program::program_in_place(desc, target).unwrap_or_else(|e| panic!("{desc:?}: {e}"));
    let align = u64::from(target.limits().min_storage_buffer_offset_alignment);
    let sizes = [
        desc.tensor.min_size_in_bytes(),
        desc.sequence_lengths.min_size_in_bytes(),
    ];
    let (offsets, mut pool) = pool(rng, &sizes, align);
    let operator = ReverseSubsequences::new(
        desc.tensor.clone(),
        desc.sequence_lengths.clone(),
        desc.tensor.clone(),
        desc.axis,
    );
    let lengths = lengths_for(rng, &operator, desc.tensor.sizes()[desc.axis as usize]);
    let at = |i: usize| offsets[i] as usize..(offsets[i] + sizes[i]) as usize;
    pool[at(1)].copy_from_slice(&lengths);
    let mut expected = pool.clone();
    reference::reverse_in_place_bytes(desc, &mut expected[at(0)], &lengths).unwrap();
    let base = |role| match role {
        TensorRole::SequenceLengths => offsets[1],
        _ => offsets[0],
    };
    let actual = quietly(gpu, || execute(gpu, cache, &program, &pool, base));
    if let Some(at) = actual.iter().zip(&expected).position(|(a, e)| a != e) {
        panic!(
            "{desc:?} in place as a program ({:?}): pool byte {at} differs",
            program.variant()
        );
    }
    program
}

fn in_place(desc: &ReverseSubsequences) -> ReverseInPlace {
    ReverseInPlace::new(desc.input.clone(), desc.sequence_lengths.clone(), desc.axis)
}

/// `gpu`'s target under a CPU adapter's tuning and a GPU's.
fn tunings(gpu: &Gpu) -> [Target; 2] {
    let own = gpu.target();
    let int64 = gpu
        .device()
        .features()
        .contains(wgpu::Features::SHADER_INT64);
    [wgpu::DeviceType::Cpu, wgpu::DeviceType::DiscreteGpu].map(|kind| {
        Target::new(own.limits().clone(), kind)
            .with_int64(int64)
            .with_max_binding(own.max_binding())
    })
}

#[test]
fn every_family_runs_exactly_as_a_program_on_a_pooled_buffer() {
    let mut rng = Rng::new(74);
    let mut cache = Pipelines::new();
    for target in tunings(gpu()) {
        for data_type in [
            DataType::Uint8,
            DataType::Float16,
            DataType::Float32,
            DataType::Uint64,
            DataType::Complex128,
        ] {
            let inner = 64 / data_type.size_in_bytes();
            let (u32s, i64s) = (DataType::Uint32, DataType::Int64);
            for desc in [
                crate::packed::packed(data_type, &[6, 32], 1, u32s, None),
                crate::packed::packed(data_type, &[6, 31], 1, u32s, None),
                crate::packed::packed(data_type, &[3, 20, inner], 1, u32s, None),
                crate::packed::packed(data_type, &[70, inner], 0, i64s, None),
                crate::packed::packed(data_type, &[4, 9, inner], 1, i64s, Some(&[1, 0, 0])),
                crate::packed::packed(data_type, &[9, 4, inner], 0, i64s, Some(&[0, 1, 0])),
                crate::variants::transposed(data_type, 5, 7),
                crate::packed::packed(data_type, &[4, 6, 5], 1, i64s, Some(&[1, 0, 0])),
                crate::packed::packed(data_type, &[4, 6, 5], 1, u32s, None),
            ] {
                check(gpu(), &mut cache, &target, &desc, &mut rng);
                if desc.input.strides().is_none() {
                    check_in_place(gpu(), &mut cache, &target, &in_place(&desc), &mut rng);
                }
            }
        }
    }
}

#[test]
fn windowed_and_staged_programs_run_exactly() {
    let gpu = small_windows();
    let mut rng = Rng::new(75);
    let mut cache = Pipelines::new();
    for target in tunings(gpu) {
        for data_type in [DataType::Uint8, DataType::Float32, DataType::Complex128] {
            let long = WINDOW / data_type.size_in_bytes() + 40;
            let rows = packed(data_type, DataType::Uint32, &[3, long], 1);
            for desc in [
                time_major_spanning(data_type, 1),
                outermost_spanning(data_type, 1),
                rows,
            ] {
                let program = check(gpu, &mut cache, &target, &desc, &mut rng);
                assert!(
                    program.dispatches().len() > 1,
                    "{desc:?} ran in one dispatch"
                );
            }
        }
        // Per-element lanes that span windows: staged through the scratch.
        let columns = WINDOW / 4 * 3 / 24 * 4;
        let staged = packed(DataType::Float32, DataType::Uint32, &[24, columns], 0);
        let program = check(gpu, &mut cache, &target, &staged, &mut rng);
        assert!(program.scratch_bytes()[0] > 0, "{staged:?} did not stage");
    }
}

#[test]
fn programs_in_place_across_windows_run_exactly() {
    let mut rng = Rng::new(76);
    let mut cache = Pipelines::new();
    for target in tunings(gpu()) {
        for data_type in [DataType::Uint8, DataType::Float32, DataType::Complex128] {
            let width = data_type.size_in_bytes();
            let time_major = ReverseSubsequences::new(
                revseq::TensorDesc::new(data_type, &[37, 6, 32 / width]),
                revseq::TensorDesc::new(DataType::Int32, &[1, 6, 32 / width])
                    .with_strides(&[0, 1, 0]),
                revseq::TensorDesc::new(data_type, &[37, 6, 32 / width]),
                0,
            );
            for (window, desc) in [
                (1 << 11, time_major),
                (
                    1 << 10,
                    packed(data_type, DataType::Uint32, &[64, 100 / width + 1], 0),
                ),
                (
                    1 << 10,
                    packed(data_type, DataType::Int64, &[3, 3000 / width + 1], 1),
                ),
            ] {
                let small = target.clone().with_max_binding(window);
                let program = check_in_place(gpu(), &mut cache, &small, &in_place(&desc), &mut rng);
                assert!(
                    program.dispatches().len() > 3,
                    "{desc:?} in place past a {window}-byte binding: {} dispatches",
                    program.dispatches().len()
                );
            }
        }
    }
}
