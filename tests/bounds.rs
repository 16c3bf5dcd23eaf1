//! The bounds test: every access a kernel makes lies inside the window its
//! binding holds, so that the kernels are safe where a runtime builds them with
//! bounds checks off (`revseq::program`). Robust buffer access and naga's clamps
//! would hide a violation on every adapter, so the test reads the trace build
//! (`src/lab/trace.rs`), whose records hold each index as the kernel computed it.
//!
//! Two halves: every line of every kernel that indexes a binding is traced, with
//! the index it uses (read in the WGSL, no adapter); and for random descriptors,
//! every workgroup of every dispatch traced, every access checked against its
//! window, and every byte the run changed seen stored by the trace.
//! `REVSEQ_BOUNDS_CASES` sets how many descriptors (600 by default, about 2,100
//! programs).
//!
//! Its own binary, so that `cargo test --release bounds` runs it and nothing slow
//! beside it, and the GL passes of `.ci/test` (`--test revseq`) leave it out.

#![cfg(not(target_arch = "wasm32"))]

#[path = "revseq/support.rs"]
#[expect(dead_code, reason = "the adapter, the generator and the lengths alone")]
mod support;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Instant;

use revseq::program;
use revseq::shaders::{Source, Storage};
use revseq::trace::Kind;
use revseq::trace::{Trace, TracedBuffer};
use revseq::{
    reference, DataType, Error, Gpu, PipelineKey, ReverseInPlace, ReverseSubsequences, TensorDesc,
    TensorRole, Tuning, Variant,
};
use support::{gpu, gpu_with_limits, interesting_lengths, length_bytes, Rng, LENGTH_TYPES};

/// Every source a pipeline can be built from: each key's, and the staging copy's
/// on each storage.
fn every_source() -> Vec<Source> {
    let mut sources: Vec<Source> = PipelineKey::all().map(|key| key.source()).collect();
    sources.extend([Storage::Words, Storage::Vec4, Storage::U64].map(Source::staging_copy));
    sources.sort();
    sources.dedup();
    sources
}

/// The storage arrays a WGSL module binds at 1-3: (name, binding).
fn bound_arrays(wgsl: &str) -> Vec<(String, u32)> {
    wgsl.lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("@group(0) @binding(")?;
            let binding: u32 = rest[..rest.find(')')?].parse().ok()?;
            let after = &rest[rest.find("var<storage")?..];
            let name = after[after.find('>')? + 1..].trim();
            let name = &name[..name.find(':')?];
            (1..=3)
                .contains(&binding)
                .then(|| (name.trim().to_string(), binding))
        })
        .collect()
}

/// The index expressions `name[...]` takes on `line`, or `None` where the name
/// appears otherwise (a pointer to the whole array, say), which the trace could
/// not see.
fn indices(line: &str, name: &str) -> Option<Vec<String>> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(i) = line[at..].find(name) {
        let start = at + i;
        let end = start + name.len();
        at = end;
        let before = line[..start].chars().next_back();
        let after = line[end..].chars().next();
        if before.is_some_and(word) || after.is_some_and(word) {
            continue;
        }
        if after != Some('[') {
            return None;
        }
        let mut depth = 0;
        let close = line[end..].char_indices().find_map(|(k, c)| {
            depth += match c {
                '[' => 1,
                ']' => -1,
                _ => 0,
            };
            (depth == 0).then_some(end + k)
        })?;
        found.push(line[end + 1..close].trim().to_string());
    }
    Some(found)
}

