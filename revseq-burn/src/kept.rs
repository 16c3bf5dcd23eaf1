//! What revseq-burn keeps for each compute client, made on its first call and
//! read by every call after: the target revseq plans for on its device, and
//! the programs planned for it, by descriptor and mode, each ready to launch
//! (`src/launch.rs`). A call for a descriptor seen before plans nothing and
//! makes no text: it looks its programs up.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use burn_cubecl::cubecl::ir::UIntKind;
use burn_cubecl::cubecl::prelude::{Client, ElemType};
use cubecl_common::device::ServiceId;
use revseq::program::{self, Target};
use revseq::wgpu;
use revseq::{ReverseInPlace, ReverseSubsequences};

use crate::launch::Launch;

/// Programs one client keeps: past it the client's programs start over, so
/// that a process meeting ever new shapes keeps its memory flat.
pub(crate) const KEPT_PROGRAMS: usize = 256;

/// A client's target and programs.
pub(crate) struct Kept {
    target: Target,
    /// By descriptor and whether in place; a plan refused is not kept.
    programs: Mutex<HashMap<(ReverseSubsequences, bool), Arc<Launch>>>,
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
                    target: target(client, key.1),
                    programs: Mutex::default(),
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
        let planned = match in_place {
            false => program::program(desc, &self.target),
            true => {
                let tensor = ReverseInPlace::new(
                    desc.input.clone(),
                    desc.sequence_lengths.clone(),
                    desc.axis,
                );
                program::program_in_place(&tensor, &self.target)
            }
        }?;
        let launch = Arc::new(Launch::new(planned));
        let mut programs = programs();
        if programs.len() >= KEPT_PROGRAMS {
            programs.clear();
        }
        Ok(programs.entry(key).or_insert(launch).clone())
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
