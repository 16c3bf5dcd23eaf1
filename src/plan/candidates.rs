//! The plans that can serve one descriptor, one for each choice it can be
//! planned under (a tuning, and a family forced or not): what autotune times,
//! on revseq's own device and on burn's, and what it keeps its choice for (a
//! [`Class`] of descriptors).

use std::hash::{Hash, Hasher};
use std::time::Duration;

use crate::descriptor::error::{Error, TensorRole};
use crate::descriptor::in_place::ReverseInPlace;
use crate::descriptor::operator::ReverseSubsequences;
use crate::descriptor::Mode;
use crate::kernels::tuning::Tuning;
use crate::kernels::variant::Variant;
use crate::kernels::PipelineKey;
use crate::plan::cut::PLACEHOLDER_BYTES;
use crate::plan::program::Program;
use crate::plan::target::{Choice, Target};

/// What a choice is kept for: descriptors of one mode whose static plans share
/// a pipeline key, of output sizes within a power of two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Class {
    mode: Mode,
    key: PipelineKey,
    bucket: u32,
}

impl Class {
    pub(crate) fn of(program: &Program) -> Class {
        Class {
            mode: program.mode(),
            key: program.key(),
            bucket: program.tensor_bytes(TensorRole::Output).max(1).ilog2(),
        }
    }

    /// A digest of the class that lasts across runs of one build: FNV-1a of
    /// its fields as they hash (no random state), cheap enough for every
    /// compile to look its choice up by.
    pub(crate) fn digest(&self) -> u64 {
        let mut fnv = Fnv(0xcbf2_9ce4_8422_2325);
        self.hash(&mut fnv);
        fnv.finish()
    }
}

/// FNV-1a, 64 bits, as a [`Hasher`].
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

impl Program {
    /// The class of descriptors this program, a static plan, stands for: its
    /// mode, its pipeline key and its output bytes to a power of two, as a
    /// digest that lasts across runs of one build of revseq. A choice timed
    /// for one descriptor serves the others of its class.
    pub fn class(&self) -> u64 {
        Class::of(self).digest()
    }
}

/// Every distinct program some choice plans for `desc` on `target`, with its
/// choice, `target`'s own plan first: each family forced, under a CPU
/// adapter's tuning and a GPU's. Two choices that plan the same program give
/// it once. The error is `target`'s own plan's, where it has one.
pub fn candidates(
    desc: &ReverseSubsequences,
    target: &Target,
) -> Result<Vec<(Choice, Program)>, Error> {
    every(target, |target| Program::out_of_place(desc, target))
}

/// [`candidates`] in place.
pub fn candidates_in_place(
    desc: &ReverseInPlace,
    target: &Target,
) -> Result<Vec<(Choice, Program)>, Error> {
    every(target, |target| Program::in_place(desc, target))
}

fn every(
    target: &Target,
    plan: impl Fn(&Target) -> Result<Program, Error>,
) -> Result<Vec<(Choice, Program)>, Error> {
    let mut candidates = vec![(target.choice(), plan(target)?)];
    for tuning in [Tuning::Cpu, Tuning::Gpu] {
        for variant in std::iter::once(None).chain(Variant::FAMILIES.map(Some)) {
            let choice = Choice { tuning, variant };
            let Ok(program) = plan(&target.clone().with_choice(choice)) else {
                continue;
            };
            if !candidates.iter().any(|(_, other)| program.same(other)) {
                candidates.push((choice, program));
            }
        }
    }
    Ok(candidates)
}

/// Bytes of the tensors tuning `program` (a static plan) binds: the input,
/// the lengths and the output (in place, the tensor once), each rounded up
/// as allocated.
pub fn timing_bytes(program: &Program) -> u64 {
    let roles: &[TensorRole] = match program.mode() {
        Mode::OutOfPlace => &[
            TensorRole::Input,
            TensorRole::SequenceLengths,
            TensorRole::Output,
        ],
        Mode::InPlace => &[TensorRole::SequenceLengths, TensorRole::Output],
    };
    let size = |role: &TensorRole| program.tensor_bytes(*role).next_multiple_of(4).max(4);
    roles.iter().map(size).sum()
}

/// Bytes a candidate allocates of its own when built: its scratch, the
/// placeholder it binds, and where its executor keeps the uniforms in a
/// buffer, each dispatch's on `uniform_align` (`None` where it passes them
/// another way).
pub fn own_bytes(program: &Program, uniform_align: Option<u64>) -> u64 {
    let scratch: u64 = program.scratch_bytes().iter().sum();
    let placeholder = match program.binds_placeholder() {
        true => PLACEHOLDER_BYTES,
        false => 0,
    };
    let uniforms: u64 = match uniform_align {
        Some(align) => (program.dispatches().iter())
            .map(|dispatch| (dispatch.uniform().len() as u64).next_multiple_of(align.max(1)))
            .sum(),
        None => 0,
    };
    scratch + placeholder + uniforms
}

