//! The in-place plan across windows checked on the host: a twin of
//! `general/across.wgsl`'s index arithmetic runs every invocation of each
//! dispatch that walks across windows, from the dispatch's own uniform and
//! bindings, in the kernel's 32-bit wrapping arithmetic, and the pairs it
//! swaps are checked against the tensor's: each swap inside its binding, two
//! ends of one lane at `t` and `L - 1 - t`, no pair twice, and where every
//! dispatch walks across windows, every pair. A shift divided wrongly, a
//! window misplaced or a stride miscounted fails here in seconds; the bounds
//! test (`tests/bounds.rs`) stays the device's proof.

use std::collections::{HashMap, HashSet};

use crate::descriptor::dtype::DataType;
use crate::descriptor::error::{Error, TensorRole};
use crate::descriptor::in_place::ReverseInPlace;
use crate::descriptor::tensor::TensorDesc;
use crate::kernels::tuning::Tuning;
use crate::kernels::Walk;
use crate::plan::dispatch::{Binding, Dispatch};
use crate::plan::kernel::KernelOf;
use crate::plan::program::Program;
use crate::plan::target::Target;

/// A target of `tuning` binding `bytes` at a time, on a 32-byte alignment.
fn small(tuning: Tuning, bytes: u64) -> Target {
    super::tests::small(tuning).with_max_binding(bytes)
}

/// xorshift64*: the same draws on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
    }
}

/// The tensor's elements: byte offset → (lane, position along the axis), and
/// each lane's length, clamped to `[0, n]` as the operator clamps it.
struct Tensor {
    at: HashMap<u64, (u64, u32)>,
    lengths: Vec<u32>,
    width: u64,
}

impl Tensor {
    fn of(desc: &ReverseInPlace, length_values: &[i64]) -> Tensor {
        let sizes = desc.tensor.sizes();
        let strides = desc.tensor.effective_strides();
        let len_strides = desc.sequence_lengths.effective_strides();
        let axis = desc.axis as usize;
        let n = sizes[axis];
        let width = u64::from(desc.tensor.data_type().size_in_bytes());
        let mut at = HashMap::new();
        let count = desc.tensor.element_count();
        let mut lengths = vec![0; count as usize];
        for index in 0..count {
            let (mut rem, mut offset, mut len_offset, mut position) = (index, 0, 0, 0);
            for d in (0..sizes.len()).rev() {
                let c = rem % u64::from(sizes[d]);
                rem /= u64::from(sizes[d]);
                offset += c * strides[d];
                if d == axis {
                    position = c as u32;
                } else {
                    len_offset += c * len_strides[d];
                }
            }
            // A lane by its first element's index (row-major).
            let lane = index - u64::from(position) * axis_step(sizes, axis);
            if position == 0 {
                lengths[lane as usize] =
                    length_values[len_offset as usize].clamp(0, i64::from(n)) as u32;
            }
            at.insert(offset * width, (lane, position));
        }
        Tensor { at, lengths, width }
    }
}

/// How far apart in the row-major index two positions of one lane are.
fn axis_step(sizes: &[u32], axis: usize) -> u64 {
    sizes[axis + 1..].iter().map(|&s| u64::from(s)).product()
}

/// The bytes the tensor's or the lengths' binding at `index` (input,
/// lengths, output: an across walk binds all three) starts at and holds.
fn window(dispatch: &Dispatch, index: usize) -> (u64, u64) {
    match dispatch.bindings[index] {
        Binding::Tensor {
            tensor,
            offset,
            size,
        } => {
            let role = [
                TensorRole::Tensor,
                TensorRole::SequenceLengths,
                TensorRole::Tensor,
            ][index];
            assert_eq!(tensor, role, "{:?}", dispatch.bindings);
            (offset, size)
        }
        ref other => panic!("binding {index} of an across walk: {other:?}"),
    }
}

