//! The SIMT model against known answers: plain copy kernels, traced on the adapter
//! through the crate's storage functions, whose memory traffic is known exactly;
//! and the trace build of the operator computes what the normal build does.

use revseq::shaders::Storage;
use revseq::simt::{Model, Report};
use revseq::trace::{kernel_wgsl, trace_wgsl};
use revseq::{
    reference, CompiledReverse, DataType, ReverseInPlace, ReverseSubsequences, TensorDesc, Tuning,
    Walk,
};

use crate::support::{gpu, Rng};

/// Runs `body` (the statements after `let id = invocation_index(..)`) over 4
/// workgroups of 256 invocations, every workgroup traced, and models it at warp 32.
fn model(storage: Storage, body: &str, input_bytes: usize, output_bytes: u64) -> Report {
    let wgsl = kernel_wgsl(body);
    let input: Vec<u8> = (0..input_bytes).map(|i| i as u8).collect();
    let trace = trace_wgsl(gpu(), &wgsl, storage, &[], [4, 1], &input, output_bytes, 1).unwrap();
    Model::new(32).analyze(&trace.accesses)
}

fn assert_close(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() < 1e-9,
        "{what}: {actual}, expected {expected}"
    );
}

#[test]
fn the_model_counts_copy_kernels_exactly() {
    // 16-byte vectors, neighbours on neighbours: every sector whole, 512 bytes an
    // instruction, one load and one store per 512 bytes each.
    let r = model(
        Storage::Vec4,
        "store_vec(id, load_vec(id));",
        16 << 10,
        16 << 10,
    );
    assert_close(r.loads.efficiency(), 1.0, "contiguous loads");
    assert_close(r.stores.efficiency(), 1.0, "contiguous stores");
    assert_close(r.loads.bytes_per_instruction(), 512.0, "bytes a load");
    assert_close(
        r.instructions_per_512_bytes(),
        2.0,
        "instructions per 512 bytes",
    );
    assert_close(r.bytes_loaded_per_byte(), 1.0, "bytes loaded per byte");
    assert_close(r.loads.idle_lanes_per_instruction(), 0.0, "idle lanes");
    assert_eq!((r.bytes_needed, r.divergent), (16 << 10, 0));

    // Every other 32-bit word: 128 bytes a load over 256, half of each sector used.
    let r = model(
        Storage::Words,
        "store_word(id, load_word(2u * id));",
        8 << 10,
        4 << 10,
    );
    assert_close(r.loads.efficiency(), 0.5, "stride-2 loads");
    assert_close(r.stores.efficiency(), 1.0, "stride-2 stores");
    assert_close(
        r.bytes_loaded_per_byte(),
        2.0,
        "stride-2 bytes loaded per byte",
    );
    assert_close(r.instructions_per_512_bytes(), 8.0, "stride-2 instructions");

    // One byte a lane, read as the 32-bit word that holds it: 4 lanes share a word,
    // a warp's load moves 32 bytes, one whole sector.
    let r = model(
        Storage::Words,
        "store_word(id, (load_word(id / 4u) >> (8u * (id % 4u))) & 0xffu);",
        1 << 10,
        4 << 10,
    );
    assert_close(r.loads.efficiency(), 1.0, "byte loads");
    assert_close(r.loads.bytes_per_instruction(), 32.0, "bytes a byte load");
    assert_close(
        r.bytes_loaded_per_byte(),
        0.25,
        "byte loads per byte stored",
    );

    // One byte a lane, 64 bytes apart: each lane its own sector, 128 bytes moved
    // (4 sectors' worth) over 32 sectors.
    let r = model(
        Storage::Words,
        "store_word(id, load_word(16u * id) & 0xffu);",
        64 << 10,
        4 << 10,
    );
    assert_close(r.loads.efficiency(), 0.125, "byte gather loads");
    assert_close(
        r.bytes_loaded_per_byte(),
        8.0,
        "byte gather bytes loaded per byte",
    );

    // A quarter of the lanes idle, the rest on one path: idle lanes, no divergence.
    let r = model(
        Storage::Vec4,
        "if (local % 4u != 3u) { store_vec(id, load_vec(id)); }",
        16 << 10,
        16 << 10,
    );
    assert_close(r.loads.idle_lanes_per_instruction(), 8.0, "idle lanes");
    assert_eq!(r.divergent, 0);
    // Lanes on two paths at the same ordinal: a load on one, a store on the other.
    let r = model(
        Storage::Vec4,
        "if (local % 2u == 0u) { store_vec(id, vec4(id)); } else { store_vec(id, load_vec(id)); }",
        16 << 10,
        16 << 10,
    );
    assert_eq!(r.divergent, 4 * 8, "one split a warp");
}

