//! Autotune on burn's devices: the plan a class of descriptor runs on a
//! client, chosen by timing revseq's candidates (`revseq::program::candidates`)
//! on the client itself with cubecl's own profiler, in revseq's rounds
//! (`revseq::program::fastest`, as revseq's `Gpu` times them on its device),
//! and kept for the class (`Program::class`) on the client. On by default where the client's adapter is a GPU, off on CPU
//! adapters and in the browser (timing blocks); `REVSEQ_AUTOTUNE=on` or `off`
//! sets it, as for revseq's own devices.

use burn_cubecl::cubecl::prelude::Client;
use burn_cubecl::cubecl::server::Handle;
use burn_cubecl::cubecl::server::ProfileError;
use revseq::program::{self, Choice, Program};
use revseq::{ReverseSubsequences, TensorRole, MAX_TUNING_BYTES, MIN_TUNED_BYTES};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use crate::launch::Launch;

/// The laboratory's override of the default: 0 none, 1 on, 2 off.
static FORCED: AtomicU8 = AtomicU8::new(0);

/// Tunings started in this process.
static TUNINGS: AtomicUsize = AtomicUsize::new(0);

/// Sets autotune on or off for every client from now on (`None`: the default).
pub(crate) fn force(on: Option<bool>) {
    FORCED.store(on.map_or(0, |on| if on { 1 } else { 2 }), Ordering::Relaxed);
}

pub(crate) fn tunings() -> usize {
    TUNINGS.load(Ordering::Relaxed)
}

/// Whether a client whose adapter is a GPU (`gpu`) tunes.
pub(crate) fn tunes(gpu: bool) -> bool {
    if cfg!(target_family = "wasm") {
        return false;
    }
    match FORCED.load(Ordering::Relaxed) {
        1 => return true,
        2 => return false,
        _ => {}
    }
    match std::env::var("REVSEQ_AUTOTUNE").as_deref() {
        Ok("on" | "1" | "true") => true,
        Ok("off" | "0" | "false") => false,
        _ => gpu,
    }
}

/// Whether `program`, a static plan, is worth timing: 1 MiB of output and up
/// (below, any plan runs in a few microseconds on a GPU, less than the call's
/// host cost), its tensors within the tuning bound.
pub(crate) fn worth_timing(program: &Program) -> bool {
    program.tensor_bytes(TensorRole::Output) >= MIN_TUNED_BYTES
        && program::timing_bytes(program) <= MAX_TUNING_BYTES
}

/// The fastest of `candidates` (the static plan first) for `desc` on
/// `client`, timed on buffers of the client's own as `program::fastest` says.
/// Candidates whose own buffers would take the tuning past
/// [`MAX_TUNING_BYTES`] are not timed (`program::within_bound`). `None` where
/// the client cannot profile: the static plan, with a warning.
pub(crate) fn fastest(
    client: &Client,
    desc: &ReverseSubsequences,
    candidates: Vec<(Choice, Program)>,
) -> Option<Choice> {
    TUNINGS.fetch_add(1, Ordering::Relaxed);
    // cubecl passes the uniform as the launch's info: no buffer of its own.
    let timed: Vec<(Choice, Launch)> = program::within_bound(candidates, MAX_TUNING_BYTES, None)
        .into_iter()
        .map(|(choice, program)| (choice, Launch::new(program)))
        .collect();
    match timed.len() {
        0 => return None,
        1 => return Some(timed[0].0),
        _ => {}
    }
    let handles = buffers(client, desc, timed[0].1.program());
    let tensor = |role: TensorRole| match role {
        TensorRole::Input => handles[0].clone(),
        TensorRole::SequenceLengths => handles[1].clone(),
        _ => handles[2].clone(),
    };
    let time = |i: usize, repeats: u32| {
        let launch = &timed[i].1;
        let ((), duration) = client.profile(
            || {
                for _ in 0..repeats {
                    launch.launch(client, tensor);
                }
            },
            "revseq autotune",
        )?;
        let ticks = pollster::block_on(duration.resolve());
        Ok::<_, ProfileError>(ticks.map(|t| t.duration()).unwrap_or_default())
    };
    let (chosen, medians) = match program::fastest(timed.len(), time) {
        Ok(fastest) => fastest,
        Err(error) => {
            log::warn!(
                "revseq-burn: autotune could not time on this client ({error}); running the \
                 static plan"
            );
            return None;
        }
    };
    log::debug!(
        "revseq-burn: autotune timed {} plans: {medians:?}, chose {:?}",
        timed.len(),
        timed[chosen].1.program().variant()
    );
    Some(timed[chosen].0)
}

/// The tuning's input, lengths and output on `client` (in place, the output
/// is the tensor, at the input's place too): the lengths spread over the axis.
fn buffers(client: &Client, desc: &ReverseSubsequences, program: &Program) -> [Handle; 3] {
    let size = |role| program.tensor_bytes(role).next_multiple_of(4).max(4) as usize;
    let lengths = program::timing_lengths(desc, size(TensorRole::SequenceLengths) as u64);
    let output = client.empty(size(TensorRole::Output));
    let input = match program.is_in_place() {
        true => output.clone(),
        false => client.empty(size(TensorRole::Input)),
    };
    [input, client.create_from_slice(&lengths), output]
}