/// The pairs of byte offsets (front, back) that `dispatch`, a walk across
/// windows of units of `unit_bytes` (`steps` a stretch, `rank` dimensions,
/// lengths of `len_bytes`), swaps, as `general/across.wgsl` computes them;
/// `length_of` reads the length at a byte offset of the lengths tensor. `Err`
/// names a swap outside its binding.
fn swaps(
    dispatch: &Dispatch,
    [steps, rank, unit_bytes, len_bytes]: [u32; 4],
    length_of: &dyn Fn(u64) -> u32,
) -> Result<Vec<(u64, u64)>, String> {
    let p = dispatch.params();
    let rank = rank as usize;
    let front_window = window(dispatch, 2);
    let back_window = match p.apart {
        0 => front_window,
        _ => window(dispatch, 0),
    };
    let len_window = window(dispatch, 1);
    let units_in = |(_, size): (u64, u64)| size / u64::from(unit_bytes);
    let mut out = Vec::new();
    for id in 0..p.count {
        let (mut rem, mut offset, mut len_offset, mut first_unit) = (id, 0u32, p.len_shift, 0);
        for d in (1..rank).rev() {
            // `divmod`, by the divisor's multiply as the kernel divides.
            let divisor = p.size_divisors[d];
            let q = divisor.divide(rem);
            let r = rem - q * divisor.value();
            rem = q;
            offset = offset.wrapping_add(r.wrapping_mul(p.out_strides[d]));
            len_offset = len_offset.wrapping_add(r.wrapping_mul(p.len_strides[d]));
            if d == rank - 1 {
                first_unit = r * steps;
            }
        }
        let units = match steps > 1 {
            true => steps.min(p.vecs.value() - first_unit),
            false => 1,
        };
        let unit_step = p.out_strides[rank - 1] / steps;
        let len_step = p.len_strides[rank - 1] / steps;
        let first = p.axis_start + rem * p.front_positions;
        let end = (first + p.front_positions).min(p.axis_start + p.sizes[0]);
        let axis = p.out_strides[0];
        let back_shift = if p.apart != 0 {
            p.in_shift
        } else {
            p.out_shift
        };
        let pair_range = |len: u32| {
            let lo = first.max(len.saturating_sub(p.position_hi));
            let hi = end.min(len / 2).min(len.saturating_sub(p.position_lo));
            (lo, hi, len)
        };
        let mut swap = |front: u32, back: u32| -> Result<(), String> {
            if u64::from(front) >= units_in(front_window)
                || u64::from(back) >= units_in(back_window)
            {
                return Err(format!(
                    "invocation {id} swaps units {front} and {back}, past their bindings \
                     {front_window:?} and {back_window:?} ({unit_bytes}-byte units)"
                ));
            }
            let absolute =
                |unit: u32, (start, _): (u64, u64)| start + u64::from(unit) * u64::from(unit_bytes);
            out.push((absolute(front, front_window), absolute(back, back_window)));
            Ok(())
        };
        let length = |index: u32| length_of(len_window.0 + u64::from(index) * u64::from(len_bytes));
        for k in 0..units {
            let (lo, hi, len) = pair_range(length(len_offset.wrapping_add(k * len_step)));
            let unit = offset.wrapping_add(k * unit_step);
            for t in lo..hi {
                let front = unit
                    .wrapping_add(t.wrapping_mul(axis))
                    .wrapping_add(p.out_shift);
                let back = unit
                    .wrapping_add((len - 1 - t).wrapping_mul(axis))
                    .wrapping_add(back_shift);
                swap(front, back)?;
            }
        }
    }
    Ok(out)
}

/// `desc` planned in place on `target`: every swap the dispatches across
/// windows make checked against the tensor's pairs; how many they swapped and
/// whether every dispatch walked across.
fn check(desc: &ReverseInPlace, target: &Target, values: &[i64]) -> Result<(usize, bool), String> {
    let program = match Program::in_place(desc, target) {
        Ok(program) => program,
        // Refused (in place, or too many dispatches for so small a binding):
        // nothing to check.
        Err(Error::InPlaceTooLarge { .. } | Error::TooManyDispatches { .. }) => {
            return Ok((0, false))
        }
        Err(e) => return Err(e.to_string()),
    };
    let tensor = Tensor::of(desc, values);
    let len_width = u64::from(desc.sequence_lengths.data_type().size_in_bytes());
    let len_at = lengths_by_offset(desc, values, len_width);
    let n = i64::from(desc.tensor.sizes()[desc.axis as usize]);
    let length = |byte: u64| len_at.get(&byte).map_or(0, |&v| v.clamp(0, n) as u32);
    let mut seen = HashSet::new();
    let mut all_across = true;
    for dispatch in program.dispatches() {
        let KernelOf::Operator(key) = program.kernels()[dispatch.kernel].of else {
            continue;
        };
        if key.walk != Walk::Across {
            all_across = false;
            continue;
        }
        let unit_bytes = key.vector_bytes.max(key.element_bytes);
        let shape = [key.steps, key.rank, unit_bytes, key.length_bytes];
        for (front, back) in swaps(dispatch, shape, &length)? {
            // A unit of several elements swaps each with its twin.
            for j in (0..u64::from(unit_bytes)).step_by(tensor.width as usize) {
                let (f, b) = (front + j, back + j);
                let (Some(&(lane_f, t)), Some(&(lane_b, u))) =
                    (tensor.at.get(&f), tensor.at.get(&b))
                else {
                    return Err(format!("a swap of bytes {f} and {b}, not both elements"));
                };
                let len = tensor.lengths[lane_f as usize];
                if lane_f != lane_b || t >= len / 2 || u != len - 1 - t {
                    return Err(format!(
                        "bytes {f} (lane {lane_f}, position {t}) and {b} (lane {lane_b}, \
                         position {u}) swapped; the lane's length is {len}"
                    ));
                }
                if !seen.insert(f) {
                    return Err(format!("the pair at byte {f} swapped twice"));
                }
            }
        }
    }
    if all_across {
        let pairs: u64 = tensor
            .at
            .values()
            .filter(|&&(lane, t)| t < tensor.lengths[lane as usize] / 2)
            .count() as u64;
        if pairs != seen.len() as u64 {
            return Err(format!("{} of {pairs} pairs swapped", seen.len()));
        }
    }
    Ok((seen.len(), all_across))
}