/// The candidates tuning times within `bound` bytes: the first (the static
/// plan) with the tensors ([`timing_bytes`]), then each whose own buffers
/// ([`own_bytes`]) fit in what the others taken leave, all of them alive
/// together while they take turns.
pub fn within_bound(
    candidates: Vec<(Choice, Program)>,
    bound: u64,
    uniform_align: Option<u64>,
) -> Vec<(Choice, Program)> {
    let mut candidates = candidates.into_iter();
    let Some(first) = candidates.next() else {
        return Vec::new();
    };
    let mut used = timing_bytes(&first.1) + own_bytes(&first.1, uniform_align);
    let mut taken = vec![first];
    for (choice, program) in candidates {
        let own = own_bytes(&program, uniform_align);
        if used + own > bound {
            log::debug!("revseq: autotune leaves {choice:?} untimed: its buffers pass the bound");
            continue;
        }
        used += own;
        taken.push((choice, program));
    }
    taken
}

/// The sequence lengths tuning runs `desc` on, as the bytes of a buffer of
/// `bytes` bytes: spread over every length from 0 to the axis's size, so that
/// a candidate is timed on short, long and full reversals alike.
pub fn timing_lengths(desc: &ReverseSubsequences, bytes: u64) -> Vec<u8> {
    let width = desc.sequence_lengths.data_type().size_in_bytes() as usize;
    let axis = u64::from(desc.input.sizes()[desc.axis as usize]);
    let slots = bytes / width as u64;
    (0..slots)
        .flat_map(|i| {
            let length = (i * 37 + 11) % (axis + 1);
            length.to_le_bytes().into_iter().take(width)
        })
        .collect()
}

/// The most bytes tuning allocates at once by default
/// ([`Gpu::with_autotune_bytes`](crate::Gpu::with_autotune_bytes)): its
/// tensors, and every candidate's scratch, placeholder and uniforms. A larger
/// descriptor is timed as a smaller one of its layout.
pub const MAX_TUNING_BYTES: u64 = 1 << 30;

/// Below this many output bytes (in place, the tensor's), a descriptor is not
/// timed and its class keeps the static choice: any plan runs in a few
/// microseconds on a GPU, less than the call costs on the host, and timing it
/// would cost every candidate's pipeline for nothing.
pub const MIN_TUNED_BYTES: u64 = 1 << 20;

/// Timed rounds each candidate runs in [`fastest`], after one untimed.
pub const ROUNDS: usize = 5;

/// What one timed round of a candidate should last at least: a shorter run
/// is repeated within the round (at most 16 times), so that the clock's
/// granularity does not decide.
pub const ROUND_TIME: Duration = Duration::from_millis(2);

/// The most the timed rounds of one tuning should take, every candidate's
/// together: where [`ROUNDS`] of them would take longer, fewer run, and where
/// one would, the untimed runs decide. A GPU's runs take micro- to
/// milliseconds and never come near it; a CPU adapter's of a large tensor can
/// take seconds each, long enough that neither the clock nor the first use
/// decides.
pub const ROUNDS_BUDGET: Duration = Duration::from_secs(1);

/// How much faster than the first candidate (the static plan) another must
/// run to be chosen instead: less is within the noise of a few rounds.
pub const MARGIN: f64 = 1.05;

/// How many times slower than the fastest candidate's untimed run another's
/// may be and still be timed in rounds: past it no round's noise could make
/// it the fastest, and timing it would cost more than all the others (a
/// family that fits the layout badly can be many times slower). The first
/// candidate, the static plan, is always timed.
pub const HOPELESS: f64 = 4.0;

