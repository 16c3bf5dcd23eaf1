//! Autotune: the plan a descriptor runs, chosen by timing on the device itself.
//!
//! The kind of adapter cannot say which kernel family is fastest for a layout
//! (the GPU run in `docs/performance.md` shows the hand-made choice losing to
//! another family that serves the same rows). Every family is exact, so
//! where autotune is on ([`Gpu::with_autotune`]) `compile` plans the
//! descriptor under every choice that can serve it (each family forced, under
//! either tuning), builds each distinct program, times them on buffers of its
//! own shaped like the descriptor's, and runs the fastest. The choice is kept
//! for the descriptor's class (its mode, the static plan's pipeline key and
//! its size to a power of two), so that a loop over many batch sizes tunes a
//! few times, not once a shape.
//!
//! Autotune never makes a compile fail that would succeed without it: a
//! tuning that fails for any reason but a lost device (out of memory, a
//! candidate that does not build) logs one warning, keeps no choice, and the
//! compile runs the static plan; the class is not tuned again on that `Gpu`.

use crate::descriptor::error::{Error, TensorRole};
use crate::descriptor::operator::ReverseSubsequences;
use crate::descriptor::Mode;
use crate::executor::build::build;
use crate::executor::compiled::CompiledReverse;
#[cfg(not(target_arch = "wasm32"))]
use crate::executor::device::device_lock::Held;
use crate::executor::device::gpu::Gpu;
#[cfg(not(target_arch = "wasm32"))]
use crate::plan::candidates::timing_lengths;
use crate::plan::candidates::{own_bytes, timing_bytes, within_bound, Class};
use crate::plan::program::Program;
use crate::plan::target::Choice;
use crate::plan::target::Target;

#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod clock;
mod descriptor;
mod turn;

#[cfg(not(target_arch = "wasm32"))]
use clock::Clock;
pub(crate) use descriptor::Descriptor;
use turn::Turn;

/// `descriptor` compiled on `gpu`: under the static choice where autotune is
/// off, else under the choice kept for its class, or the one tuning makes now
/// ([`tune`]), kept. Where the tuning fails, or the chosen plan cannot be
/// built while the static one can, the static plan, with a warning. Only a
/// lost device is an error here that the static plan would not give.
pub(crate) async fn compile(gpu: &Gpu, descriptor: Descriptor) -> Result<CompiledReverse, Error> {
    let target = gpu.target();
    let desc = descriptor.operator();
    let static_choice = static_choice(gpu, &target);
    let program = descriptor.program(&target.clone().with_choice(static_choice))?;
    // A device forced to one family (the laboratory's) runs that family.
    let forced = target.choice().variant().is_some();
    if !gpu.autotunes() || forced || program.is_empty() {
        return build(gpu, &desc, program).await;
    }
    let class = Class::of(&program);
    if let Some(decided) = gpu.choices().decided(&class) {
        return run(gpu, &descriptor, decided, static_choice, program, class).await;
    }
    // A thread holding the device's lock does not wait for a tuning that
    // may need it: the static plan meanwhile, nothing kept.
    let wait = !gpu.device_lock().held_here();
    let Some(_turn) = Turn::take(gpu.device(), class, wait) else {
        return build(gpu, &desc, program).await;
    };
    // Decided meanwhile by the compile it waited for.
    if let Some(decided) = gpu.choices().decided(&class) {
        return run(gpu, &descriptor, decided, static_choice, program, class).await;
    }
    gpu.choices().count_tuning();
    let choice = match tune(gpu, &descriptor, &program, static_choice).await {
        Ok(choice) => choice,
        Err(error @ Error::DeviceLost { .. }) => return Err(error),
        Err(error) => {
            log::warn!(
                "revseq: autotune failed for {class:?} ({error}); this Gpu runs the static \
                 plan for the class from now on"
            );
            gpu.choices().fail(class);
            return build(gpu, &desc, program).await;
        }
    };
    let compiled = run(
        gpu,
        &descriptor,
        Some(choice),
        static_choice,
        program,
        class,
    )
    .await?;
    // Kept once all of it succeeded: nothing half-kept from a lost device.
    gpu.choices().keep(class, choice);
    Ok(compiled)
}

/// `descriptor` built under `decided` (`None`: the static choice, as for a
/// class whose tuning failed), or its static `program` where the choice is
/// the static one or cannot plan this descriptor. A chosen plan that cannot
/// be built while the static one can: the static plan, with a warning, the
/// class not tuned again.
async fn run(
    gpu: &Gpu,
    descriptor: &Descriptor,
    decided: Option<Choice>,
    static_choice: Choice,
    program: Program,
    class: Class,
) -> Result<CompiledReverse, Error> {
    let desc = descriptor.operator();
    let chosen = match decided {
        Some(choice) if choice != static_choice => {
            descriptor.program(&gpu.target().with_choice(choice))
        }
        _ => return build(gpu, &desc, program).await,
    };
    let Ok(chosen) = chosen else {
        return build(gpu, &desc, program).await;
    };
    match build(gpu, &desc, chosen).await {
        Err(error) if !matches!(error, Error::DeviceLost { .. }) => {
            log::warn!(
                "revseq: autotune's choice for {class:?} could not be built ({error}); \
                 this Gpu runs the static plan for the class from now on"
            );
            gpu.choices().fail(class);
            build(gpu, &desc, program).await
        }
        built => built,
    }
}

/// The plan the device makes without timing: its tuning, and the
/// laboratory's family forced on the device, or on its static choice alone.
fn static_choice(gpu: &Gpu, target: &Target) -> Choice {
    let choice = target.choice();
    choice.with_variant(choice.variant().or(gpu.static_variant()))
}

