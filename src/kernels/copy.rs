//! The staging copy: a staged piece's segments between the caller's bindings and
//! the scratch buffers (`src/plan/cut/staged.rs`), one dispatch per batch of
//! segments that a window holds, under the operator's bind group layout, so that
//! the caller's buffers need `STORAGE` alone.

use crate::kernels::divisor::Divisor;
use crate::kernels::params::Params;
use crate::kernels::shaders::{KernelFile, Source, Storage};
use crate::kernels::tuning::{self, Profile, Tuning};

const COPY: KernelFile = KernelFile::new("copy/copy", wgsl!["copy/copy"]);

/// How an operator's staging copies run: its tuning, and how they hold the
/// tensors (the `storage` slot): 16-byte vectors where every segment of every
/// staged piece is whole vectors at a vector boundary, as 64-bit words where the
/// tuning moves vectors so (`tuning::access_bits`), else 32-bit words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Copying {
    pub(crate) tuning: Tuning,
    pub(crate) storage: Storage,
}

impl Copying {
    /// The copy for `profile`, on 16-byte vectors where every segment it moves
    /// is whole vectors at a vector boundary (`vectors`), else on words.
    pub(crate) fn new(vectors: bool, profile: &Profile) -> Copying {
        let bytes = if vectors { 16 } else { 4 };
        Copying {
            tuning: profile.tuning,
            storage: Storage::of(bytes, tuning::move_bits(profile, &[32, 64])),
        }
    }

    /// Bytes of one access.
    fn bytes(&self) -> u64 {
        match self.storage {
            Storage::Words => 4,
            _ => 16,
        }
    }

    /// The copy kernel's WGSL.
    pub(crate) fn source(&self) -> Source {
        Source::staging_copy(self.storage)
    }

    /// Values for its `override` constants.
    pub(crate) fn constants(&self) -> Vec<(&'static str, f64)> {
        constants(self.tuning)
    }
}

/// Values for the copy kernel's `override` constants under `tuning`.
fn constants(tuning: Tuning) -> Vec<(&'static str, f64)> {
    let [interleave, steps] = tuning::copy_interleave_steps(tuning);
    vec![
        ("RANK", 2.0),
        ("AXIS", 0.0),
        (
            "WORKGROUP_SIZE",
            f64::from(crate::kernels::shaders::WORKGROUP_SIZE),
        ),
        ("LANES", f64::from(interleave)),
        ("STEPS", f64::from(steps)),
    ]
}

impl Source {
    /// The staging copy's WGSL on `storage`: words, four-word vectors, or
    /// 64-bit words.
    pub fn staging_copy(storage: Storage) -> Source {
        Source {
            kernel: COPY,
            storage,
            slots: &[],
            wide_multiply: false,
        }
    }
}

/// Which way a copy moves a staged piece's segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    /// From the caller's input into scratch.
    In,
    /// From scratch into the caller's output.
    Out,
}

/// What one copy dispatch moves: `count` segments of `bytes`, in bytes from the
/// start of each binding to the first segment and from one segment to the next,
/// in the caller's window and in scratch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BatchLayout {
    pub(crate) count: u32,
    pub(crate) bytes: u64,
    pub(crate) caller: [u64; 2],
    pub(crate) scratch: [u64; 2],
}

/// The `Params` of the copy of `segments`, and its invocations; `None` where
/// they do not fit a u32.
pub(crate) fn params(
    segments: BatchLayout,
    direction: Direction,
    copying: Copying,
) -> Option<(Params, u32)> {
    let [interleave, steps] = tuning::copy_interleave_steps(copying.tuning).map(u64::from);
    let unit = copying.bytes();
    // Accesses from each binding's start to the first segment, and between
    // segments: in the caller's window, and in scratch.
    let caller = segments.caller.map(|b| b / unit);
    let scratch = segments.scratch.map(|b| b / unit);
    let (from, to) = match direction {
        Direction::In => (caller, scratch),
        Direction::Out => (scratch, caller),
    };
    let mut words = segments.bytes / unit;
    let mut count = u64::from(segments.count);
    // Segments back to back on both sides are one.
    if from[1] == words && to[1] == words {
        (words, count) = (words * count, 1);
    }
    let per_segment = words.div_ceil(interleave * steps);
    let invocations = u32::try_from(count * per_segment * interleave).ok()?;
    let mut params = Params {
        count: invocations,
        in_shift: u32::try_from(from[0]).ok()?,
        out_shift: u32::try_from(to[0]).ok()?,
        per_row: Divisor::new(u32::try_from(per_segment).ok()?),
        ..bytemuck::Zeroable::zeroed()
    };
    params.sizes[0] = count as u32;
    params.sizes[1] = u32::try_from(words).ok()?;
    params.in_strides[0] = u32::try_from(from[1]).ok()?;
    params.out_strides[0] = u32::try_from(to[1]).ok()?;
    Some((params, invocations))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// naga parses and validates the copy kernel in each storage, with no
    /// optional capability but 64-bit integers for 64-bit words, and
    /// specialises it under either tuning.
    #[test]
    fn the_copy_kernel_validates_on_any_webgpu_device() {
        for storage in [Storage::Words, Storage::Vec4, Storage::U64] {
            let copying = Copying {
                tuning: Tuning::Cpu,
                storage,
            };
            validate(&copying.source().wgsl(), storage == Storage::U64);
        }
    }

    fn validate(wgsl: &str, int64: bool) {
        let module = naga::front::wgsl::parse_str(wgsl).expect("the copy kernel parses");
        let capabilities = match int64 {
            true => naga::valid::Capabilities::SHADER_INT64,
            false => naga::valid::Capabilities::empty(),
        };
        let validator =
            || naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities);
        let info = validator().validate(&module).expect("it validates");
        for tuning in [Tuning::Cpu, Tuning::Gpu] {
            let mut values = naga::back::PipelineConstants::default();
            for (name, value) in constants(tuning) {
                values.insert(name.to_string(), value);
            }
            let stage = Some((naga::ShaderStage::Compute, KernelFile::ENTRY_POINT));
            let (specialised, _) =
                naga::back::pipeline_constants::process_overrides(&module, &info, stage, &values)
                    .unwrap_or_else(|e| panic!("{tuning:?}: {e}"));
            validator()
                .validate(&specialised)
                .unwrap_or_else(|e| panic!("{tuning:?}: {e}"));
        }
    }
}
