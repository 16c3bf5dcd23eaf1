//! `--candidates`: beside the family the tuning picks for a row, every other
//! family that can serve it, forced through the laboratory's `Gpu::with_variant`
//! and timed in the same rounds, so that a run says which family wins where.

use revseq::{Gpu, Variant};

/// A device for each family, its plans forced to that family wherever it can
/// serve the layout: made once, so that each keeps its pipelines across rows.
pub(crate) fn forced_devices(gpu: &Gpu) -> Vec<(Variant, Gpu)> {
    Variant::ALL
        .into_iter()
        .map(|variant| (variant, gpu.with_variant(Some(variant))))
        .collect()
}

/// What `compile` makes on each of `forced` whose family can serve the layout
/// (the variant it compiled to, read by `variant`, is the one forced), but for
/// `chosen`, the tuning's own.
pub(crate) fn others<T>(
    forced: &[(Variant, Gpu)],
    chosen: Variant,
    compile: impl Fn(&Gpu) -> T,
    variant: impl Fn(&T) -> Variant,
) -> Vec<T> {
    forced
        .iter()
        .filter(|(v, _)| *v != chosen)
        .map(|(v, gpu)| (*v, compile(gpu)))
        .filter(|(v, compiled)| variant(compiled) == *v)
        .map(|(_, compiled)| compiled)
        .collect()
}
