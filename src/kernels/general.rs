//! `general`: every layout, the fallback of the vector families. One invocation per
//! output element for 4-, 8- and 16-byte elements (`src/kernels/general/elements.wgsl`),
//! each moved whole (a word, `vec2` or `vec4`),
//! one per 32-bit word of the output span for 1- and 2-byte ones
//! (`general/subwords.wgsl`), which merges its elements into the word so that no
//! two invocations ever write one word.
//!
//! In place ([`ReverseInPlace`](crate::ReverseInPlace)), one invocation per pair
//! of positions a lane may swap, `t` and `L - 1 - t` for `t` below half the axis
//! (`src/kernels/general/swap.wgsl`): it loads the lane's length and, where `t` is
//! below half of it, swaps the two elements through the output binding, whole, or
//! for 1- and 2-byte elements by an atomic XOR of each word with the bytes that
//! change (`general/swap_subwords.wgsl`), so that invocations sharing a word
//! never undo each other's writes.

use super::Variant;
use super::{family_keys, words_only, Family, Fields, PipelineKey, Walk, WIDTHS};
use crate::descriptor::layout::Layout;
use crate::descriptor::Mode;
use crate::kernels::divisor::Divisor;
use crate::kernels::params::Params;
use crate::kernels::shaders::{KernelFile, Storage};
use crate::kernels::tuning::{self, Profile, Tuning};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct General {
    pub(super) invocations: u32,
    /// The divisions multiply in 64 bits (`tuning::wide_multiply`).
    wide_multiply: bool,
    /// In place: the axis of the layout and the pairs a lane of it may swap
    /// (half the axis), which the invocations count in its place.
    pairs: Option<(usize, u32)>,
    /// In place across windows.
    across: Option<Across>,
}

/// In place across windows: the front positions an invocation walks, the
/// elements one unit holds (a 16-byte vector of a run of one length, where more
/// than one), the units it takes along the innermost dimension, and the piece's
/// rank and units in its innermost dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Across {
    front_positions: u32,
    per_unit: u32,
    units: u32,
    rank: usize,
    run_units: u32,
}

impl General {
    /// The work in `mode`, which runs every layout: out of place, one
    /// invocation per output element (4 bytes and wider) or per 32-bit word of
    /// the `output_bytes` the output binding spans; in place, one invocation
    /// per pair of positions of each lane.
    pub(super) fn new(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        mode: Mode,
        profile: &Profile,
    ) -> General {
        General {
            invocations: 0,
            wide_multiply: tuning::wide_multiply(profile),
            pairs: match mode {
                Mode::OutOfPlace => None,
                Mode::InPlace => Some((layout.axis, 0)),
            },
            across: None,
        }
        .counted(layout, element_bytes, output_bytes)
    }

    /// This work's counts on `piece` (of `element_bytes`-byte elements, its
    /// output binding `output_bytes` long), under the same key: `general` runs
    /// every piece ([`Family::fit`]). Work across windows is made for its
    /// pairs ([`General::across`]), and kept as it is.
    fn counted(self, piece: &Layout, element_bytes: u32, output_bytes: u64) -> General {
        match (self.pairs, self.across) {
            (_, Some(_)) => self,
            (Some(_), None) => {
                let n = piece.dims[piece.axis].size;
                let lanes = match n {
                    0 => 0,
                    n => piece.element_count() / u64::from(n),
                };
                General {
                    invocations: (lanes * u64::from(n / 2)) as u32,
                    pairs: Some((piece.axis, n / 2)),
                    ..self
                }
            }
            (None, None) => {
                let invocations = if element_bytes < 4 {
                    output_bytes.div_ceil(4)
                } else {
                    piece.element_count()
                };
                General {
                    invocations: invocations as u32,
                    ..self
                }
            }
        }
    }

    /// In place across windows (`src/plan/cut/across.rs`): the layout is a front
    /// group of positions (its first dimension, the axis) and the dimensions
    /// inside the axis; one invocation per unit of those and `front_positions`
    /// front positions, each swapping the pairs its positions make with the back
    /// group. Units are 16-byte vectors where `vectors` ([`across_vectors`]),
    /// else elements.
    fn across_windows(
        layout: &Layout,
        element_bytes: u32,
        front_positions: u32,
        vectors: bool,
        profile: &Profile,
    ) -> General {
        let per_unit = match vectors {
            true => 16 / element_bytes,
            false => 1,
        };
        let last = layout.dims[layout.rank() - 1];
        // Stretches of the innermost dimension (inside the axis), each unit's
        // stride and its length's still within a u32 times the stretch.
        let units = tuning::across_units(profile.tuning);
        let fits = |stride: u64| stride * u64::from(units) <= u64::from(u32::MAX);
        let (units, run_units) = match layout.rank() >= 2 && fits(last.output) && fits(last.lengths)
        {
            true => (units, last.size / per_unit),
            false => (1, 1),
        };
        let positions = layout.dims[0].size;
        let invocations = match positions {
            0 => 0,
            p => {
                let elements = layout.element_count() / u64::from(p);
                let runs = elements / u64::from(per_unit * run_units);
                runs * u64::from(run_units.div_ceil(units)) * u64::from(p.div_ceil(front_positions))
            }
        };
        General {
            invocations: invocations as u32,
            wide_multiply: tuning::wide_multiply(profile),
            pairs: None,
            across: Some(Across {
                front_positions,
                per_unit,
                units,
                rank: layout.rank(),
                run_units,
            }),
        }
    }
}

