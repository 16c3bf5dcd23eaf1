//! Autotune: the plan a descriptor runs, chosen by timing on the device itself.
//!
//! The kind of adapter cannot say which kernel family is fastest for a layout
//! (the GPU run in `docs/performance.md` shows the hand-made choice losing to
//! another family that serves the same rows). Every family is exact, so
//! where autotune is on ([`Gpu::with_autotune`]) `compile` plans the
//! descriptor under every profile that can serve it (each family forced, under
//! either tuning), builds each distinct program, times them on buffers of its
//! own shaped like the descriptor's, and runs the fastest. The choice is kept
//! for the descriptor's class (its mode, the static plan's pipeline key and
//! its size to a power of two), so that a loop over many batch sizes tunes a
//! few times, not once a shape.

use crate::descriptor::error::{Error, TensorRole};
use crate::descriptor::operator::ReverseSubsequences;
use crate::descriptor::Mode;
use crate::executor::compile::build;
use crate::executor::compiled::CompiledReverse;
use crate::executor::gpu::Gpu;
use crate::kernels::tuning::Tuning;
use crate::kernels::variant::Variant;
use crate::kernels::PipelineKey;
use crate::plan::program::Program;
use crate::plan::target::Target;

mod choices;
#[cfg(not(target_arch = "wasm32"))]
mod clock;
mod descriptor;

pub(crate) use choices::Choices;
#[cfg(not(target_arch = "wasm32"))]
use clock::Clock;
pub(crate) use descriptor::Descriptor;

/// The most bytes the tuning buffers hold together (input, lengths and
/// output) by default ([`Gpu::with_autotune_bytes`]): a larger descriptor is
/// timed as a smaller one of its layout.
pub const MAX_TUNING_BYTES: u64 = 1 << 30;

/// Timed rounds a candidate runs, after one untimed; its time is their median.
#[cfg(not(target_arch = "wasm32"))]
const ROUNDS: usize = 5;

/// What a timed round of one candidate should last at least: where one run is
/// shorter, a round records it several times into one submission, so that the
/// wait's granularity does not decide.
#[cfg(not(target_arch = "wasm32"))]
const ROUND_TIME: std::time::Duration = std::time::Duration::from_millis(2);

/// How much faster than the static choice a candidate must run to be chosen
/// instead: less is within the noise of a few rounds.
#[cfg(not(target_arch = "wasm32"))]
const MARGIN: f64 = 1.05;

/// A plan's profile: the tuning it is made under and the family it is forced
/// to, where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Choice {
    pub(super) tuning: Tuning,
    pub(super) variant: Option<Variant>,
}

impl Choice {
    /// `target` planning under this choice.
    fn target(self, target: &Target) -> Target {
        let mut target = target.clone();
        target.profile.tuning = self.tuning;
        target.profile.forced = self.variant;
        target
    }
}

/// What a choice is kept for: descriptors of one mode whose static plans share
/// a pipeline key, of output sizes within a power of two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Class {
    mode: Mode,
    key: PipelineKey,
    bucket: u32,
}

impl Class {
    fn of(program: &Program) -> Class {
        Class {
            mode: program.mode(),
            key: program.key(),
            bucket: program.tensor_bytes(TensorRole::Output).max(1).ilog2(),
        }
    }
}

