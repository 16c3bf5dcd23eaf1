//! `runs`: the reversed axis is outside a contiguous innermost dimension along
//! which the length does not change (ONNX's `[batch, time, ...]` and
//! `[time, batch, ...]`): a whole run of the innermost dimension moves as one from
//! its mirrored position (`src/kernels/runs/runs.wgsl`), on whichever storage the
//! layout and device allow.

use super::Variant;
use super::{
    family_keys, reverses_rows, same_along_runs, vector_constants, vector_sizes, vectors_in_64,
    Family, Fields, PipelineKey, VectorLayout, Walk, WIDTHS,
};
use crate::descriptor::layout::Layout;
use crate::descriptor::Mode;
use crate::kernels::divisor::Divisor;
use crate::kernels::params::Params;
use crate::kernels::shaders::{KernelFile, Storage};
use crate::kernels::tuning::{self, Profile, Tuning};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Runs {
    pub(super) vector: VectorLayout,
    pub(super) steps: u32,
    /// Invocations that interleave their vectors: invocation i of a group takes
    /// every `interleave`-th vector from the group's i-th.
    pub(super) interleave: u32,
    /// Invocations per run (a run: a row of the innermost dimension at one axis
    /// position; `params.per_row`, as `rows` names its own).
    pub(super) per_row: u32,
    pub(super) access_bits: u32,
    pub(super) invocations: u32,
    /// Whether the invocations walk the piece's axis positions, each its run's
    /// or a fixed grid lane by lane.
    pub(super) walk: Walk,
    /// Lanes a fixed grid walks ([`Walk::WindowByLane`]); 0 elsewhere.
    pub(super) lanes: u32,
    /// In place: the phases of axis positions each lane's invocations walk
    /// (`tuning::swap_phases`); `None` out of place.
    pub(super) phases: Option<u32>,
}

/// `runs` on `layout`, before it is fitted: where its runs are whole vectors
/// or words.
fn new(layout: &Layout, element_bytes: u32, profile: &Profile) -> Option<Runs> {
    let vector = VectorLayout::find(layout, element_bytes, vector_sizes(element_bytes))?;
    let most = tuning::runs_steps(profile.tuning, vector.bytes);
    let vecs = vector.vecs;
    let interleave = tuning::run_interleave(profile.tuning);
    // A group of invocations interleaves the most steps where a run fills it, else
    // half as many; a run too short for that takes consecutive vectors, half the
    // most on a CPU, one on a GPU.
    let alone = tuning::runs_alone(profile.tuning, most, vecs);
    let (steps, interleave) = [most, most / 2]
        .into_iter()
        .find(|&steps| steps > 0 && vecs >= interleave * steps)
        .map_or((alone, 1), |steps| (steps, interleave));
    Some(Runs {
        vector,
        steps,
        interleave,
        per_row: 0,
        access_bits: tuning::move_bits(profile, vectors_in_64(element_bytes, vector.bytes)),
        invocations: 0,
        walk: Walk::None,
        lanes: 0,
        phases: None,
    })
}

/// Invocations a run of `vecs` vectors takes, `steps` each, in teams of
/// `interleave`: whole teams.
fn per_run(vecs: u32, steps: u32, interleave: u32) -> u32 {
    vecs.div_ceil(steps * interleave) * interleave
}

impl Runs {
    /// The work in place on `layout` (`src/kernels/runs/swap.wgsl`): each lane's
    /// invocations swap its vectors, over the phases of positions the tuning
    /// gives them.
    pub(super) fn in_place(
        self,
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        tuning: Tuning,
    ) -> Option<Runs> {
        Runs {
            steps: tuning::swap_steps(tuning, self.steps),
            phases: Some(1),
            ..self
        }
        .fit(layout, element_bytes, output_bytes, tuning)
    }

    /// Runs of one of the `positions` along the axis: a lane.
    pub(super) fn lanes(&self, positions: u32) -> u64 {
        self.vector.lines / u64::from(positions.max(1))
    }

    /// Invocations of a pair of a piece of `positions` walked run by run: one per
    /// vector group of one position's runs.
    pub(super) fn by_run(&self, positions: u32) -> u64 {
        u64::from(self.invocations / positions.max(1))
    }

    /// The work for a windowed pair of a piece of `positions` and an input window
    /// (`tuning::walks_lanes`): an invocation per vector group of one position's
    /// runs, each walking them all, or a fixed grid striding over the runs the
    /// pair moves, lane by lane, in teams of `tuning::lane_walk_interleave`.
    fn walk(self, positions: u32, tuning: Tuning) -> Runs {
        let lanes = self.lanes(positions);
        let by_run = self.by_run(positions);
        match tuning::walks_lanes(tuning, lanes, by_run) {
            true => {
                let vecs = self.vector.vecs;
                let interleave = tuning::lane_walk_interleave(tuning, self.interleave, vecs);
                let per_row = per_run(vecs, self.steps, interleave);
                let shares = self.vector.lines * u64::from(per_row);
                Runs {
                    interleave,
                    per_row,
                    invocations: lane_grid(shares, tuning),
                    walk: Walk::WindowByLane,
                    lanes: lanes as u32,
                    ..self
                }
            }
            false => Runs {
                invocations: by_run as u32,
                walk: Walk::Window,
                ..self
            },
        }
    }
}

/// The invocations of a fixed grid walking `shares` (invocation shares of runs)
/// lane by lane: whole workgroups, at most `tuning::pair_invocations`.
fn lane_grid(shares: u64, tuning: Tuning) -> u32 {
    let grid = u64::from(tuning::pair_invocations(tuning));
    shares
        .next_multiple_of(u64::from(crate::kernels::shaders::WORKGROUP_SIZE))
        .min(grid) as u32
}