/// What is wrong with `wgsl`'s tracing: each line that indexes a bound array must
/// follow a `trace_access` or `trace_part` of that binding's kind with the same
/// index, and a bound array is used in no other way.
fn untraced(wgsl: &str) -> Vec<String> {
    let arrays = bound_arrays(wgsl);
    let mut problems = Vec::new();
    let lines: Vec<&str> = wgsl.lines().collect();
    for (n, line) in lines.iter().enumerate() {
        if line.trim().starts_with("//") || line.contains("@binding(") {
            continue;
        }
        // The length of a bound array is no access.
        let line = &arrays.iter().fold(line.to_string(), |l, (name, _)| {
            l.replace(&format!("arrayLength(&{name})"), "arrayLength")
        });
        for (name, binding) in &arrays {
            let Some(found) = indices(line, name) else {
                problems.push(format!("line {}: `{name}` used whole: {line}", n + 1));
                continue;
            };
            let Some(index) = found.first() else {
                continue;
            };
            let kind = ["TRACE_INPUT", "TRACE_LENGTHS", "TRACE_OUTPUT"][*binding as usize - 1];
            let previous = lines[..n].iter().rev().find(|l| !l.trim().is_empty());
            let traced = previous.and_then(|p| {
                let call = p.trim();
                let args = call
                    .strip_prefix("trace_access(")
                    .or_else(|| call.strip_prefix("trace_part("))?;
                let mut args = args.split(',').map(str::trim);
                let (k, i) = (args.next()?, args.next()?);
                Some(k.contains(kind) && i == index)
            });
            if traced != Some(true) || found.iter().any(|i| i != index) {
                problems.push(format!(
                    "line {}: `{name}[{index}]` (binding {binding}) without a trace of {kind} \
                     at index {index} on the line before: {line}",
                    n + 1
                ));
            }
        }
    }
    problems
}

/// Needs no adapter: the WGSL of every source, read line by line.
#[test]
fn bounds_every_binding_access_is_traced_with_its_index() {
    let sources = every_source();
    let mut accesses = 0;
    for source in &sources {
        let wgsl = source.traced_wgsl();
        let problems = untraced(&wgsl);
        assert!(
            problems.is_empty(),
            "{}: accesses the trace cannot see:\n{}",
            source.label(),
            problems.join("\n")
        );
        let arrays = bound_arrays(&wgsl);
        assert!(
            arrays.iter().any(|(_, b)| *b == 3),
            "{}: no output binding found in {arrays:?}",
            source.label()
        );
        accesses += wgsl
            .lines()
            .filter(|l| {
                arrays
                    .iter()
                    .any(|(name, _)| indices(l, name).is_some_and(|i| !i.is_empty()))
            })
            .count();
    }
    // The check itself: a line that indexes a binding without a trace, or with
    // another index than the trace's, is found.
    let bad = "@group(0) @binding(3) var<storage, read_write> dst: array<u32>;\n\
               fn f(i: u32) {\n    trace_access(TRACE_STORE | TRACE_OUTPUT, i, 4u);\n    dst[i + 1u] = 0u;\n    dst[i] = 1u;\n    let p = &dst;\n}\n";
    let problems = untraced(bad);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    eprintln!(
        "bounds: {} sources, {accesses} lines that index a binding, each traced with its index",
        sources.len()
    );
}

/// The devices the cases run on: the adapter with the features it offers (64-bit
/// integers where it has them) and a device of the same adapter without any.
fn devices() -> Vec<(&'static str, Gpu)> {
    let plain = gpu_with_limits(|_| {});
    let mut devices = vec![("no int64", plain)];
    if gpu()
        .device()
        .features()
        .contains(wgpu::Features::SHADER_INT64)
    {
        devices.push(("int64", gpu().clone()));
    }
    devices
}

/// Strides for `sizes`: dimensions in a random order with random gaps, and where
/// `broadcast`, now and then stride 0.
fn strides(rng: &mut Rng, sizes: &[u32], broadcast: bool) -> Vec<u32> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    if rng.below(2) == 0 {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }
    let mut strides = vec![0u32; sizes.len()];
    let mut next = 1u32;
    for &d in order.iter().rev() {
        strides[d] = next;
        let gap = [0, 0, 0, 1, 3][rng.below(5) as usize];
        next = next * sizes[d] + gap;
    }
    if broadcast {
        for s in &mut strides {
            if rng.below(6) == 0 {
                *s = 0;
            }
        }
    }
    strides
}

