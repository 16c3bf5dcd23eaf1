//! A dispatch in parts, for revseq's own bounded submissions
//! (`src/executor/submission.rs`): where `run` bounds each submission to some output bytes,
//! a dispatch that visits more runs as several, each over a range of its
//! workgroups, with a copy of its uniform that names its first workgroup
//! ([`Dispatch::part_uniform`]). Only `run` cuts them, into a uniform of its
//! own; `record` dispatches whole.

use crate::descriptor::error::Error;
use crate::executor::compiled::CompiledReverse;
use crate::executor::device_lock::Held;
use crate::executor::uniform::uniform;
use crate::plan::dispatch::Dispatch;

/// A range of a dispatch's workgroups, run as a dispatch of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Part {
    pub(crate) first_group: u32,
    pub(crate) workgroups: [u32; 2],
    /// Output bytes its workgroups visit.
    pub(crate) bytes: u64,
}

/// A run's dispatches in parts.
pub(crate) struct Parts {
    /// Each dispatch's parts, none where it runs whole; their `Params` lie in
    /// `uniform` in this order.
    pub(crate) of: Vec<Vec<Part>>,
    /// Absent where every dispatch runs whole.
    pub(crate) uniform: Option<Held<wgpu::Buffer>>,
}

/// `dispatch` in parts of at most `budget` output bytes (as evenly as its
/// workgroups allow) and `max` workgroups; none where it visits no more.
pub(crate) fn divide(dispatch: &Dispatch, budget: u64, max: u32) -> Vec<Part> {
    let (visited, groups) = (dispatch.output_bytes(), dispatch.groups());
    if visited <= budget || groups <= 1 {
        return Vec::new();
    }
    let per_part = (u64::from(groups) * budget / visited).clamp(1, u64::from(max));
    (0..groups)
        .step_by(per_part as usize)
        .map(|first_group| {
            let size = (groups - first_group).min(per_part as u32);
            Part {
                first_group,
                workgroups: [size, 1],
                bytes: visited * u64::from(size) / u64::from(groups),
            }
        })
        .collect()
}

impl CompiledReverse {
    /// The operator's dispatches in parts of at most `budget` output bytes, and
    /// the uniform of the parts.
    pub(crate) async fn parts(&self, budget: u64) -> Result<Parts, Error> {
        let limits = self.gpu.device().limits();
        let max = limits.max_compute_workgroups_per_dimension.max(1);
        // `run`'s buffers have copy usages: where the program lets staged
        // segments copy by buffer, a copy dispatch is buffer copies, never in
        // parts.
        let dispatches = self.program.dispatches();
        let of: Vec<Vec<Part>> = (dispatches.iter().enumerate())
            .map(|(i, d)| match self.program.buffer_copy(i) {
                Some(_) => Vec::new(),
                None => divide(d, budget, max),
            })
            .collect();
        let params: Vec<Vec<u8>> = dispatches
            .iter()
            .zip(&of)
            .flat_map(|(dispatch, parts)| {
                parts
                    .iter()
                    .map(|part| dispatch.part_uniform(part.first_group))
            })
            .collect();
        let uniform = match params.is_empty() {
            true => None,
            false => {
                let context = "creating the parts' uniform";
                Some(uniform(&self.gpu, "revseq::parts", params.into_iter(), context).await?)
            }
        };
        Ok(Parts { of, uniform })
    }
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
    /// the per-dimension limit, and their bytes add up to the dispatch's.
    #[test]
    fn parts_cover_every_workgroup_once_within_the_budget() {
        assert!(divide(&dispatch(100, 4096), 4096, 65_535).is_empty());
        assert!(divide(&dispatch(1, 1 << 20), 4096, 65_535).is_empty());
        for (groups, bytes, budget, max) in [
            (100, 1 << 20, 4096, 65_535),
            (1000, 1 << 20, 300_000, 65_535),
            (1000, 1 << 30, 4 << 20, 65_535),
            (100_000, 1 << 20, 1 << 19, 16),
        ] {
            let parts = divide(&dispatch(groups, bytes), budget, max);
            assert!(
                parts.len() > 1,
                "{groups} groups, {bytes} bytes in {budget}"
            );
            let mut next = 0;
            for part in &parts {
                assert_eq!(part.first_group, next);
                assert!(part.workgroups[0] >= 1 && part.workgroups[0] <= max);
                assert_eq!(part.workgroups[1], 1);
                assert!(part.bytes <= budget.max(bytes / u64::from(groups)));
                next += part.workgroups[0];
            }
            assert_eq!(next, groups);
            let total: u64 = parts.iter().map(|p| p.bytes).sum();
            assert!(total <= bytes && bytes - total < parts.len() as u64);
        }
    }
}
