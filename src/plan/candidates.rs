//! The plans that can serve one descriptor, one for each profile it can be
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
use crate::plan::program::Program;
use crate::plan::target::Target;

/// A profile a plan is made under: the tuning, and the family forced, where
/// one is. [`candidates`] gives each with its program;
/// [`Target::with_choice`] plans under one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Choice {
    pub(crate) tuning: Tuning,
    pub(crate) variant: Option<Variant>,
}

impl Choice {
    /// The family it forces, where it forces one.
    pub fn variant(&self) -> Option<Variant> {
        self.variant
    }
}

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

/// Every distinct program some profile plans for `desc` on `target`, with its
/// choice, `target`'s own plan first: each family forced, under a CPU
/// adapter's tuning and a GPU's. Two profiles that plan the same program give
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

/// Timed rounds each candidate runs in [`fastest`], after one untimed.
pub const ROUNDS: usize = 5;

/// What one timed round of a candidate should last at least: a shorter run
/// is repeated within the round (at most 16 times), so that the clock's
/// granularity does not decide.
pub const ROUND_TIME: Duration = Duration::from_millis(2);

/// How much faster than the first candidate (the static plan) another must
/// run to be chosen instead: less is within the noise of a few rounds.
pub const MARGIN: f64 = 1.05;

/// The index of the fastest of `count` candidates, the first of them the
/// static plan, and each one's median round: `time(i, repeats)` runs
/// candidate `i` `repeats` times and says how long that took. Each runs once
/// untimed (a pipeline's and the buffers' first use; the slowest sets how
/// many runs make a round of [`ROUND_TIME`]), then [`ROUNDS`] rounds, the
/// candidates taking turns within each; the static plan stays unless another
/// beats it by more than [`MARGIN`]. revseq's `Gpu` times with its device's
/// timestamps, revseq-burn with cubecl's profiler; the first error ends it.
pub fn fastest<E>(
    count: usize,
    mut time: impl FnMut(usize, u32) -> Result<Duration, E>,
) -> Result<(usize, Vec<Duration>), E> {
    let mut once = Duration::ZERO;
    for i in 0..count {
        once = once.max(time(i, 1)?);
    }
    let repeats = match once.is_zero() {
        true => 16,
        false => (ROUND_TIME.as_secs_f64() / once.as_secs_f64()).clamp(1.0, 16.0) as u32,
    };
    let mut times = vec![Vec::with_capacity(ROUNDS); count];
    for _ in 0..ROUNDS {
        for (i, times) in times.iter_mut().enumerate() {
            times.push(time(i, repeats)?);
        }
    }
    let medians: Vec<Duration> = (times.iter_mut())
        .map(|times| {
            times.sort();
            times[times.len() / 2]
        })
        .collect();
    let fastest = (0..count).min_by_key(|&i| medians[i]).unwrap_or(0);
    let chosen = match medians.first() {
        Some(first) if first.as_secs_f64() > medians[fastest].as_secs_f64() * MARGIN => fastest,
        _ => 0,
    };
    Ok((chosen, medians))
}