/// A random descriptor of about `elements` elements at most: rank 1-8, any data
/// and length type, strides with gaps, broadcast inputs and lengths. One in six
/// reverses the outer axis of a wide matrix, whose lanes past a small window
/// stage through scratch.
fn descriptor(rng: &mut Rng, elements: u64) -> ReverseSubsequences {
    let data_type = DataType::ALL[rng.below(DataType::ALL.len() as u64) as usize];
    let length_type = LENGTH_TYPES[rng.below(4) as usize];
    let (sizes, axis) = match rng.below(6) {
        0 => {
            let positions = 2 + rng.below(40);
            let columns = 1 + rng.below((4 * elements / positions).max(1));
            (vec![positions as u32, columns as u32], 0)
        }
        _ => {
            let rank = 1 + rng.below(8) as usize;
            let axis = rng.below(rank as u64) as usize;
            let mut sizes = vec![1u32; rank];
            let mut left = elements.max(1);
            let mut dims: Vec<usize> = (0..rank).collect();
            dims.swap(0, axis);
            for &d in &dims {
                let cap = [3, 9, 64, 400][rng.below(4) as usize];
                let size = 1 + rng.below(left.min(cap));
                sizes[d] = size as u32;
                left /= size;
            }
            (sizes, axis)
        }
    };
    let packed = rng.below(3) == 0;
    let layout = |rng: &mut Rng, broadcast| match packed {
        true => TensorDesc::new(data_type, &sizes),
        false => TensorDesc::new(data_type, &sizes).with_strides(&strides(rng, &sizes, broadcast)),
    };
    let input = layout(rng, true);
    let output = layout(rng, false);
    let mut length_sizes = sizes.clone();
    length_sizes[axis] = 1;
    let lengths = TensorDesc::new(length_type, &length_sizes);
    let lengths = match rng.below(3) {
        0 => lengths,
        _ => lengths.with_strides(&strides(rng, &length_sizes, true)),
    };
    ReverseSubsequences::new(input, lengths, output, axis as u32)
}

/// Lengths for `desc`: 0, 1, past the axis, negative, the largest of their type,
/// or any value up to the axis.
fn lengths(rng: &mut Rng, desc: &ReverseSubsequences) -> Vec<u8> {
    let length_type = desc.sequence_lengths.data_type();
    let n = desc.input.sizes()[desc.axis as usize];
    let pool = interesting_lengths(length_type, n);
    let slots = desc.sequence_lengths.min_size_in_bytes() / u64::from(length_type.size_in_bytes());
    (0..slots)
        .flat_map(|_| {
            let value = match rng.below(2) {
                0 => pool[rng.below(pool.len() as u64) as usize],
                _ => i128::from(rng.below(u64::from(n) + 1) as u32),
            };
            length_bytes(length_type, value)
        })
        .collect()
}

/// What the checks counted.
#[derive(Default)]
struct Counts {
    programs: u64,
    dispatches: u64,
    copies: u64,
    accesses: u64,
    length_reads: u64,
    /// Plans refused on a small window (too many dispatches, in place too large).
    refused: u64,
    by_family: BTreeMap<String, u64>,
}