/// Whether a piece in place across windows, its windows `shifts` elements from
/// its origin, moves 16-byte vectors of runs: its innermost dimension (inside
/// the axis) is contiguous, whole vectors long, with one length along it, and
/// every other stride and both windows' shifts are whole vectors.
fn across_vectors(layout: &Layout, shifts: [u32; 3], element_bytes: u32) -> bool {
    let per = 16 / element_bytes.min(16);
    let Some((last, others)) = layout.dims.split_last() else {
        return false;
    };
    layout.rank() >= 2
        && last.output == 1
        && last.lengths == 0
        && last.size.is_multiple_of(per)
        && others
            .iter()
            .all(|d| d.output.is_multiple_of(u64::from(per)))
        && shifts[0].is_multiple_of(per)
        && shifts[2].is_multiple_of(per)
}

impl Family for General {
    fn offered(_layout: &Layout, _mode: Mode, _tuning: Tuning) -> bool {
        // Last, and every layout: it serves any.
        true
    }

    /// Its swap across windows, on 16-byte vectors of runs where every piece
    /// allows them ([`across_vectors`]).
    fn across(
        pieces: &[(&Layout, [u32; 3])],
        element_bytes: u32,
        front_positions: u32,
        profile: &Profile,
    ) -> Option<Vec<General>> {
        let vectors = pieces
            .iter()
            .all(|&(layout, shifts)| across_vectors(layout, shifts, element_bytes));
        let work = |&(layout, _): &(&Layout, [u32; 3])| {
            General::across_windows(layout, element_bytes, front_positions, vectors, profile)
        };
        Some(pieces.iter().map(work).collect())
    }

    fn on(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        mode: Mode,
        profile: &Profile,
    ) -> Option<General> {
        Some(General::new(
            layout,
            element_bytes,
            output_bytes,
            mode,
            profile,
        ))
    }

    fn fit(
        self,
        piece: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        _tuning: Tuning,
    ) -> Option<General> {
        Some(self.counted(piece, element_bytes, output_bytes))
    }

    fn fields(&self) -> Fields {
        Fields {
            steps: self.across.map_or(1, |a| a.units),
            vector_bytes: match self.across {
                Some(a) if a.per_unit > 1 => 16,
                _ => 0,
            },
            access_bits: 32,
            walk: match self.across {
                Some(_) => Walk::Across,
                None => Walk::None,
            },
            wide_multiply: self.wide_multiply,
        }
    }

    fn invocations(&self) -> u32 {
        self.invocations
    }

    fn write(&self, params: &mut Params) {
        params.count = self.invocations;
        if let Some((axis, pairs)) = self.pairs {
            params.sizes[axis] = pairs;
            params.size_divisors[axis] = Divisor::new(pairs.max(1));
        }
        if let Some(across) = self.across {
            across.write(params);
        }
    }

    /// 1- and 2-byte elements merge into 32-bit words; wider ones move whole. In
    /// place across windows, units move whole (16-byte vectors of runs, or elements
    /// of 4 bytes and more), and 1- and 2-byte elements by XOR.
    fn kernel(key: &PipelineKey) -> (KernelFile, Storage) {
        if key.writes_input() {
            return match (key.vector_bytes, key.element_bytes) {
                (16, _) | (_, 16) => (SWAP_PAIRS, Storage::Vec4),
                (_, 8) => (SWAP_PAIRS, Storage::Vec2),
                (_, 4) => (SWAP_PAIRS, Storage::Words),
                _ => (SWAP_PAIRS_SUBWORDS, Storage::Words),
            };
        }
        let (whole, subwords) = match key.in_place {
            true => (SWAP, SWAP_SUBWORDS),
            false => (ELEMENTS, SUBWORDS),
        };
        match key.element_bytes {
            1 | 2 => (subwords, Storage::Words),
            4 => (whole, Storage::Words),
            8 => (whole, Storage::Vec2),
            _ => (whole, Storage::Vec4),
        }
    }

