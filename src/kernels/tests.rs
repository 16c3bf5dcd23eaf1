//! The choice of work, on the host: which family runs a layout under each tuning,
//! and the counts it cuts the work into.

use super::*;
use crate::descriptor::dtype::DataType;
use crate::descriptor::operator::ReverseSubsequences;
use crate::descriptor::tensor::TensorDesc;
use crate::kernels::tuning::{Profile, Tuning};

const CPU: Profile = Profile {
    tuning: Tuning::Cpu,
    int64: true,
    moves_64: true,
    forced: None,
};
const GPU: Profile = Profile {
    tuning: Tuning::Gpu,
    int64: true,
    moves_64: true,
    forced: None,
};

fn device(cpu: bool) -> &'static Profile {
    if cpu {
        &CPU
    } else {
        &GPU
    }
}

fn work(data_type: DataType, sizes: &[u32], axis: u32, cpu: bool) -> Work {
    let tensor = TensorDesc::new(data_type, sizes);
    plan_of(tensor.clone(), tensor, axis, cpu)
}

fn plan_of(input: TensorDesc, output: TensorDesc, axis: u32, cpu: bool) -> Work {
    let data_type = input.data_type();
    let mut length_sizes = input.sizes().to_vec();
    length_sizes[axis as usize] = 1;
    let desc = ReverseSubsequences::new(
        input,
        TensorDesc::new(DataType::Uint32, &length_sizes),
        output,
        axis,
    );
    desc.validate().unwrap();
    Work::new(
        &Layout::canonical(&desc),
        data_type.size_in_bytes(),
        desc.output.min_size_in_bytes(),
        Mode::OutOfPlace,
        device(cpu),
    )
}

fn rows(work: Work) -> rows::Rows {
    match work {
        Work::Rows(p) => p,
        other => panic!("{other:?}"),
    }
}