/// Checks `trace`, a run that started with `start` in its output binding (the
/// tensor, in place): every access inside its binding's window, and every byte
/// the run changed stored by an access the trace saw.
fn check(trace: &Trace, start: &[u8], what: &dyn Fn() -> String, counts: &mut Counts) {
    let mut stored = vec![false; start.len()];
    let mut recorded = HashSet::new();
    for a in &trace.accesses {
        let dispatch = &trace.dispatches[a.dispatch as usize];
        let b = match a.tensor {
            TensorRole::SequenceLengths => 1,
            TensorRole::Output => 2,
            _ => 0,
        };
        let binding = dispatch.bindings[b];
        let past =
            a.offset + a.bytes > a.element_bytes || a.address + u64::from(a.bytes) > binding.size;
        if past {
            panic!(
                "{}: dispatch {} ({}) made a {} of {} bytes at index {} (elements of {} \
                 bytes, at byte {} in it): bytes {}..{} of binding {} ({:?}, a window \
                 of {} bytes at {}), past its end",
                what(),
                a.dispatch,
                dispatch.kernel,
                if a.kind == Kind::Load {
                    "load"
                } else {
                    "store"
                },
                a.bytes,
                a.index,
                a.element_bytes,
                a.offset,
                a.address,
                a.address + u64::from(a.bytes),
                b + 1,
                binding.buffer,
                binding.size,
                binding.offset,
            );
        }
        recorded.insert(a.dispatch);
        counts.accesses += 1;
        counts.length_reads += u64::from(b == 1);
        if a.kind == Kind::Store && binding.buffer == TracedBuffer::Output {
            let at = (binding.offset + a.address) as usize;
            let end = (at + a.bytes as usize).min(stored.len());
            stored[at.min(end)..end].fill(true);
        }
    }
    for (i, dispatch) in trace.dispatches.iter().enumerate() {
        let launched = dispatch.workgroups[0] > 0;
        assert!(
            !launched || recorded.contains(&(i as u32)),
            "{}: dispatch {i} ({}) launched {:?} workgroups and the trace saw no access",
            what(),
            dispatch.kernel,
            dispatch.workgroups
        );
        counts.dispatches += u64::from(launched);
        counts.copies += u64::from(launched && dispatch.kernel.contains("copy/copy"));
    }
    if let Some(at) = (0..start.len()).find(|&p| trace.output[p] != start[p] && !stored[p]) {
        panic!(
            "{}: output byte {at} changed and no traced store wrote it: an access the \
             trace cannot see",
            what()
        );
    }
    counts.programs += 1;
    let family = trace
        .dispatches
        .iter()
        .find(|d| !d.kernel.contains("copy/copy"));
    if let Some(family) = family {
        *counts.by_family.entry(family.kernel.clone()).or_default() += 1;
    }
}

/// Whether `planned` (in `mode`) is a program to trace: planned on the host
/// first, so that a forced family that cannot serve the layout, and plans what
/// another did, is not traced again (`seen` holds the programs traced, told
/// apart by their kernels, dispatches and workgroups). A plan refused on so
/// small a window (too many dispatches, in place too large) is counted.
fn first_plan(
    mode: &str,
    planned: Result<program::Program, Error>,
    seen: &mut HashSet<String>,
    what: &dyn Fn() -> String,
    counts: &mut Counts,
) -> bool {
    let planned = match planned {
        Ok(planned) => planned,
        Err(Error::TooManyDispatches { .. } | Error::InPlaceTooLarge { .. }) => {
            counts.refused += 1;
            return false;
        }
        Err(e) => panic!("{} {mode}: {e}", what()),
    };
    let kernels: Vec<u64> = planned.kernels().iter().map(|k| k.digest).collect();
    let dispatches: Vec<(usize, [u32; 3])> = planned
        .dispatches()
        .iter()
        .map(|d| (d.kernel, d.workgroups))
        .collect();
    seen.insert(format!("{mode} {kernels:?} {dispatches:?}"))
}

/// `desc` traced out of place on `gpu`, checked and compared with the reference;
/// `None` where the plan is one already checked (`seen`).
fn out_of_place(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
    input: &[u8],
    lengths: &[u8],
    seen: &mut HashSet<String>,
    what: &dyn Fn() -> String,
    counts: &mut Counts,
) {
    let planned = program::program(desc, &gpu.target());
    if !first_plan("out of place", planned, seen, what, counts) {
        return;
    }
    let op = gpu
        .compile(desc)
        .unwrap_or_else(|e| panic!("{}: {e}", what()));
    let trace = op
        .trace(input, lengths, 1)
        .unwrap_or_else(|e| panic!("{}: {e}", what()));
    let start = vec![0; trace.output.len()];
    check(
        &trace,
        &start,
        &|| format!("{} as {:?}", what(), op.key()),
        counts,
    );
    let mut expected = start;
    reference::reverse_subsequences_bytes(desc, input, lengths, &mut expected).unwrap();
    assert!(
        trace.output == expected,
        "{} as {:?}: not the reference's bytes",
        what(),
        op.key()
    );
}