/// `descriptor` compiled on `gpu`: under the static choice where autotune is
/// off, else under the choice kept for its class, or the fastest of its
/// candidates, timed now and kept. A descriptor whose tensors take more than
/// [`Gpu::autotune_bytes`] is timed as the smaller one of its layout that fits
/// ([`Descriptor::within`]), and runs the plan chosen there where that plan
/// serves it (else the static one).
pub(crate) async fn compile(gpu: &Gpu, descriptor: Descriptor) -> Result<CompiledReverse, Error> {
    let target = gpu.target();
    let desc = descriptor.operator();
    let static_choice = static_choice(gpu, &target);
    let program = descriptor.program(&static_choice.target(&target))?;
    // A device forced to one family (the laboratory's) runs that family.
    let forced = target.profile.forced.is_some();
    if !gpu.autotunes() || forced || program.is_empty() {
        return build(gpu, &desc, program).await;
    }
    let class = Class::of(&program);
    let choice = match gpu.choices().get(&class) {
        Some(choice) => choice,
        None if descriptor.bytes() <= gpu.autotune_bytes() => {
            let (choice, compiled) = tune(gpu, &descriptor, program, static_choice).await?;
            gpu.choices().keep(class, choice);
            return Ok(compiled);
        }
        None => {
            let Some(smaller) = descriptor.within(gpu.autotune_bytes()) else {
                return build(gpu, &desc, program).await;
            };
            let smaller_program = smaller.program(&static_choice.target(&target))?;
            if smaller_program.is_empty() {
                return build(gpu, &desc, program).await;
            }
            let (choice, _) = tune(gpu, &smaller, smaller_program, static_choice).await?;
            let compiled =
                build(gpu, &desc, plan_for(&descriptor, choice, &target, program)).await?;
            // Kept once all of it succeeded: nothing half-kept.
            gpu.choices().keep(class, choice);
            return Ok(compiled);
        }
    };
    build(gpu, &desc, plan_for(&descriptor, choice, &target, program)).await
}

/// `descriptor`'s program under `choice`, or its static `program` where the
/// choice, made for its class, cannot plan this descriptor (none is known).
fn plan_for(descriptor: &Descriptor, choice: Choice, target: &Target, program: Program) -> Program {
    descriptor
        .program(&choice.target(target))
        .unwrap_or(program)
}

/// The plan the device makes without timing: its tuning, and the
/// laboratory's family forced on the device, or on its static choice alone.
fn static_choice(gpu: &Gpu, target: &Target) -> Choice {
    Choice {
        tuning: target.profile.tuning,
        variant: target.profile.forced.or(gpu.static_variant()),
    }
}

/// The fastest of `descriptor`'s candidates (`program` is its static plan,
/// made under `static_choice`)
/// and its choice: every distinct program some profile plans, built and
/// timed ([`fastest`]).
async fn tune(
    gpu: &Gpu,
    descriptor: &Descriptor,
    program: Program,
    static_choice: Choice,
) -> Result<(Choice, CompiledReverse), Error> {
    let target = gpu.target();
    let desc = descriptor.operator();
    let class = Class::of(&program);
    // Every distinct program some profile plans, the static one first.
    let mut candidates = vec![(static_choice, program)];
    for tuning in [Tuning::Cpu, Tuning::Gpu] {
        for variant in std::iter::once(None).chain(Variant::FAMILIES.map(Some)) {
            let choice = Choice { tuning, variant };
            let Ok(program) = descriptor.program(&choice.target(&target)) else {
                continue;
            };
            if !candidates.iter().any(|(_, other)| program.same(other)) {
                candidates.push((choice, program));
            }
        }
    }
    let mut compiled = Vec::with_capacity(candidates.len());
    let mut choices = Vec::with_capacity(candidates.len());
    for (choice, program) in candidates {
        compiled.push(build(gpu, &desc, program).await?);
        choices.push(choice);
    }
    let fastest = match compiled.len() {
        1 => 0,
        _ => fastest(gpu, &desc, &compiled).await?,
    };
    log::debug!(
        "revseq: autotune chose {:?} ({}) of {} plans for {class:?}",
        compiled[fastest].variant(),
        choices[fastest].text(),
        compiled.len()
    );
    Ok((choices[fastest], compiled.swap_remove(fastest)))
}