#[test]
fn the_model_counts_bytes_in_flight_exactly() {
    // `body` with the lengths imported: the lengths binding holds one 0.
    let in_flight = |body: &str| {
        let wgsl =
            kernel_wgsl(body).replace("#import storage", "#import shared/lengths\n#import storage");
        let input = vec![0u8; 32 << 10];
        let constants = [("LEN_WORDS", 1.0), ("LEN_SIGNED", 0.0)];
        let trace = trace_wgsl(
            gpu(),
            &wgsl,
            Storage::Vec4,
            &constants,
            [4, 1],
            &input,
            32 << 10,
            1,
        )
        .unwrap();
        Model::new(32)
            .analyze(&trace.accesses)
            .bytes_in_flight_per_thread()
    };
    // A copy: one 16-byte load a round trip.
    assert_close(in_flight("store_vec(id, load_vec(id));"), 16.0, "copy");
    // Two loads that do not wait on each other: one round trip.
    assert_close(
        in_flight("store_vec(id, load_vec(2u * id) ^ load_vec(2u * id + 1u));"),
        32.0,
        "two independent loads",
    );
    // A length, then the vector it mirrors to: 20 bytes over two round trips.
    assert_close(
        in_flight("let n = lane_length(id, 8u); store_vec(id, load_vec(mirrored(id % 8u, n)));"),
        10.0,
        "a length, then its data",
    );
    // The output read after a length, its address not from the length: one trip.
    assert_close(
        in_flight("let n = lane_length(id, 8u); store_vec(id, load_output_vec(id) + vec4(n));"),
        20.0,
        "a length and an independent load",
    );
}

/// Runs `op` and its trace build, tracing every `every`-th workgroup: the trace
/// build must compute what the normal build does. The model's account at warp 32.
fn traced(op: &CompiledReverse, input: &[u8], lengths: &[u8], every: u32) -> Report {
    let mut expected = vec![0; op.descriptor().output.min_size_in_bytes() as usize];
    op.run(input, lengths, &mut expected).unwrap();
    let trace = op.trace(input, lengths, every).unwrap();
    assert_eq!(
        &trace.output[..expected.len()],
        &expected[..],
        "{:?}",
        op.descriptor()
    );
    Model::new(32).analyze(&trace.accesses)
}

#[test]
fn the_trace_build_computes_what_the_normal_build_does() {
    let mut rng = Rng::new(61);
    for tuning in [Tuning::Cpu, Tuning::Gpu] {
        let gpu = gpu().with_tuning(tuning);
        for (sizes, axis) in [([6, 40, 64], 2), ([6, 40, 64], 1), ([40, 6, 63], 0)] {
            for data_type in [DataType::Uint8, DataType::Float32, DataType::Complex128] {
                let mut length_sizes = sizes;
                length_sizes[axis] = 1;
                let tensor = TensorDesc::new(data_type, &sizes);
                let desc = ReverseSubsequences::new(
                    tensor.clone(),
                    TensorDesc::new(DataType::Uint32, &length_sizes),
                    tensor,
                    axis as u32,
                );
                let op = gpu.compile(&desc).unwrap();
                let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
                let lengths: Vec<u8> = (0..desc.sequence_lengths.element_count())
                    .flat_map(|_| (rng.below(45) as u32).to_le_bytes())
                    .collect();
                let report = traced(&op, &input, &lengths, 1);
                // Every output byte written once, and recorded.
                assert_eq!(
                    report.bytes_needed,
                    desc.output.min_size_in_bytes(),
                    "{desc:?}"
                );
            }
        }
    }
}