impl Family for Runs {
    fn offered(layout: &Layout, _mode: Mode, _tuning: Tuning) -> bool {
        !reverses_rows(layout) && same_along_runs(layout)
    }

    /// Its own walk: each piece's positions in each invocation, fitted to
    /// the first piece ([`Runs::walk`]).
    fn walking(
        self,
        first: &Layout,
        first_bytes: u64,
        _axis_size: u32,
        element_bytes: u32,
        profile: &Profile,
    ) -> Option<Option<Runs>> {
        let fitted = self.fit(first, element_bytes, first_bytes, profile.tuning);
        Some(fitted.map(|p| p.walk(first.dims[first.axis].size, profile.tuning)))
    }

    /// Where the length is the same along the innermost dimension, the axis
    /// outside it, and runs are whole vectors or words; in place, each lane's
    /// invocations swapping its vectors.
    fn on(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        mode: Mode,
        profile: &Profile,
    ) -> Option<Runs> {
        if reverses_rows(layout) || !same_along_runs(layout) {
            return None;
        }
        let work = new(layout, element_bytes, profile)?.fit(
            layout,
            element_bytes,
            output_bytes,
            profile.tuning,
        )?;
        match mode {
            Mode::OutOfPlace => Some(work),
            Mode::InPlace => work.in_place(layout, element_bytes, output_bytes, profile.tuning),
        }
    }

    /// Its vectors, lanes and invocations, walked as this work walks; `None`
    /// where the piece's runs are not whole vectors of this work's size.
    fn fit(
        self,
        piece: &Layout,
        element_bytes: u32,
        _output_bytes: u64,
        tuning: Tuning,
    ) -> Option<Runs> {
        let vector = VectorLayout::of(piece, element_bytes, self.vector.bytes)?;
        let positions = piece.dims[piece.axis].size;
        let per_row = per_run(vector.vecs, self.steps, self.interleave);
        let shares = vector.lines * u64::from(per_row);
        let fitted = Runs {
            vector,
            per_row,
            invocations: shares as u32,
            ..self
        };
        Some(match (self.phases, self.walk) {
            (Some(_), _) => {
                let phases = tuning::swap_phases(tuning, positions / 2);
                Runs {
                    invocations: (fitted.lanes(positions) * u64::from(phases * per_row)) as u32,
                    phases: Some(phases),
                    ..fitted
                }
            }
            (None, Walk::None) => fitted,
            (None, Walk::Window) => Runs {
                invocations: fitted.by_run(positions) as u32,
                ..fitted
            },
            // `runs` walks no pairs across windows: that is `general`'s.
            (None, Walk::WindowByLane | Walk::Across) => Runs {
                invocations: lane_grid(shares, tuning),
                lanes: fitted.lanes(positions) as u32,
                ..fitted
            },
        })
    }

    /// Pieces walked against each input window where the tuning walks them
    /// (`tuning::walks_windows`: its lanes, runs per position, and the
    /// invocations a walk run by run starts), moving every run once with no
    /// copies through scratch.
    fn walks_windows(
        &self,
        layout: &Layout,
        output_bytes: u64,
        binding: u64,
        tuning: Tuning,
    ) -> bool {
        let positions = layout.dims[layout.axis].size;
        tuning::walks_windows(
            tuning,
            [self.lanes(positions), self.by_run(positions)],
            output_bytes,
            binding,
        )
    }

    fn fields(&self) -> Fields {
        Fields {
            steps: self.steps,
            vector_bytes: self.vector.bytes,
            access_bits: self.access_bits,
            walk: self.walk,
            wide_multiply: false,
        }
    }

    fn invocations(&self) -> u32 {
        self.invocations
    }

    fn write(&self, params: &mut Params) {
        params.count = self.invocations;
        params.vecs = Divisor::new(self.vector.vecs);
        params.per_row = Divisor::new(self.per_row);
        params.interleave = self.interleave;
        params.lanes = self.lanes;
        params.blocks = Divisor::new(self.phases.unwrap_or(1).max(1));
    }

    fn kernel(key: &PipelineKey) -> (KernelFile, Storage) {
        let kernel = if key.in_place { SWAP } else { RUNS };
        (kernel, Storage::of(key.vector_bytes, key.access_bits))
    }

    fn constants(key: &PipelineKey, constants: &mut Vec<(&'static str, f64)>) {
        vector_constants(key, constants);
        if key.in_place {
            return;
        }
        constants.push(("WALK", f64::from(u8::from(key.walk != Walk::None))));
        constants.push((
            "WALK_LANES",
            f64::from(u8::from(key.walk == Walk::WindowByLane)),
        ));
    }

    fn keys() -> impl Iterator<Item = PipelineKey> {
        let most = |_, vector_bytes| (1, tuning::runs_steps(Tuning::Cpu, vector_bytes));
        family_keys(Variant::Runs, &WIDTHS, vector_sizes, most, vectors_in_64)
            .flat_map(|key| {
                [Walk::None, Walk::Window, Walk::WindowByLane]
                    .map(|walk| PipelineKey { walk, ..key })
            })
            .chain(
                family_keys(Variant::Runs, &WIDTHS, vector_sizes, most, vectors_in_64).map(|key| {
                    PipelineKey {
                        in_place: true,
                        ..key
                    }
                }),
            )
    }
}

/// The family's WGSL files, and its kernels among them.
const FILES: &[(&str, &str)] = wgsl!["runs/runs", "runs/swap", "runs/interleave"];
const RUNS: KernelFile = KernelFile::new("runs/runs", FILES);
const SWAP: KernelFile = KernelFile::new("runs/swap", FILES);