/// [`out_of_place`] in place, on the output's layout.
fn in_place(
    gpu: &Gpu,
    desc: &ReverseInPlace,
    tensor: &[u8],
    lengths: &[u8],
    seen: &mut HashSet<String>,
    what: &dyn Fn() -> String,
    counts: &mut Counts,
) {
    let planned = program::program_in_place(desc, &gpu.target());
    if !first_plan("in place", planned, seen, what, counts) {
        return;
    }
    let op = gpu
        .compile_in_place(desc)
        .unwrap_or_else(|e| panic!("{} in place: {e}", what()));
    let what = || format!("{} in place as {:?}", what(), op.key());
    let trace = op
        .trace(tensor, lengths, 1)
        .unwrap_or_else(|e| panic!("{}: {e}", what()));
    let mut start = tensor.to_vec();
    start.resize(trace.output.len(), 0);
    check(&trace, &start, &what, counts);
    let mut expected = tensor.to_vec();
    reference::reverse_in_place_bytes(desc, &mut expected, lengths).unwrap();
    assert!(
        trace.output[..expected.len()] == expected[..],
        "{}: not the reference's bytes",
        what()
    );
}

/// The plans a case runs under: each device, tuning and binding window, each
/// family forced (as the benchmark and the kit force them) and none.
struct Plans {
    devices: Vec<(&'static str, Gpu)>,
    made: HashMap<(usize, Tuning, bool, u64, Option<Variant>), Gpu>,
}

impl Plans {
    fn get(
        &mut self,
        device: usize,
        tuning: Tuning,
        moves: bool,
        window: u64,
        variant: Option<Variant>,
    ) -> &Gpu {
        let base = &self.devices[device].1;
        self.made
            .entry((device, tuning, moves, window, variant))
            .or_insert_with(|| {
                base.with_tuning(tuning)
                    .with_64_bit_moves(moves)
                    .with_max_binding(window)
                    .with_variant(variant)
            })
    }
}

#[test]
fn bounds_every_access_stays_inside_its_binding() {
    let cases: u64 = std::env::var("REVSEQ_BOUNDS_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    let started = Instant::now();
    let mut plans = Plans {
        devices: devices(),
        made: HashMap::new(),
    };
    let mut rng = Rng::new(80);
    let mut counts = Counts::default();
    for case in 0..cases {
        // A third of the cases on small windows: windowed, staged and in-place
        // plans across windows, on tensors of a few windows.
        let window = match rng.below(6) {
            0 => 256,
            1 => 512,
            2 => 1024,
            _ => u64::MAX,
        };
        let desc = descriptor(&mut rng, if window < u64::MAX { 300 } else { 1200 });
        let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
        let lengths = lengths(&mut rng, &desc);
        let tensor = rng.bytes(desc.output.min_size_in_bytes() as usize);
        let in_place_desc = ReverseInPlace::new(
            desc.output.clone(),
            desc.sequence_lengths.clone(),
            desc.axis,
        );
        let admits_in_place = in_place_desc.validate().is_ok();
        let device = (case % plans.devices.len() as u64) as usize;
        let device_name = plans.devices[device].0;
        let binding = match window {
            u64::MAX => "the device's".to_string(),
            bytes => format!("{bytes}-byte"),
        };
        let moves = rng.below(2) == 0;
        let mut seen = HashSet::new();
        for tuning in [Tuning::Cpu, Tuning::Gpu] {
            for variant in std::iter::once(None).chain(Variant::ALL.map(Some)) {
                let gpu = plans.get(device, tuning, moves, window, variant).clone();
                let what = || {
                    format!(
                        "case {case}: {desc:?} on the device with {device_name} ({tuning:?}, 64-bit moves {moves}, \
                         {binding} bindings, forced {variant:?})"
                    )
                };
                out_of_place(&gpu, &desc, &input, &lengths, &mut seen, &what, &mut counts);
                if admits_in_place {
                    in_place(
                        &gpu,
                        &in_place_desc,
                        &tensor,
                        &lengths,
                        &mut seen,
                        &what,
                        &mut counts,
                    );
                }
            }
        }
    }
    eprintln!(
        "bounds: {cases} descriptors, {} programs, {} dispatches ({} staging copies), \
         {} accesses ({} of the lengths) inside their bindings, {} plans refused \
         on small windows, in {:.1} s",
        counts.programs,
        counts.dispatches,
        counts.copies,
        counts.accesses,
        counts.length_reads,
        counts.refused,
        started.elapsed().as_secs_f64()
    );
    eprintln!("bounds: programs by kernel: {:?}", counts.by_family);
    assert!(counts.copies > 0, "no staging copy was traced");
    for family in [
        "general/",
        "rows/",
        "runs/",
        "gather/",
        "columns/",
        "/swap_pairs",
        "rows/window",
    ] {
        assert!(
            counts.by_family.keys().any(|k| k.contains(family)),
            "no {family} kernel was traced: {:?}",
            counts.by_family
        );
    }
}

/// What the bounds test found, each on the plan it was found on.
#[test]
fn bounds_regressions() {
    let plain = gpu_with_limits(|_| {});
    let mut counts = Counts::default();
    // A staged piece's last run, padded to whole vectors in scratch: its
    // padding's lengths lie past the piece's lengths window (and here past the
    // lengths buffer). `columns`, `gather` and `general` read them; they now clamp
    // those reads into the binding.
    let desc = ReverseSubsequences::new(
        TensorDesc::new(DataType::Bool, &[6, 172]),
        TensorDesc::new(DataType::Uint64, &[1, 172]),
        TensorDesc::new(DataType::Bool, &[6, 172]),
        0,
    );
    let mut rng = Rng::new(81);
    let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
    let lens = lengths(&mut rng, &desc);
    for variant in [Variant::Columns, Variant::Gather, Variant::General] {
        let gpu = plain
            .with_tuning(Tuning::Cpu)
            .with_max_binding(512)
            .with_variant(Some(variant));
        let what = || format!("{desc:?} staged on 512-byte windows, {variant:?}");
        let op = gpu.compile(&desc).unwrap();
        assert!(op.scratch_bytes() > 0, "{}: not staged", what());
        assert_eq!(op.variant(), variant, "{}", what());
        out_of_place(
            &gpu,
            &desc,
            &input,
            &lens,
            &mut HashSet::new(),
            &what,
            &mut counts,
        );
    }
    // In place across windows on 16-byte units of 4-byte elements: a window's
    // negative shift, wrapped, was divided by 4 as unsigned and indexed 2^30 units
    // past the window (a byte address in u32, times 16, wrapped back onto the
    // right bytes, so only a GPU addressing in 64 bits would miss them).
    let tensor = TensorDesc::new(DataType::Int32, &[22, 12]);
    let lengths_desc = TensorDesc::new(DataType::Uint32, &[1, 12]).with_strides(&[12, 0]);
    let desc = ReverseInPlace::new(tensor, lengths_desc, 0);
    let operator = ReverseSubsequences::new(
        desc.tensor.clone(),
        desc.sequence_lengths.clone(),
        desc.tensor.clone(),
        0,
    );
    let tensor = rng.bytes(desc.tensor.min_size_in_bytes() as usize);
    let lens = lengths(&mut rng, &operator);
    let gpu = plain
        .with_tuning(Tuning::Cpu)
        .with_64_bit_moves(false)
        .with_max_binding(1024);
    let op = gpu.compile_in_place(&desc).unwrap();
    assert_eq!(op.key().walk, revseq::Walk::Across, "{desc:?}");
    assert_eq!(op.key().vector_bytes, 16, "{desc:?}");
    let what = || format!("{desc:?} in place on 1024-byte windows");
    in_place(
        &gpu,
        &desc,
        &tensor,
        &lens,
        &mut HashSet::new(),
        &what,
        &mut counts,
    );
    assert_eq!(counts.programs, 4);
}