/// A GPU walks windowed `runs` pairs lane by lane where run by run would start too
/// few invocations (`tuning::walks_lanes`). The model shows its accesses keep every
/// sector whole, as the one-dispatch kernel's do: a team moves a run's vectors side
/// by side, whether the run is 2 vectors, 16, or long enough to interleave over a
/// warp. 16 MiB on 8 MiB windows, so that each team of the fixed grid walks
/// several blocks of its lane; every 8th workgroup traced.
#[test]
fn a_gpus_pairs_walked_lane_by_lane_move_whole_sectors() {
    let gpu = gpu().with_tuning(Tuning::Gpu).with_max_binding(8 << 20);
    let mut rng = Rng::new(62);
    for (time, batch, inner) in [(1 << 18, 2, 8), (1 << 15, 2, 64), (64, 2, 1 << 15)] {
        let sizes = [time, batch, inner];
        let tensor = TensorDesc::new(DataType::Float32, &sizes);
        let desc = ReverseSubsequences::new(
            tensor.clone(),
            TensorDesc::new(DataType::Uint32, &[1, batch, inner]).with_strides(&[0, 1, 0]),
            tensor,
            0,
        );
        let op = gpu.compile(&desc).unwrap();
        assert!(
            op.key().walk == Walk::WindowByLane
                && op.dispatch_count() > 1
                && op.scratch_bytes() == 0,
            "{desc:?}: {} dispatches",
            op.dispatch_count()
        );
        let input = rng.bytes(desc.input.min_size_in_bytes() as usize);
        let lengths: Vec<u8> = (0..batch)
            .flat_map(|_| (rng.below(u64::from(time) + 1) as u32).to_le_bytes())
            .collect();
        let report = traced(&op, &input, &lengths, 8);
        assert!(report.bytes_needed > 0, "{desc:?}");
        for (side, what) in [(report.loads, "loads"), (report.stores, "stores")] {
            assert!(
                side.efficiency() > 0.999,
                "{desc:?}: {what} at {} of their sectors",
                side.efficiency()
            );
        }
    }
}

/// In place across windows on a GPU (`general/swap_pairs.wgsl`): the trace build
/// swaps what the reference swaps, its input binding writable under the layout
/// of its own, and where runs of one length move as 16-byte vectors (ONNX's
/// time-major layout), a warp's loads and stores at a position touch whole
/// sectors, front and back. 16 MiB on 8 MiB windows; every 8th workgroup traced.
#[test]
fn a_gpus_swaps_across_windows_move_whole_sectors_of_runs() {
    let gpu = gpu().with_tuning(Tuning::Gpu).with_max_binding(8 << 20);
    let mut rng = Rng::new(63);
    let (time, batch, inner) = (64, 2, 1 << 15);
    let d = ReverseInPlace::new(
        TensorDesc::new(DataType::Float32, &[time, batch, inner]),
        TensorDesc::new(DataType::Uint32, &[1, batch, inner]).with_strides(&[0, 1, 0]),
        0,
    );
    let op = gpu.compile_in_place(&d).unwrap();
    let key = op.key();
    assert!(
        key.walk == Walk::Across && key.vector_bytes == 16 && op.dispatch_count() > 1,
        "{d:?}: {key:?}, {} dispatches",
        op.dispatch_count()
    );
    let tensor = rng.bytes(d.tensor.min_size_in_bytes() as usize);
    let lengths: Vec<u8> = (0..batch)
        .flat_map(|_| (rng.below(u64::from(time) + 1) as u32).to_le_bytes())
        .collect();
    let mut expected = tensor.clone();
    reference::reverse_in_place_bytes(&d, &mut expected, &lengths).unwrap();
    let trace = op.trace(&tensor, &lengths, 8).unwrap();
    assert!(trace.output[..tensor.len()] == expected[..], "{d:?}");
    let report = Model::new(32).analyze(&trace.accesses);
    assert!(report.bytes_needed > 0, "{d:?}");
    for (side, what) in [(report.loads, "loads"), (report.stores, "stores")] {
        assert!(
            side.efficiency() > 0.95,
            "{d:?}: {what} at {} of their sectors",
            side.efficiency()
        );
    }
}
