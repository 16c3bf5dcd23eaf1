//! What revseq-burn keeps for each compute client, made on its first call and
//! read by every call after: the target revseq plans for on its device, the
//! programs planned for it, by descriptor and mode, each ready to launch
//! (`src/launch.rs`), and where autotune is on, the choice timed for each
//! class of descriptor (`src/tune.rs`). A call for a descriptor seen before
//! plans nothing, times nothing and makes no text: it looks its programs up.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use burn_cubecl::cubecl::ir::UIntKind;
use burn_cubecl::cubecl::prelude::{Client, ElemType};
use cubecl_common::device::ServiceId;
use revseq::program::{self, Choice, Program, Target};
use revseq::wgpu;
use revseq::{ReverseInPlace, ReverseSubsequences};

use crate::launch::Launch;

/// Programs one client keeps: past it the client's programs start over, so
/// that a process meeting ever new shapes keeps its memory flat.
pub(crate) const KEPT_PROGRAMS: usize = 256;

/// A client's target and programs.
pub(crate) struct Kept {
    /// The client, which autotune times on.
    client: Client,
    target: Target,
    /// Whether the client's adapter is a GPU, where autotune is on by default.
    gpu: bool,
    /// By descriptor and whether in place; a plan refused is not kept.
    programs: Mutex<HashMap<(ReverseSubsequences, bool), Arc<Launch>>>,
    /// Autotune's choices, by class (`Program::class`); held while a class is
    /// tuned, so that one tuning runs at a time on the client.
    choices: Mutex<HashMap<u64, Choice>>,
}

/// A client: its service, and the binding the laboratory keeps plans to.
type ClientKey = (ServiceId, u64);

/// Each client's: one a device in practice.
static CLIENTS: LazyLock<Mutex<HashMap<ClientKey, Arc<Kept>>>> = LazyLock::new(Default::default);

impl Kept {
    /// What revseq-burn keeps for `client`, made on its first call.
    pub(crate) fn of(client: &Client) -> Arc<Kept> {
        let key = (client.service_id(), MAX_BINDING.load(Ordering::Relaxed));
        let mut clients = CLIENTS.lock().unwrap_or_else(PoisonError::into_inner);
        clients
            .entry(key)
            .or_insert_with(|| {
                Arc::new(Kept {
                    client: client.clone(),
                    target: target(client, key.1),
                    gpu: client.properties().identity.physical.is_some(),
                    programs: Mutex::default(),
                    choices: Mutex::default(),
                })
            })
            .clone()
    }

    /// What revseq plans for on the client's device.
    pub(crate) fn target(&self) -> &Target {
        &self.target
    }

    /// `desc` planned for the client, `in_place` or not: kept from a call
    /// before, or planned now and kept.
    pub(crate) fn program(
        &self,
        desc: &ReverseSubsequences,
        in_place: bool,
    ) -> Result<Arc<Launch>, revseq::Error> {
        let programs = || self.programs.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (desc.clone(), in_place);
        if let Some(launch) = programs().get(&key) {
            return Ok(launch.clone());
        }
        let planned = self.plan(desc, in_place, &self.target)?;
        let planned = match crate::tune::tunes(self.gpu) && crate::tune::worth_timing(&planned) {
            true => self.tuned(desc, in_place, planned),
            false => planned,
        };
        let launch = Arc::new(Launch::new(planned));
        let mut programs = programs();
        if programs.len() >= KEPT_PROGRAMS {
            programs.clear();
        }
        Ok(programs.entry(key).or_insert(launch).clone())
    }

    /// `desc` planned for `target`, `in_place` or not.
    fn plan(
        &self,
        desc: &ReverseSubsequences,
        in_place: bool,
        target: &Target,
    ) -> Result<Program, revseq::Error> {
        match in_place {
            false => program::program(desc, target),
            true => {
                let tensor = ReverseInPlace::new(
                    desc.input.clone(),
                    desc.sequence_lengths.clone(),
                    desc.axis,
                );
                program::program_in_place(&tensor, target)
            }
        }
    }

    /// `desc` planned under the choice kept for the class of its static plan
    /// `planned`, or timed now and kept; `planned` where the choice is the
    /// static one, cannot plan `desc`, or timing could not run.
    fn tuned(&self, desc: &ReverseSubsequences, in_place: bool, planned: Program) -> Program {
        let class = planned.class();
        let mut choices = self.choices.lock().unwrap_or_else(PoisonError::into_inner);
        let choice = match choices.get(&class) {
            Some(choice) => *choice,
            None => {
                let candidates = match in_place {
                    false => program::candidates(desc, &self.target),
                    true => program::candidates_in_place(
                        &ReverseInPlace::new(
                            desc.input.clone(),
                            desc.sequence_lengths.clone(),
                            desc.axis,
                        ),
                        &self.target,
                    ),
                };
                let timed = candidates
                    .ok()
                    .and_then(|candidates| crate::tune::fastest(&self.client, desc, candidates));
                // A class that could not be timed runs the static plan, and
                // is not timed again.
                let choice = timed.unwrap_or(self.target.choice());
                if choices.len() >= KEPT_PROGRAMS {
                    choices.clear();
                }
                choices.insert(class, choice);
                choice
            }
        };
        drop(choices);
        if choice == self.target.choice() {
            return planned;
        }
        let target = self.target.clone().with_choice(choice);
        self.plan(desc, in_place, &target).unwrap_or(planned)
    }

    /// How many programs the client keeps.
    pub(crate) fn programs(&self) -> usize {
        self.programs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// What revseq plans for on `client`'s device, from what cubecl says of it: a
/// binding and a buffer as large as one of its pages, its alignment, its
/// largest dispatch, and a CPU adapter where it names no card; at most
/// `max_binding` bytes a binding where the laboratory lowers it (0: not).
fn target(client: &Client, max_binding: u64) -> Target {
    let properties = client.properties();
    let memory = &properties.memory;
    let limits = wgpu::Limits {
        max_storage_buffer_binding_size: memory.max_page_size,
        max_buffer_size: memory.max_page_size,
        min_storage_buffer_offset_alignment: memory.alignment as u32,
        max_compute_workgroups_per_dimension: properties.hardware.max_cube_count.0,
        ..wgpu::Limits::default()
    };
    let kind = match properties.identity.physical {
        None => wgpu::DeviceType::Cpu,
        Some(_) => wgpu::DeviceType::DiscreteGpu,
    };
    let target = Target::new(limits, kind)
        .with_int64(properties.supports_type(ElemType::UInt(UIntKind::U64)));
    match max_binding {
        0 => target,
        bytes => target.with_max_binding(bytes),
    }
}

/// The binding plans keep to where the laboratory lowers it
/// (`revseq_burn::lab::set_max_binding`); 0 where it does not.
static MAX_BINDING: AtomicU64 = AtomicU64::new(0);

pub(crate) fn set_max_binding(bytes: Option<u64>) {
    MAX_BINDING.store(bytes.unwrap_or(0), Ordering::Relaxed);
}