/// The index of the fastest of `compiled` (one descriptor's candidates, in
/// one mode, the static choice first), each timed on the same buffers: the
/// median of [`ROUNDS`] rounds, the candidates taking turns within each,
/// every round submitted alone and timed by [`Clock`]; the
/// static choice unless another beats it by more than [`MARGIN`].
#[cfg(not(target_arch = "wasm32"))]
async fn fastest(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
    compiled: &[CompiledReverse],
) -> Result<usize, Error> {
    use std::time::Duration;

    let context = "timing the candidate plans";
    let first = &compiled[0];
    let [input, lengths, output] = gpu.scoped(context, || buffers(gpu, desc, first)).await??;
    let buffers = match first.program.mode() {
        Mode::OutOfPlace => [&input, &lengths, &output],
        Mode::InPlace => [&output, &lengths, &output],
    };
    let bindings = buffers.map(|buffer| buffer.as_entire_buffer_binding());
    let clock = Clock::new(gpu);
    let run = |candidate: &CompiledReverse, repeats: u32| -> Result<Duration, Error> {
        clock.time(gpu, |encoder| {
            for _ in 0..repeats {
                candidate.record_on(encoder, [&bindings[0], &bindings[1], &bindings[2]])?;
            }
            Ok(())
        })
    };
    // One untimed run each (first use of a pipeline and of the buffers); the
    // slowest of them sets how many runs a round records.
    let mut once = Duration::ZERO;
    for candidate in compiled {
        once = once.max(gpu.scoped(context, || run(candidate, 1)).await??);
    }
    let repeats = match once.is_zero() {
        true => 16,
        false => (ROUND_TIME.as_secs_f64() / once.as_secs_f64()).clamp(1.0, 16.0) as u32,
    };
    let mut times = vec![Vec::with_capacity(ROUNDS); compiled.len()];
    for _ in 0..ROUNDS {
        for (candidate, times) in compiled.iter().zip(&mut times) {
            times.push(gpu.scoped(context, || run(candidate, repeats)).await??);
        }
    }
    let median = |times: &mut Vec<Duration>| {
        times.sort();
        times[times.len() / 2]
    };
    let medians: Vec<Duration> = times.iter_mut().map(median).collect();
    log::debug!(
        "revseq: autotune timed {} plans by the {} clock: {medians:?}",
        compiled.len(),
        if clock.on_device() {
            "device's"
        } else {
            "host's"
        }
    );
    let fastest = (0..compiled.len()).min_by_key(|&i| medians[i]).unwrap_or(0);
    // The static choice, first, unless another is faster past the noise.
    match medians[0].as_secs_f64() <= medians[fastest].as_secs_f64() * MARGIN {
        true => Ok(0),
        false => Ok(fastest),
    }
}

/// In a browser nothing may block and the host has no monotonic clock of
/// std's: the static choice, first of the candidates.
#[cfg(target_arch = "wasm32")]
async fn fastest(
    _gpu: &Gpu,
    _desc: &ReverseSubsequences,
    _compiled: &[CompiledReverse],
) -> Result<usize, Error> {
    Ok(0)
}

/// The tuning buffers, of the sizes `compiled` binds: the input and output
/// zeroed, the lengths spread over the axis.
#[cfg(not(target_arch = "wasm32"))]
fn buffers(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
    compiled: &CompiledReverse,
) -> Result<[crate::executor::device_lock::Held<wgpu::Buffer>; 3], Error> {
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let buffer = |label, role| {
        gpu.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: compiled.binding_size(role).max(4),
            usage,
            mapped_at_creation: false,
        })
    };
    let width = desc.sequence_lengths.data_type().size_in_bytes() as usize;
    let axis = u64::from(desc.input.sizes()[desc.axis as usize]);
    let slots = compiled.binding_size(TensorRole::SequenceLengths) as usize / width;
    let lengths: Vec<u8> = (0..slots as u64)
        .flat_map(|i| {
            let length = (i * 37 + 11) % (axis + 1);
            length.to_le_bytes().into_iter().take(width)
        })
        .collect();
    let context = "creating the tuning buffers";
    let lengths = gpu.buffer_init("revseq::tuning_lengths", &lengths, usage, context)?;
    Ok([
        buffer("revseq::tuning_input", TensorRole::Input),
        lengths,
        buffer("revseq::tuning_output", TensorRole::Output),
    ])
}