fn gather(work: Work) -> gather::Gather {
    match work {
        Work::Gather(p) => p,
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_variant_depends_on_the_layout_and_the_steps_on_the_adapter() {
    for (sizes, axis, cpu_variant, gpu_variant) in [
        (&[100, 64][..], 1, Variant::Rows, Variant::Rows),
        (&[80, 100], 0, Variant::Gather, Variant::Gather),
        (&[100, 63], 1, Variant::Rows, Variant::Rows),
        (&[100, 3], 0, Variant::Gather, Variant::Gather),
        (&[100, 1], 1, Variant::General, Variant::General),
    ] {
        let cpu = work(DataType::Float32, sizes, axis, true);
        let gpu = work(DataType::Float32, sizes, axis, false);
        assert_eq!((cpu.variant(), gpu.variant()), (cpu_variant, gpu_variant));
    }
    // 64 four-byte elements are 16 vectors a row: 8 per invocation on a CPU,
    // one per invocation, neighbours on neighbours, on a GPU.
    let cpu = rows(work(DataType::Float32, &[100, 64], 1, true));
    let gpu = rows(work(DataType::Float32, &[100, 64], 1, false));
    assert_eq!((cpu.steps, cpu.per_row, cpu.invocations), (8, 2, 200));
    assert_eq!((gpu.steps, gpu.per_row, gpu.invocations), (1, 16, 1600));
    // Packed rows of 8- and 16-byte elements take 16 vectors an invocation on
    // a CPU; rows with gaps between them, and narrower elements, 8.
    for (data_type, packed_steps) in [(DataType::Float64, 16), (DataType::Uint8, 8)] {
        let steps = |input: u32, output: u32, cpu| {
            let rows_of =
                |stride| TensorDesc::new(data_type, &[100, 256]).with_strides(&[stride, 1]);
            rows(plan_of(rows_of(input), rows_of(output), 1, cpu)).steps
        };
        assert_eq!(steps(256, 256, true), packed_steps);
        assert_eq!(steps(256, 256, false), 1);
        assert_eq!(steps(256 + 16, 256 + 32, true), 8);
        assert_eq!(steps(256, 256 + 16, true), 8);
    }
    // A row of 3 vectors gets 4 steps, not 8 that would idle.
    let short = rows(work(DataType::Uint8, &[10, 48], 1, true));
    assert_eq!((short.steps, short.invocations), (4, 10));
    // Gather walks blocks of positions of each column: 25 vectors a run, one
    // band of them, 80 positions in 20 blocks of 4.
    let g = gather(work(DataType::Float32, &[80, 100], 0, true));
    assert_eq!((g.steps, g.vector.vecs, g.band), (4, 25, 25));
    assert_eq!((g.blocks, g.invocations), (20, 20 * 25));
    // 1-byte elements walk blocks of 8 on a CPU (along more positions than
    // `columns` holds).
    let g = gather(work(DataType::Uint8, &[80, 160], 0, true));
    assert_eq!((g.steps, g.blocks, g.vector.vecs), (8, 10, 10));
    assert_eq!(g.invocations, 10 * 10);
    // Only a CPU's gathers of 4-byte and wider elements on 16-byte vectors load
    // ahead.
    assert!(gather(work(DataType::Float32, &[80, 100], 0, true)).touch_ahead);
    assert!(gather(work(DataType::Float64, &[80, 100], 0, true)).touch_ahead);
    assert!(!gather(work(DataType::Uint8, &[80, 160], 0, true)).touch_ahead);
    assert!(!gather(work(DataType::Float32, &[80, 101], 0, true)).touch_ahead);
    // On a GPU gather walks blocks of 4 and loads nothing ahead.
    let g = gather(work(DataType::Uint8, &[481, 160], 0, false));
    assert_eq!((g.steps, g.blocks, g.touch_ahead), (4, 121, false));
    // 515 vectors a run: three bands of 172, not two of 256 and a third of 3;
    // the last band has one idle column. An axis of 67 takes 17 blocks of 4.
    let g = gather(work(DataType::Float32, &[67, 515 * 4], 0, true));
    assert_eq!((g.steps, g.blocks, g.band), (4, 17, 172));
    assert_eq!(g.invocations, 17 * 3 * 172);
    let g = gather(work(DataType::Float32, &[3, 67, 515 * 4], 1, true));
    assert_eq!(g.invocations, 3 * 17 * 3 * 172);
}

#[test]
fn columns_hold_short_axes() {
    let columns = |work: Work| match work {
        Work::Columns(p) => p,
        other => panic!("{other:?}"),
    };
    // Vectors along at most 64 positions, on a CPU: the axis in 8, 16, 32 or 64
    // rows.
    for (n, rows) in [(2, 8), (8, 8), (9, 16), (17, 32), (33, 64), (64, 64)] {
        for data_type in [DataType::Uint8, DataType::Float16, DataType::Float64] {
            let p = columns(work(data_type, &[n, 160], 0, true));
            assert_eq!(p.column_rows, rows);
        }
    }
    // An invocation per vector of a run; the runs are every other dimension.
    let p = columns(work(DataType::Float16, &[3, 40, 80], 1, true));
    assert_eq!((p.vector.vecs, p.invocations), (10, 3 * 10));
    let p = columns(work(DataType::Uint8, &[5, 16 * 70], 0, true));
    assert_eq!((p.vector.vecs, p.invocations), (70, 70));
    // On a GPU too; not past 64 positions, for 16-byte elements, or on words.
    for (data_type, sizes, cpu, variant) in [
        (DataType::Uint8, [65, 160], true, Variant::Gather),
        (DataType::Complex128, [64, 10], true, Variant::Gather),
        (DataType::Float32, [65, 100], true, Variant::Gather),
        (DataType::Uint8, [64, 160], false, Variant::Columns),
        (DataType::Uint8, [65, 160], false, Variant::Gather),
        (DataType::Complex128, [64, 10], false, Variant::Gather),
        (DataType::Uint8, [64, 20], true, Variant::Gather),
    ] {
        assert_eq!(work(data_type, &sizes, 0, cpu).variant(), variant);
    }
}

#[test]
fn per_element_lengths_past_64_positions_gather_on_every_adapter() {
    // Past the positions `columns` holds, whatever the element and the adapter.
    for (data_type, sizes) in [
        (DataType::Uint8, [65, 160]),
        (DataType::Float32, [100, 1000]),
        (DataType::Float32, [480, 100]),
        (DataType::Float32, [960, 4]),
        (DataType::Float64, [200, 64]),
    ] {
        for cpu in [true, false] {
            let p = gather(work(data_type, &sizes, 0, cpu));
            assert_eq!(
                p.blocks,
                sizes[0].div_ceil(p.steps),
                "{data_type:?} {sizes:?}"
            );
        }
    }
}

#[test]
fn runs_interleave_their_vectors_on_a_cpu_when_a_run_fills_the_group() {
    // ONNX [batch, time, 4 * vecs] f32 with [batch] lengths broadcast.
    let runs = |vecs: u32, cpu: bool| {
        let sizes = [3, 5, 4 * vecs];
        let desc = ReverseSubsequences::new(
            TensorDesc::new(DataType::Float32, &sizes),
            TensorDesc::new(DataType::Int64, &[3, 1, 4 * vecs]).with_strides(&[1, 0, 0]),
            TensorDesc::new(DataType::Float32, &sizes),
            1,
        );
        desc.validate().unwrap();
        let layout = Layout::canonical(&desc);
        let output_bytes = desc.output.min_size_in_bytes();
        match Work::new(&layout, 4, output_bytes, Mode::OutOfPlace, device(cpu)) {
            Work::Runs(p) => (p, layout),
            other => panic!("{other:?}"),
        }
    };
    // 300 vectors a run: groups of 8 invocations, 16 vectors each, cover 128;
    // three groups a run, the last partly idle.
    let (cpu, layout) = runs(300, true);
    assert_eq!((cpu.steps, cpu.interleave, cpu.per_row), (16, 8, 24));
    assert_eq!(cpu.invocations, 15 * 24);
    // In place each step swaps two vectors: half the steps on a CPU, so 8 each
    // and five groups a run; a GPU's steps stay.
    let swap = cpu.in_place(&layout, 4, 0, Tuning::Cpu).unwrap();
    assert_eq!((swap.steps, swap.interleave, swap.per_row), (8, 8, 40));
    let (gpu, layout) = runs(300, false);
    let gpu_swap = gpu.in_place(&layout, 4, 0, Tuning::Gpu).unwrap();
    assert_eq!((gpu_swap.steps, gpu_swap.per_row), (4, 96));
    // 100 vectors: a group of 16 each would idle; 8 each cover 64.
    let (mid, _) = runs(100, true);
    assert_eq!((mid.steps, mid.interleave, mid.per_row), (8, 8, 16));
    // A run shorter than a group's 64 vectors keeps each invocation's consecutive.
    let (short, _) = runs(40, true);
    assert_eq!((short.steps, short.interleave, short.per_row), (8, 1, 5));
    let (tiny, _) = runs(3, true);
    assert_eq!((tiny.steps, tiny.interleave, tiny.per_row), (4, 1, 1));
    // A GPU's warps of 32 interleave 4 vectors each where a run fills them, 2
    // where it fills half as many; shorter runs take one vector an invocation.
    let (gpu, _) = runs(300, false);
    assert_eq!((gpu.steps, gpu.interleave, gpu.per_row), (4, 32, 96));
    let (half, _) = runs(100, false);
    assert_eq!((half.steps, half.interleave, half.per_row), (2, 32, 64));
    let (short, _) = runs(40, false);
    assert_eq!((short.steps, short.interleave, short.per_row), (1, 1, 40));
    // 64-bit words for runs on a CPU whose device has them, not on a GPU.
    assert_eq!((cpu.access_bits, gpu.access_bits), (64, 32));
}

#[test]
fn a_cpu_moves_64_bit_words_where_they_pay() {
    // Rows on 16-byte vectors of every width, not on words.
    for data_type in [DataType::Uint8, DataType::Float32, DataType::Float64] {
        let p = rows(work(data_type, &[100, 64], 1, true));
        assert_eq!((p.vector.bytes, p.access_bits), (16, 64));
    }
    let words = rows(work(DataType::Float32, &[100, 3], 1, true));
    assert_eq!((words.vector.bytes, words.access_bits), (4, 32));
    // Gathers of 8- and 16-byte elements, not of narrower ones.
    for (data_type, bits) in [
        (DataType::Float32, 32),
        (DataType::Float64, 64),
        (DataType::Complex128, 64),
    ] {
        let g = gather(work(data_type, &[100, 64], 0, true));
        assert_eq!((g.vector.bytes, g.access_bits), (16, bits));
    }
    // Not without SHADER_INT64.
    let plain = Profile {
        int64: false,
        ..CPU
    };
    let tensor = TensorDesc::new(DataType::Float32, &[100, 64]);
    let desc = ReverseSubsequences::new(
        tensor.clone(),
        TensorDesc::new(DataType::Uint32, &[100, 1]),
        tensor,
        1,
    );
    let p = Work::new(
        &Layout::canonical(&desc),
        4,
        100 * 64 * 4,
        Mode::OutOfPlace,
        &plain,
    );
    assert_eq!(p.fields().access_bits, 32);
}

#[test]
fn the_general_kernels_multiply_in_64_bits_on_a_gpu_that_has_them() {
    // Odd rows of bytes: the general kernel.
    let general = |profile: &Profile| {
        let tensor = TensorDesc::new(DataType::Uint8, &[10, 63]);
        let desc = ReverseSubsequences::new(
            tensor.clone(),
            TensorDesc::new(DataType::Uint32, &[10, 1]),
            tensor,
            1,
        );
        let p = Work::new(
            &Layout::canonical(&desc),
            1,
            10 * 63,
            Mode::OutOfPlace,
            profile,
        );
        assert_eq!(p.variant(), Variant::General);
        p.fields().wide_multiply
    };
    assert!(general(&GPU));
    assert!(!general(&CPU));
    assert!(!general(&Profile {
        int64: false,
        ..GPU
    }));
}

#[test]
fn where_64_bit_words_move_slower_only_the_kernels_that_compute_keep_them() {
    let host = Profile {
        moves_64: false,
        ..CPU
    };
    // Lengths per element of the other dimensions, or per lane of the outermost
    // where `runs`.
    let bits = |data_type: DataType, sizes: &[u32], axis: u32, in_place: bool| {
        let tensor = TensorDesc::new(data_type, sizes);
        let mut length_sizes = sizes.to_vec();
        length_sizes[axis as usize] = 1;
        let mut lengths = TensorDesc::new(DataType::Uint32, &length_sizes);
        if sizes.len() == 3 {
            lengths = lengths.with_strides(&[1, 0, 0]);
        }
        let desc = ReverseSubsequences::new(tensor.clone(), lengths, tensor, axis);
        let (layout, bytes) = (Layout::canonical(&desc), data_type.size_in_bytes());
        let mode = match in_place {
            true => Mode::InPlace,
            false => Mode::OutOfPlace,
        };
        let p = Work::new(&layout, bytes, desc.output.min_size_in_bytes(), mode, &host);
        (p.variant(), p.fields().access_bits)
    };
    // Kernels that only move words: runs, and rows and gathers of 8- and
    // 16-byte elements, out of place and in.
    for in_place in [false, true] {
        let runs = bits(DataType::Uint8, &[4, 64, 256], 1, in_place);
        assert_eq!(runs, (Variant::Runs, 32));
        let gathers = bits(DataType::Complex128, &[100, 64], 0, in_place);
        assert_eq!(gathers, (Variant::Gather, 32));
    }
    let wide_rows = bits(DataType::Float64, &[100, 64], 1, false);
    assert_eq!(wide_rows, (Variant::Rows, 32));
    // Kernels that shift and mask words: rows of narrower elements, every row in
    // place, and columns.
    assert_eq!(
        bits(DataType::Float32, &[100, 64], 1, false),
        (Variant::Rows, 64)
    );
    assert_eq!(
        bits(DataType::Float64, &[100, 64], 1, true),
        (Variant::Rows, 64)
    );
    for in_place in [false, true] {
        let columns = bits(DataType::Uint8, &[64, 256], 0, in_place);
        assert_eq!(columns, (Variant::Columns, 64));
    }
}