/// The index of the fastest of `count` candidates, the first of them the
/// static plan, and each one's median round (zero for one left out):
/// `time(i, repeats)` runs candidate `i` `repeats` times and says how long
/// that took. The static plan runs first, its time not taken: the buffers'
/// first use (wgpu zeroes a new buffer at its first submission, memory is
/// touched for the first time) is no candidate's. Each then runs once (its
/// pipeline's first use); one more than [`HOPELESS`] times slower than the
/// fastest of those is left out, but the static plan; the slowest left sets how many runs make a
/// round of [`ROUND_TIME`]; then [`ROUNDS`] rounds (fewer within
/// [`ROUNDS_BUDGET`]), the candidates taking turns within each; the static
/// plan stays unless another beats it by more than [`MARGIN`]. revseq's `Gpu`
/// times with its device's timestamps, revseq-burn with cubecl's profiler;
/// the first error ends it.
pub fn fastest<E>(
    count: usize,
    mut time: impl FnMut(usize, u32) -> Result<Duration, E>,
) -> Result<(usize, Vec<Duration>), E> {
    if count > 0 {
        time(0, 1)?;
    }
    let mut once = Vec::with_capacity(count);
    for i in 0..count {
        once.push(time(i, 1)?);
    }
    let quickest = once.iter().min().copied().unwrap_or_default();
    let timed: Vec<usize> = (0..count)
        .filter(|&i| i == 0 || once[i].as_secs_f64() <= quickest.as_secs_f64() * HOPELESS)
        .collect();
    let slowest = timed.iter().map(|&i| once[i]).max().unwrap_or_default();
    let repeats = match slowest.is_zero() {
        true => 16,
        false => (ROUND_TIME.as_secs_f64() / slowest.as_secs_f64()).clamp(1.0, 16.0) as u32,
    };
    let round: f64 = timed.iter().map(|&i| once[i].as_secs_f64()).sum::<f64>() * f64::from(repeats);
    let rounds = match round > 0.0 {
        true => (ROUNDS_BUDGET.as_secs_f64() / round).clamp(0.0, ROUNDS as f64) as usize,
        false => ROUNDS,
    };
    let mut times: Vec<Vec<Duration>> = match rounds {
        0 => once.iter().map(|&once| vec![once]).collect(),
        _ => vec![Vec::with_capacity(rounds); count],
    };
    for _ in 0..rounds {
        for &i in &timed {
            times[i].push(time(i, repeats)?);
        }
    }
    let medians: Vec<Duration> = (times.iter_mut())
        .map(|times| {
            times.sort();
            times.get(times.len() / 2).copied().unwrap_or_default()
        })
        .collect();
    let fastest = (timed.iter().copied())
        .min_by_key(|&i| medians[i])
        .unwrap_or(0);
    let chosen = match medians.first() {
        Some(first) if first.as_secs_f64() > medians[fastest].as_secs_f64() * MARGIN => fastest,
        _ => 0,
    };
    Ok((chosen, medians))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Candidates that take `costs[i]` microseconds a run: how many runs each
    /// was given, and what `fastest` chose.
    fn tune(costs: &[u64]) -> (usize, Vec<u32>) {
        let mut runs = vec![0; costs.len()];
        let time = |i: usize, repeats: u32| {
            runs[i] += repeats;
            Ok::<_, ()>(Duration::from_micros(costs[i] * u64::from(repeats)))
        };
        let (chosen, _) = fastest(costs.len(), time).unwrap();
        (chosen, runs)
    }

    #[test]
    fn a_hopeless_candidate_runs_once_and_the_rest_in_rounds() {
        // 40 µs a run: 2 ms rounds repeat it 16 times (the most), 5 rounds.
        let (chosen, runs) = tune(&[100, 40, 40 * 30, 50]);
        assert_eq!(chosen, 1);
        assert_eq!(
            runs[2], 1,
            "a candidate 30 times the fastest is not timed in rounds"
        );
        // The slowest timed (100 µs) sets the repeats: 2 ms / 100 µs = 20, at most 16.
        assert_eq!(
            runs[0],
            2 + ROUNDS as u32 * 16,
            "a warm-up, then as the others"
        );
        assert_eq!(runs[1], runs[3]);
    }

    #[test]
    fn the_static_plan_is_timed_however_slow_and_kept_within_the_margin() {
        let (chosen, runs) = tune(&[40 * 30, 40]);
        assert_eq!(chosen, 1);
        assert_eq!(
            runs[0],
            2 + ROUNDS as u32,
            "one run of 1.2 ms makes a round"
        );
        assert_eq!(runs[1], 1 + ROUNDS as u32);
        let (chosen, _) = tune(&[102, 100]);
        assert_eq!(chosen, 0, "2% faster is within the margin");
    }

    #[test]
    fn long_runs_take_fewer_rounds_within_the_budget_and_the_longest_none() {
        // 150 ms and 100 ms a run: a round of both takes 250 ms, 4 fit in 1 s.
        let (chosen, runs) = tune(&[150_000, 100_000]);
        assert_eq!((chosen, runs), (1, vec![6, 5]));
        // 22 s a run (a CPU adapter's 256 MiB): the untimed runs decide.
        let (chosen, runs) = tune(&[22_000_000, 21_000_000, 22_500_000]);
        assert_eq!((chosen, runs), (0, vec![2, 1, 1]), "within the margin");
        let (chosen, runs) = tune(&[22_000_000, 2_000_000, 3_000_000]);
        assert_eq!((chosen, runs), (1, vec![2, 1, 1]));
    }
}