/// The lengths by their byte offset in the lengths tensor.
fn lengths_by_offset(desc: &ReverseInPlace, values: &[i64], width: u64) -> HashMap<u64, i64> {
    let t = &desc.sequence_lengths;
    let strides = t.effective_strides();
    let sizes = t.sizes();
    let mut out = HashMap::new();
    for index in 0..t.element_count() {
        let (mut rem, mut offset) = (index, 0);
        for d in (0..sizes.len()).rev() {
            offset += rem % u64::from(sizes[d]) * strides[d];
            rem /= u64::from(sizes[d]);
        }
        out.insert(offset * width, values[offset as usize]);
    }
    out
}

/// A random strided tensor of `rank` dimensions, in place along a random
/// axis, with gaps between dimensions, and its lengths (some negative, some
/// past the axis).
fn random(rng: &mut Rng) -> (ReverseInPlace, Vec<i64>) {
    let types = [
        DataType::Uint8,
        DataType::Float16,
        DataType::Float32,
        DataType::Int64,
        DataType::Complex64,
    ];
    let data_type = types[rng.below(types.len() as u64) as usize];
    let rank = 2 + rng.below(2) as usize;
    let mut sizes: Vec<u32> = (0..rank).map(|_| 1 + rng.below(24) as u32).collect();
    let axis = rng.below(rank as u64) as usize;
    sizes[axis] = 16 + rng.below(200) as u32;
    // Strides ordered innermost last, with gaps on some; packed on others.
    let packed = rng.below(2) == 0;
    let mut strides = vec![0u32; rank];
    let mut step = if packed { 1 } else { 1 + rng.below(2) as u32 };
    for d in (0..rank).rev() {
        strides[d] = step;
        step = step * sizes[d] + if packed { 0 } else { rng.below(3) as u32 };
    }
    let tensor = TensorDesc::new(data_type, &sizes).with_strides(&strides);
    let length_types = [DataType::Uint32, DataType::Int32, DataType::Int64];
    let length_type = length_types[rng.below(3) as usize];
    let mut length_sizes = sizes.clone();
    length_sizes[axis] = 1;
    // A length per element, or one along the dimensions inside the axis (runs
    // of one length, as ONNX's layouts have, which move as 16-byte vectors).
    let mut len_strides = vec![0u32; rank];
    let mut step = 1;
    let runs = rng.below(2) == 0;
    for d in (0..rank).rev() {
        if length_sizes[d] > 1 && !(runs && d > axis) {
            len_strides[d] = step;
            step *= length_sizes[d];
        }
    }
    let lengths = TensorDesc::new(length_type, &length_sizes).with_strides(&len_strides);
    let slots = lengths.min_size_in_bytes() as usize / length_type.size_in_bytes() as usize;
    let n = i64::from(sizes[axis]);
    let values = (0..slots)
        .map(|_| rng.below(n as u64 + 8) as i64 - 4)
        .map(|v| {
            if length_type == DataType::Uint32 {
                v.max(0)
            } else {
                v
            }
        })
        .collect();
    (ReverseInPlace::new(tensor, lengths, axis as u32), values)
}

#[test]
fn in_place_across_windows_swaps_every_pair_once_inside_its_bindings() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut across, mut whole, mut swapped) = (0, 0, 0);
    for case in 0..240 {
        let (desc, values) = random(&mut rng);
        let tuning = [Tuning::Cpu, Tuning::Gpu][case % 2];
        let binding = [1024, 2048, 4096][case % 3];
        match check(&desc, &small(tuning, binding), &values) {
            Ok((pairs, all)) if pairs > 0 => {
                across += 1;
                whole += usize::from(all);
                swapped += pairs;
            }
            Ok(_) => {}
            Err(e) => panic!("case {case}, {tuning:?}, {binding} B, {desc:?}: {e}"),
        }
    }
    eprintln!("{across} programs across windows ({whole} wholly), {swapped} pairs checked");
    assert!(
        across >= 40 && whole >= 10,
        "{across} across, {whole} wholly"
    );
}
