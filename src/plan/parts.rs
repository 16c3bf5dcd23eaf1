//! A dispatch in parts: for an executor that bounds the work of each
//! submission (revseq's own `run` on adapters that serialise work,
//! `src/executor/device/submission.rs`), a dispatch whose workgroups visit
//! more than the bound runs as several, each over a range of its workgroups
//! with a uniform of its own that names its first workgroup. Published as
//! data, as the rest of the program is: an executor dispatches each part's
//! workgroups with its uniform bound in the dispatch's uniform's place.

use crate::kernels::params::Params;
use crate::plan::dispatch::Dispatch;

/// A range of a dispatch's workgroups, run as a dispatch of its own.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The first of the dispatch's workgroups it runs.
    pub first_workgroup: u32,
    /// Workgroups in x, y and z: as many as it runs, in x.
    pub workgroups: [u32; 3],
    /// Output bytes its workgroups visit.
    pub bytes: u64,
    /// Its layout uniform's bytes: the dispatch's, its first workgroup moved.
    pub uniform: Vec<u8>,
}

/// `dispatch` in parts of at most `budget` output bytes (as evenly as its
/// workgroups allow) and at most `max_workgroups` in x (the device's
/// `max_compute_workgroups_per_dimension`); none where it visits no more
/// than `budget`, or has one workgroup with work.
pub fn parts(dispatch: &Dispatch, budget: u64, max_workgroups: u32) -> Vec<Part> {
    let (visited, groups) = (dispatch.output_bytes(), dispatch.workgroups_with_work());
    if visited <= budget || groups <= 1 {
        return Vec::new();
    }
    let per_part =
        (u64::from(groups) * budget / visited).clamp(1, u64::from(max_workgroups.max(1)));
    (0..groups)
        .step_by(per_part as usize)
        .map(|first_workgroup| {
            let size = (groups - first_workgroup).min(per_part as u32);
            let params = Params {
                first_group: first_workgroup,
                ..dispatch.params
            };
            Part {
                first_workgroup,
                workgroups: [size, 1, 1],
                bytes: visited * u64::from(size) / u64::from(groups),
                uniform: bytemuck::bytes_of(&params).to_vec(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::descriptor::error::TensorRole;
    use crate::plan::dispatch::Binding;
    use crate::plan::kernel::OPERATOR;

    fn dispatch(groups: u32, output_bytes: u64) -> Dispatch {
        let tensor = |tensor| Binding::Tensor {
            tensor,
            offset: 0,
            size: output_bytes,
        };
        let buffers = [
            TensorRole::Input,
            TensorRole::SequenceLengths,
            TensorRole::Output,
        ];
        Dispatch::new(
            OPERATOR,
            [groups, 1],
            groups,
            buffers.map(tensor),
            [true; 3],
            bytemuck::Zeroable::zeroed(),
            None,
        )
    }

    /// Parts cover every workgroup once, in order, each within the budget and
    /// the per-dimension limit, their bytes add up to the dispatch's, and each
    /// uniform differs from the dispatch's in its first workgroup alone.
    #[test]
    fn parts_cover_every_workgroup_once_within_the_budget() {
        assert!(parts(&dispatch(100, 4096), 4096, 65_535).is_empty());
        assert!(parts(&dispatch(1, 1 << 20), 4096, 65_535).is_empty());
        for (groups, bytes, budget, max) in [
            (100, 1 << 20, 4096, 65_535),
            (1000, 1 << 20, 300_000, 65_535),
            (1000, 1 << 30, 4 << 20, 65_535),
            (100_000, 1 << 20, 1 << 19, 16),
        ] {
            let whole = dispatch(groups, bytes);
            let parts = parts(&whole, budget, max);
            assert!(
                parts.len() > 1,
                "{groups} groups, {bytes} bytes in {budget}"
            );
            let mut next = 0;
            for part in &parts {
                assert_eq!(part.first_workgroup, next);
                assert!(part.workgroups[0] >= 1 && part.workgroups[0] <= max);
                assert_eq!(part.workgroups[1..], [1, 1]);
                assert!(part.bytes <= budget.max(bytes / u64::from(groups)));
                let params: &Params = bytemuck::from_bytes(&part.uniform);
                assert_eq!(params.first_group, next);
                let moved = Params {
                    first_group: 0,
                    ..*params
                };
                assert_eq!(bytemuck::bytes_of(&moved), whole.uniform());
                next += part.workgroups[0];
            }
            assert_eq!(next, groups);
            let total: u64 = parts.iter().map(|p| p.bytes).sum();
            assert!(total <= bytes && bytes - total < parts.len() as u64);
        }
    }
}
