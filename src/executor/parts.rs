//! A run's dispatches in parts, for revseq's own bounded submissions
//! (`src/executor/device/submission.rs`): where `run` bounds each submission
//! to some output bytes, a dispatch that visits more runs as the parts the
//! program publishes (`src/plan/parts.rs`), their uniforms in one buffer of
//! the run's own. Only `run` cuts them; `record` dispatches whole.

use crate::descriptor::error::Error;
use crate::executor::compiled::CompiledReverse;
use crate::executor::uniform::{uniforms, Uniforms};
use crate::plan::parts::{parts, Part};

/// A run's dispatches in parts.
pub(crate) struct Parts {
    /// Each dispatch's parts, none where it runs whole; their uniforms lie in
    /// `uniform` in this order.
    pub(crate) of: Vec<Vec<Part>>,
    /// Absent where every dispatch runs whole.
    pub(crate) uniform: Option<Uniforms>,
}

impl CompiledReverse {
    /// The operator's dispatches in parts of at most `budget` output bytes, and
    /// the uniform of the parts.
    pub(crate) async fn parts(&self, budget: u64) -> Result<Parts, Error> {
        let limits = self.gpu.device().limits();
        let max = limits.max_compute_workgroups_per_dimension;
        // `run`'s buffers have copy usages: where the program lets staged
        // segments copy by buffer, a copy dispatch is buffer copies, never in
        // parts.
        let dispatches = self.program.dispatches();
        let of: Vec<Vec<Part>> = (dispatches.iter().enumerate())
            .map(|(i, d)| match self.program.buffer_copy(i) {
                Some(_) => Vec::new(),
                None => parts(d, budget, max),
            })
            .collect();
        let each: Vec<&[u8]> = of.iter().flatten().map(|part| &part.uniform[..]).collect();
        let uniform = match each.is_empty() {
            true => None,
            false => {
                let context = "creating the parts' uniform";
                Some(uniforms(&self.gpu, "revseq::parts", &each, context).await?)
            }
        };
        Ok(Parts { of, uniform })
    }
}
