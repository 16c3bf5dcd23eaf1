//! What a plan is made for, without a device: the limits it keeps, the kind of
//! adapter it is tuned for, and the features its kernels may use. A
//! [`Gpu`](crate::Gpu) has one ([`Gpu::target`](crate::Gpu::target)); an
//! executor of its own makes one for its device
//! ([`program`](crate::program::program)).

use crate::kernels::tuning::{self, Profile, Tuning};
use crate::kernels::variant::Variant;
use crate::plan::cut::MAX_WINDOW_BYTES;

/// A choice a plan is made under: the tuning, and the family forced, where
/// one is. [`candidates`](crate::program::candidates) gives each with its program;
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

    /// The same tuning, forcing `variant` (`None`: none).
    pub(crate) fn with_variant(self, variant: Option<Variant>) -> Choice {
        Choice { variant, ..self }
    }

    /// As a line of autotune's saved choices gives it: the tuning and the
    /// family (`static` where none is forced).
    pub(crate) fn text(self) -> String {
        let tuning = match self.tuning {
            Tuning::Cpu => "cpu",
            Tuning::Gpu => "gpu",
        };
        let variant = self.variant.map_or("static", Variant::name);
        format!("{tuning} {variant}")
    }

    /// The choice [`Choice::text`] gave as `tuning` and `variant`.
    pub(crate) fn parse(tuning: &str, variant: &str) -> Option<Choice> {
        let tuning = match tuning {
            "cpu" => Tuning::Cpu,
            "gpu" => Tuning::Gpu,
            _ => return None,
        };
        let variant = match variant {
            "static" => None,
            name => Some(*Variant::FAMILIES.iter().find(|v| v.name() == name)?),
        };
        Some(Choice { tuning, variant })
    }
}

/// What a plan is made for: a device's limits, the kind of adapter (a CPU
/// adapter's plan differs from a GPU's, `docs/tuning.md`) and whether its
/// kernels may use 64-bit integers.
///
/// ```
/// use revseq::{program, DataType, ReverseSubsequences, TensorDesc};
/// let target = program::Target::new(wgpu::Limits::default(), wgpu::DeviceType::DiscreteGpu);
/// let tensor = TensorDesc::new(DataType::Float32, &[8, 64]);
/// let lengths = TensorDesc::new(DataType::Uint32, &[8, 1]);
/// let desc = ReverseSubsequences::new(tensor.clone(), lengths, tensor, 1);
/// let program = program::program(&desc, &target)?;
/// assert_eq!(program.dispatches().len(), 1);
/// # Ok::<(), revseq::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Target {
    pub(crate) limits: wgpu::Limits,
    pub(crate) profile: Profile,
    /// Bytes one storage binding may hold: the limit's, or lower.
    pub(crate) max_binding: u64,
    /// The storage offset alignment: where a binding may start.
    pub(crate) align: u64,
}

impl Target {
    /// A device of `limits` and `device_type`, without 64-bit integers in its
    /// shaders ([`Target::with_int64`]).
    pub fn new(limits: wgpu::Limits, device_type: wgpu::DeviceType) -> Target {
        let tuning = match device_type {
            wgpu::DeviceType::Cpu => Tuning::Cpu,
            _ => Tuning::Gpu,
        };
        Target::with_profile(
            limits,
            Profile {
                tuning,
                int64: false,
                moves_64: tuning::moves_64_bit_words(),
                forced: None,
            },
        )
    }

    pub(crate) fn with_profile(limits: wgpu::Limits, profile: Profile) -> Target {
        Target {
            max_binding: limits.max_storage_buffer_binding_size,
            align: u64::from(limits.min_storage_buffer_offset_alignment),
            limits,
            profile,
        }
    }

    /// The same target whose device has [`wgpu::Features::SHADER_INT64`]
    /// (`int64`) or not: with it, a CPU adapter's kernels move 64-bit words
    /// where its host gains by it, and a GPU's general kernels divide with one
    /// 64-bit multiply.
    pub fn with_int64(mut self, int64: bool) -> Target {
        self.profile.int64 = int64;
        self
    }

    /// The same target binding at most `bytes` of a buffer at a time (never
    /// more than its limit): larger tensors run as several dispatches, each
    /// binding a window of each tensor. A plan needs a binding of at least one
    /// element, the storage offset alignment and a word for each tensor, and
    /// at most [`MAX_DISPATCHES`](crate::program::MAX_DISPATCHES) dispatches
    /// ([`program`](crate::program) has both rules).
    ///
    /// ```
    /// use revseq::program::{self, Target};
    /// use revseq::{DataType, Error, ReverseSubsequences, TensorDesc};
    /// let limits = wgpu::Limits::default(); // a 256-byte offset alignment
    /// let tensor = TensorDesc::new(DataType::Float64, &[4, 100]);
    /// let lengths = TensorDesc::new(DataType::Uint32, &[4, 1]);
    /// let desc = ReverseSubsequences::new(tensor.clone(), lengths, tensor, 1);
    /// let target = |bytes| Target::new(limits.clone(), wgpu::DeviceType::Cpu).with_max_binding(bytes);
    /// // 8 + 256 + 4 bytes: the least binding for 8-byte elements.
    /// assert!(program::program(&desc, &target(268)).is_ok());
    /// assert!(matches!(
    ///     program::program(&desc, &target(264)),
    ///     Err(Error::TensorTooLarge { bytes: 268, limit: 264, .. })
    /// ));
    /// # Ok::<(), revseq::Error>(())
    /// ```
    pub fn with_max_binding(mut self, bytes: u64) -> Target {
        self.max_binding = bytes.min(self.limits.max_storage_buffer_binding_size);
        self
    }

    /// The same target with the plans forced to `variant` where that family
    /// can serve the layout ([`Gpu::with_variant`](crate::Gpu::with_variant)).
    #[cfg(feature = "lab")]
    pub fn with_variant(mut self, variant: Option<Variant>) -> Target {
        self.profile.forced = variant;
        self
    }

    /// The bytes a plan binds at most: [`max_binding`](Self::max_binding) in
    /// whole words, within the 2^32 bytes a kernel's u32 offsets reach.
    /// The same target planning under `choice` ([`candidates`]): its tuning,
    /// and the family it forces.
    ///
    /// [`candidates`]: crate::program::candidates
    pub fn with_choice(mut self, choice: Choice) -> Target {
        self.profile.tuning = choice.tuning;
        self.profile.forced = choice.variant;
        self
    }

    /// The choice it plans under ([`Target::with_choice`]).
    pub fn choice(&self) -> Choice {
        Choice {
            tuning: self.profile.tuning,
            variant: self.profile.forced,
        }
    }

    pub(crate) fn binding(&self) -> u64 {
        self.max_binding.min(MAX_WINDOW_BYTES) & !3
    }

    /// The device's limits.
    pub fn limits(&self) -> &wgpu::Limits {
        &self.limits
    }

    /// The most bytes one storage binding holds.
    pub fn max_binding(&self) -> u64 {
        self.max_binding
    }
}
