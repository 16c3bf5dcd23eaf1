//! A SIMT model of memory traffic: from the accesses a kernel made
//! ([`crate::lab::trace`] records them from the real kernels), what a GPU's memory
//! system would see. Consecutive invocations of a workgroup form a warp (32 on
//! NVIDIA, 64 on AMD). A warp's invocations execute one instruction stream, each
//! access in program order, so the model lines their accesses up by class (load or
//! store, tensor, size): each invocation's k-th access of a class is the warp's
//! k-th memory instruction of that class, and invocations without one sit idle
//! for it. For each instruction the model counts the 32-byte sectors it touches
//! against the fewest that could hold the bytes it moves; for each warp, the
//! sectors its loads bring from DRAM once (a sector the warp loaded before costs
//! an instruction again, not traffic).
//!
//! Invocations that reach an instruction after different numbers of accesses
//! (different ordinals) took different paths before it: such instructions are
//! counted ([`Report::divergent`]), not hidden.

use std::collections::{BTreeMap, HashSet};

use crate::descriptor::error::TensorRole;

/// Whether an access reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A read.
    Load,
    /// A write.
    Store,
}

/// One access to a tensor by one invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The dispatch of the operator it belongs to.
    pub dispatch: u32,
    /// The workgroup, as the trace numbers its sample.
    pub workgroup: u32,
    /// The invocation's index in its workgroup.
    pub local: u32,
    /// The invocation's how-manieth access to the tensors this is, from 0.
    pub ordinal: u32,
    /// The index the kernel used on its binding's array, as it computed it.
    pub index: u32,
    /// Bytes of one element of that array: 4, 8 or 16.
    pub element_bytes: u32,
    /// Bytes from the start of the element to the first byte it moves: a word or
    /// half of a vector; 0 where it moves the whole element.
    pub offset: u32,
    /// Bytes from the start of the tensor's binding: `index * element_bytes +
    /// offset`, computed without wrapping.
    pub address: u64,
    /// Bytes it moves.
    pub bytes: u32,
    /// Read or write.
    pub kind: Kind,
    /// Which binding: the input's (1), the sequence lengths' (2) or the
    /// output's (3), whatever each holds in the dispatch (in place, the tensor
    /// may lie at the input's).
    pub tensor: TensorRole,
    /// Whether its address waits on an earlier load of the same invocation (an
    /// input load after a length load: the length mirrors its address).
    pub waits: bool,
}

/// The GPU the model stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Model {
    /// Invocations that run in step: 32 (NVIDIA, Apple, Intel's SIMD32) or 64 (AMD).
    pub warp: u32,
    /// Bytes the memory system moves at a time: 32.
    pub sector_bytes: u32,
}

impl Model {
    /// Warps of `warp` invocations, 32-byte sectors.
    pub const fn new(warp: u32) -> Model {
        Model {
            warp,
            sector_bytes: 32,
        }
    }
}

/// What the model counts of one kind of access (loads or stores).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Side {
    /// Warp memory instructions.
    pub instructions: u64,
    /// Lanes of a warp those instructions left idle, summed.
    pub idle_lanes: u64,
    /// Distinct bytes the instructions moved, summed over instructions.
    pub bytes: u64,
    /// Sectors the instructions touched, summed over instructions.
    pub sectors: u64,
    /// The fewest sectors that could hold each instruction's bytes, summed.
    pub fewest_sectors: u64,
    /// Instructions all of whose sectors the warp had touched before.
    pub repeated: u64,
}

impl Side {
    /// Sector efficiency: the fewest sectors that could hold the bytes moved ÷ the
    /// sectors touched; 1.0 is perfect.
    pub fn efficiency(&self) -> f64 {
        ratio(self.fewest_sectors, self.sectors)
    }

    /// Bytes an instruction moves, on average.
    pub fn bytes_per_instruction(&self) -> f64 {
        ratio(self.bytes, self.instructions)
    }

    /// Idle lanes an instruction has, on average.
    pub fn idle_lanes_per_instruction(&self) -> f64 {
        ratio(self.idle_lanes, self.instructions)
    }
}

/// The model's account of a trace.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Report {
    /// Loads: of the input, the lengths, and the output where a kernel reads it.
    pub loads: Side,
    /// Stores.
    pub stores: Side,
    /// Distinct bytes of the output written: what the operator must move.
    pub bytes_needed: u64,
    /// Bytes DRAM delivers to the loads: each warp's distinct sectors.
    pub bytes_loaded: u64,
    /// Instructions whose invocations reached them after different numbers of
    /// accesses: they took different paths before.
    pub divergent: u64,
    /// Bytes the invocations' loads ask for, summed over invocations.
    pub bytes_requested: u64,
    /// Round trips to memory the invocations' loads take, summed over invocations
    /// that load: 1 where no load waits on another, 2 where some do (a length,
    /// then the data it mirrors).
    pub round_trips: u64,
}

impl Report {
    /// Bytes loaded from DRAM per byte of output: 1.0 for a copy.
    pub fn bytes_loaded_per_byte(&self) -> f64 {
        ratio(self.bytes_loaded, self.bytes_needed)
    }

    /// Bytes an invocation has outstanding per round trip to memory: what it
    /// requests over the loads that do not wait on each other, the figure that
    /// Little's law multiplies by resident invocations (docs/gpu-model.md). A
    /// copy of one 16-byte vector an invocation: 16.
    pub fn bytes_in_flight_per_thread(&self) -> f64 {
        ratio(self.bytes_requested, self.round_trips)
    }