/// The choice for `descriptor`'s class (`program` is its static plan, made
/// under `static_choice`): the static one, untimed, below
/// [`MIN_TUNED_BYTES`](crate::MIN_TUNED_BYTES); else the fastest of every distinct program some
/// choice plans ([`fastest`]), timed on `descriptor` or, where its tensors
/// and the static plan's own buffers take more than [`Gpu::autotune_bytes`],
/// on the smaller descriptor of its layout that fits. A candidate is timed
/// where its own buffers fit in what the bound leaves; the static plan always is.
async fn tune(
    gpu: &Gpu,
    descriptor: &Descriptor,
    program: &Program,
    static_choice: Choice,
) -> Result<Choice, Error> {
    let target = gpu.target();
    let floor = gpu.autotune_floor();
    if program.tensor_bytes(TensorRole::Output) < floor {
        return Ok(static_choice);
    }
    let bound = gpu.autotune_bytes();
    let align = Some(u64::from(
        gpu.device().limits().min_uniform_buffer_offset_alignment,
    ));
    let static_target = target.with_choice(static_choice);
    let fits = |timed: &Descriptor| {
        timed
            .program(&static_target)
            .is_ok_and(|p| !p.is_empty() && timing_bytes(&p) + own_bytes(&p, align) <= bound)
    };
    let Some(timed) = descriptor.shrunk_until(fits) else {
        return Ok(static_choice);
    };
    let desc = timed.operator();
    // Every distinct program some choice plans, the static one first, each
    // where its own buffers fit in what the bound leaves.
    let candidates = within_bound(timed.candidates(&static_target)?, bound, align);
    if candidates.len() <= 1 {
        return Ok(static_choice);
    }
    let mut compiled = Vec::with_capacity(candidates.len());
    let mut choices = Vec::with_capacity(candidates.len());
    for (choice, program) in candidates {
        compiled.push(build(gpu, &desc, program).await?);
        choices.push(choice);
    }
    let fastest = fastest(gpu, &desc, &compiled).await?;
    log::debug!(
        "revseq: autotune chose {:?} ({}) of {} plans for {:?}",
        compiled[fastest].variant(),
        choices[fastest].text(),
        compiled.len(),
        Class::of(program)
    );
    Ok(choices[fastest])
}

/// The index of the fastest of `compiled` (one descriptor's candidates, in
/// one mode, the static choice first), each timed on the same buffers by
/// [`Clock`], every round submitted alone, as
/// [`candidates::fastest`](crate::plan::candidates::fastest) decides.
#[cfg(not(target_arch = "wasm32"))]
async fn fastest(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
    compiled: &[CompiledReverse],
) -> Result<usize, Error> {
    use crate::executor::device::scope::block_on;

    let context = "timing the candidate plans";
    let first = &compiled[0];
    let tuned = gpu.scoped(context, || buffers(gpu, desc, first)).await??;
    let input = tuned.input.as_ref().unwrap_or(&tuned.output);
    let buffers = [input, &tuned.lengths, &tuned.output];
    let bindings = buffers.map(|buffer| buffer.as_entire_buffer_binding());
    let clock = Clock::new(gpu);
    // Each round under an error scope of its own: what wgpu reports of it
    // (out of memory, validation) is this call's error.
    let time = |i: usize, repeats: u32| {
        let run = || {
            clock.time(gpu, |encoder| {
                for _ in 0..repeats {
                    compiled[i].record_on(encoder, [&bindings[0], &bindings[1], &bindings[2]])?;
                }
                Ok(())
            })
        };
        block_on(gpu.scoped(context, run))?
    };
    let (fastest, medians) = crate::plan::candidates::fastest(compiled.len(), time)?;
    log::debug!(
        "revseq: autotune timed {} plans by the {} clock: {medians:?}",
        compiled.len(),
        if clock.on_device() {
            "device's"
        } else {
            "host's"
        }
    );
    Ok(fastest)
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

/// The tuning buffers, of the sizes `compiled` binds, with the usage a
/// caller's bindings must have and no more (`STORAGE`: a staged candidate
/// copies by its copy kernel, as it does on such bindings): the input and
/// output zeroed, the lengths spread over the axis. In place, no input: the
/// tensor is bound at both places.
#[cfg(not(target_arch = "wasm32"))]
fn buffers(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
    compiled: &CompiledReverse,
) -> Result<Tuned, Error> {
    let usage = wgpu::BufferUsages::STORAGE;
    let buffer = |label, role| {
        gpu.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: compiled.binding_size(role).max(4),
            usage,
            mapped_at_creation: false,
        })
    };
    let lengths = timing_lengths(desc, compiled.binding_size(TensorRole::SequenceLengths));
    let context = "creating the tuning buffers";
    let lengths = gpu.buffer_init("revseq::tuning_lengths", &lengths, usage, context)?;
    let input = match compiled.program.mode() {
        Mode::OutOfPlace => Some(buffer("revseq::tuning_input", TensorRole::Input)),
        Mode::InPlace => None,
    };
    Ok(Tuned {
        input,
        lengths,
        output: buffer("revseq::tuning_output", TensorRole::Output),
    })
}

/// The tuning buffers: in place, no input of its own.
#[cfg(not(target_arch = "wasm32"))]
struct Tuned {
    input: Option<Held<wgpu::Buffer>>,
    lengths: Held<wgpu::Buffer>,
    output: Held<wgpu::Buffer>,
}
