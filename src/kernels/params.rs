//! The layout uniform every kernel reads: the Rust twin of `Params` in
//! `src/kernels/shared/params.wgsl`, field for field (a test below compares their
//! offsets).

use crate::kernels::divisor::Divisor;

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Params {
    pub(crate) sizes: [u32; 8],
    pub(crate) out_strides: [u32; 8],
    pub(crate) in_strides: [u32; 8],
    pub(crate) len_strides: [u32; 8],
    pub(crate) size_divisors: [Divisor; 8],
    pub(crate) out_stride_divisors: [Divisor; 8],
    pub(crate) count: u32,
    pub(crate) in_shift: u32,
    pub(crate) len_shift: u32,
    pub(crate) out_shift: u32,
    pub(crate) axis_start: u32,
    pub(crate) axis_size: u32,
    pub(crate) source_lo: u32,
    pub(crate) source_hi: u32,
    pub(crate) position_lo: u32,
    pub(crate) position_hi: u32,
    pub(crate) interleave: u32,
    pub(crate) touch: u32,
    pub(crate) lanes: u32,
    /// The dispatch's first workgroup, where `run` runs one dispatch in parts
    /// (`src/executor/parts.rs`): 0 for a dispatch in one part.
    pub(crate) first_group: u32,
    /// In place across windows: front positions an invocation walks, and 1
    /// where the back ends lie in the input binding.
    pub(crate) front_positions: u32,
    pub(crate) apart: u32,
    pub(crate) vecs: Divisor,
    pub(crate) per_row: Divisor,
    pub(crate) blocks: Divisor,
    pub(crate) band: Divisor,
    pub(crate) bands: Divisor,
}

/// Bytes of one `Params`: what the trace build's own kernels bind (an
/// executor sizes a uniform from the bytes a dispatch publishes).
#[cfg(any(test, feature = "lab"))]
pub(crate) const PARAMS_SIZE: u64 = std::mem::size_of::<Params>() as u64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::variant::Variant;
    use crate::kernels::PipelineKey;
    use std::mem::offset_of;

    #[test]
    fn params_matches_the_wgsl_struct() {
        // A general kernel's WGSL, which holds the uniform's struct.
        let key = PipelineKey::all()
            .find(|key| key.variant == Variant::General)
            .unwrap();
        let wgsl = key.source().wgsl();
        let module = naga::front::wgsl::parse_str(&wgsl).expect("the kernel parses");
        let (_, ty) = module
            .types
            .iter()
            .find(|(_, ty)| ty.name.as_deref() == Some("Params"))
            .expect("a Params struct");
        let naga::TypeInner::Struct { members, span } = &ty.inner else {
            panic!("Params is a struct");
        };
        assert_eq!(u64::from(*span), PARAMS_SIZE);
        let rust = [
            ("sizes", offset_of!(Params, sizes)),
            ("out_strides", offset_of!(Params, out_strides)),
            ("in_strides", offset_of!(Params, in_strides)),
            ("len_strides", offset_of!(Params, len_strides)),
            ("size_divisors", offset_of!(Params, size_divisors)),
            (
                "out_stride_divisors",
                offset_of!(Params, out_stride_divisors),
            ),
            ("count", offset_of!(Params, count)),
            ("in_shift", offset_of!(Params, in_shift)),
            ("len_shift", offset_of!(Params, len_shift)),
            ("out_shift", offset_of!(Params, out_shift)),
            ("axis_start", offset_of!(Params, axis_start)),
            ("axis_size", offset_of!(Params, axis_size)),
            ("source_lo", offset_of!(Params, source_lo)),
            ("source_hi", offset_of!(Params, source_hi)),
            ("position_lo", offset_of!(Params, position_lo)),
            ("position_hi", offset_of!(Params, position_hi)),
            ("interleave", offset_of!(Params, interleave)),
            ("touch", offset_of!(Params, touch)),
            ("lanes", offset_of!(Params, lanes)),
            ("first_group", offset_of!(Params, first_group)),
            ("front_positions", offset_of!(Params, front_positions)),
            ("apart", offset_of!(Params, apart)),
            ("vecs", offset_of!(Params, vecs)),
            ("per_row", offset_of!(Params, per_row)),
            ("blocks", offset_of!(Params, blocks)),
            ("band", offset_of!(Params, band)),
            ("bands", offset_of!(Params, bands)),
        ];
        let wgsl: Vec<_> = members
            .iter()
            .map(|m| (m.name.as_deref().unwrap_or(""), m.offset as usize))
            .collect();
        assert_eq!(wgsl, rust);
    }
}