    /// Memory instructions (loads and stores) per 512 bytes of output: 2.0 for a
    /// copy of one 16-byte vector an invocation at warp 32.
    pub fn instructions_per_512_bytes(&self) -> f64 {
        512.0
            * ratio(
                self.loads.instructions + self.stores.instructions,
                self.bytes_needed,
            )
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// An instruction: its dispatch, workgroup and warp, its class (kind, tensor,
/// bytes), and which of the warp's instructions of that class it is.
type Instruction = (u32, u32, u32, Kind, TensorRole, u32, u32);

impl Model {
    /// Counts what `accesses` cost a GPU of this shape.
    pub fn analyze(&self, accesses: &[Access]) -> Report {
        let mut report = self.count_instructions(accesses);
        let (bytes_requested, round_trips) = in_flight(accesses);
        report.bytes_requested = bytes_requested;
        report.round_trips = round_trips;
        report
    }

    /// The warp instructions `accesses` make: each invocation's k-th access of a
    /// class is its warp's k-th instruction of that class, in the order the warp
    /// issues them (by the earliest ordinal that reaches them).
    fn instructions<'a>(&self, accesses: &'a [Access]) -> Vec<(Instruction, Vec<&'a Access>)> {
        let mut ordered: Vec<&Access> = accesses.iter().collect();
        ordered.sort_by_key(|a| (a.dispatch, a.workgroup, a.local, a.ordinal));
        let mut occurrences: std::collections::HashMap<
            (u32, u32, u32, Kind, TensorRole, u32),
            u32,
        > = std::collections::HashMap::new();
        let mut instructions: BTreeMap<Instruction, Vec<&Access>> = BTreeMap::new();
        for a in ordered {
            let class = (a.dispatch, a.workgroup, a.local, a.kind, a.tensor, a.bytes);
            let occurrence = occurrences.entry(class).or_insert(0);
            let key = (
                a.dispatch,
                a.workgroup,
                a.local / self.warp,
                a.kind,
                a.tensor,
                a.bytes,
                *occurrence,
            );
            *occurrence += 1;
            instructions.entry(key).or_default().push(a);
        }
        let mut issued: Vec<(Instruction, Vec<&Access>)> = instructions.into_iter().collect();
        issued.sort_by_key(|(key, lanes)| {
            let first = lanes.iter().map(|a| a.ordinal).min().unwrap_or(0);
            (key.0, key.1, key.2, first)
        });
        issued
    }

    /// Sectors, bytes and lanes of each warp instruction of `accesses`.
    fn count_instructions(&self, accesses: &[Access]) -> Report {
        let sector = u64::from(self.sector_bytes);
        let mut report = Report::default();
        let mut output = HashSet::new();
        // Per warp: the sectors it touched so far, and those its loads brought in.
        let mut touched: HashSet<(u32, u32, u32, TensorRole, u64)> = HashSet::new();
        let mut loaded: HashSet<(u32, u32, u32, TensorRole, u64)> = HashSet::new();
        for ((dispatch, workgroup, warp, kind, tensor, _, _), lanes) in self.instructions(accesses)
        {
            let ordinals: HashSet<u32> = lanes.iter().map(|a| a.ordinal).collect();
            if ordinals.len() > 1 {
                report.divergent += 1;
            }
            let mut bytes = HashSet::new();
            for a in &lanes {
                bytes.extend((0..a.bytes).map(|b| a.address + u64::from(b)));
            }
            let sectors: HashSet<u64> = bytes.iter().map(|b| b / sector).collect();
            let side = match kind {
                Kind::Load => &mut report.loads,
                Kind::Store => &mut report.stores,
            };
            let distinct_lanes: HashSet<u32> = lanes.iter().map(|a| a.local).collect();
            side.instructions += 1;
            side.idle_lanes += u64::from(self.warp) - distinct_lanes.len() as u64;
            side.bytes += bytes.len() as u64;
            side.sectors += sectors.len() as u64;
            side.fewest_sectors += (bytes.len() as u64).div_ceil(sector);
            let warp_key = |s: u64| (dispatch, workgroup, warp, tensor, s);
            if sectors.iter().all(|&s| touched.contains(&warp_key(s))) {
                side.repeated += 1;
            }
            touched.extend(sectors.iter().map(|&s| warp_key(s)));
            match kind {
                Kind::Load => loaded.extend(sectors.iter().map(|&s| warp_key(s))),
                Kind::Store if tensor == TensorRole::Output => {
                    output.extend(bytes.iter().map(|&b| (dispatch, b)))
                }
                Kind::Store => {}
            }
        }
        report.bytes_needed = output.len() as u64;
        report.bytes_loaded = loaded.len() as u64 * sector;
        report
    }
}

/// Bytes the invocations' loads ask for, and the round trips they take: one, or
/// two where some load waits on another; summed over invocations that load.
fn in_flight(accesses: &[Access]) -> (u64, u64) {
    let mut invocations: BTreeMap<(u32, u32, u32), (u64, bool)> = BTreeMap::new();
    for a in accesses.iter().filter(|a| a.kind == Kind::Load) {
        let loads = invocations
            .entry((a.dispatch, a.workgroup, a.local))
            .or_default();
        loads.0 += u64::from(a.bytes);
        loads.1 |= a.waits;
    }
    invocations
        .values()
        .fold((0, 0), |(bytes, trips), &(b, waits)| {
            (bytes + b, trips + 1 + u64::from(waits))
        })
}