    /// In place across windows, the unit `general/units.wgsl` moves, by the
    /// storage the key's kernel names.
    fn slots(key: &PipelineKey) -> &'static [(&'static str, &'static str)] {
        if !key.writes_input() {
            return &[];
        }
        match Self::kernel(key).1 {
            Storage::Vec4 => &[("unit", "general/unit_vec4")],
            Storage::Vec2 => &[("unit", "general/unit_vec2")],
            _ => &[("unit", "general/unit_words")],
        }
    }

    /// Every buffer, but for the swap in place within one window, which reaches
    /// the tensor through the output binding alone; across windows the input
    /// binding holds the back group's window.
    fn uses(key: &PipelineKey) -> [bool; 3] {
        [!key.in_place || key.walk == Walk::Across, true, true]
    }

    /// Any axis.
    fn takes_axis(_rank: u32, _axis: u32) -> bool {
        true
    }

    fn constants(key: &PipelineKey, constants: &mut Vec<(&'static str, f64)>) {
        // The kernels that merge 1- and 2-byte elements into words.
        if key.element_bytes < 4 && Self::kernel(key).1 == Storage::Words {
            constants.push(("ELEM_BYTES", f64::from(key.element_bytes)));
        }
        if key.writes_input() {
            constants.push(("STEPS", f64::from(key.steps)));
        }
    }

    fn keys() -> impl Iterator<Item = PipelineKey> {
        family_keys(
            Variant::General,
            &WIDTHS,
            |_| &[0],
            |_, _| (1, 1),
            words_only,
        )
        .flat_map(|key| {
            [false, true].map(|wide_multiply| PipelineKey {
                wide_multiply,
                ..key
            })
        })
        .flat_map(|key| [false, true].map(|in_place| PipelineKey { in_place, ..key }))
        .flat_map(|key| {
            // In place across windows: units of elements, or of 16-byte vectors.
            let walks: &[(Walk, u32)] = match key.in_place {
                true => &[(Walk::None, 0), (Walk::Across, 0), (Walk::Across, 16)],
                false => &[(Walk::None, 0)],
            };
            walks.iter().flat_map(move |&(walk, vector_bytes)| {
                // Units an invocation takes along a run (`tuning::across_units`).
                let steps: &[u32] = match walk {
                    Walk::Across => &[1, 8],
                    _ => &[1],
                };
                steps.iter().map(move |&steps| PipelineKey {
                    walk,
                    vector_bytes,
                    steps,
                    ..key
                })
            })
        })
    }
}

impl Across {
    /// The walk, and the piece as `general/across.wgsl` reads it, counted in
    /// units (where they are vectors: the innermost size, every other output
    /// stride and the windows' shifts; the innermost stride is one unit) and in
    /// invocations: the innermost size in stretches of `units`, its output and
    /// lengths strides a stretch's, and its units in `vecs`.
    fn write(&self, params: &mut Params) {
        params.front_positions = self.front_positions;
        let (per, last) = (self.per_unit, self.rank - 1);
        if per > 1 {
            for d in 0..last {
                params.out_strides[d] /= per;
            }
            // A window's shift may be negative, wrapped (`src/plan/cut/across.rs`):
            // divided as unsigned, it lost its wrap and indexed 2^30 units away.
            let units = |shift: u32| (shift as i32 / per as i32) as u32;
            params.out_shift = units(params.out_shift);
            params.in_shift = units(params.in_shift);
        }
        if self.units > 1 {
            let stride = if per > 1 { 1 } else { params.out_strides[last] };
            params.sizes[last] = self.run_units.div_ceil(self.units);
            params.out_strides[last] = stride * self.units;
            params.len_strides[last] *= self.units;
            params.vecs = Divisor::new(self.run_units.max(1));
        } else {
            params.sizes[last] /= per;
        }
        params.size_divisors[last] = Divisor::new(params.sizes[last].max(1));
    }
}

/// The family's WGSL files, and its kernels among them.
const FILES: &[(&str, &str)] = wgsl![
    "general/elements",
    "general/subwords",
    "general/swap",
    "general/swap_subwords",
    "general/lane_pair",
    "general/across",
    "general/swap_pairs",
    "general/swap_pairs_subwords",
    "general/units",
    "general/unit_words",
    "general/unit_vec2",
    "general/unit_vec4",
];
const ELEMENTS: KernelFile = KernelFile::new("general/elements", FILES);
const SUBWORDS: KernelFile = KernelFile::new("general/subwords", FILES);
const SWAP: KernelFile = KernelFile::new("general/swap", FILES);
const SWAP_SUBWORDS: KernelFile = KernelFile::new("general/swap_subwords", FILES);
const SWAP_PAIRS: KernelFile = KernelFile::new("general/swap_pairs", FILES);
const SWAP_PAIRS_SUBWORDS: KernelFile = KernelFile::new("general/swap_pairs_subwords", FILES);
