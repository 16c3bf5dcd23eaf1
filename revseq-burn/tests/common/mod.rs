//! The semantics both paths must meet, on any burn device: revseq-burn's
//! output against revseq's host reference and DirectML's definition, every
//! dtype the device stores, ranks 2 to 8, both ONNX axis orders, broadcast,
//! clamped and unsigned lengths, random shapes, bools, the gradient, errors and
//! threads. `tests/burn.rs` runs them on revseq's kernels, `tests/portable.rs`
//! on burn's CPU backend.

#![allow(dead_code)]

/// A `#[test]` for each semantics check below, on the device `$device` gives.
macro_rules! semantics_tests {
    ($device:expr) => {
        semantics_tests!($device;
            onnx_float_dtypes_ranks_two_to_five_both_axis_orders,
            onnx_int_dtypes_ranks_two_to_five_both_axis_orders,
            bools_both_forms,
            unsigned_lengths_clamp_to_the_axis,
            random_shapes_against_the_definition,
            directml_lengths_per_lane_broadcast_and_clamped,
            rank_eight_the_most_cubecl_tensors_have,
            empty_tensors_come_back_empty,
            views_and_neighbouring_tensors_read_the_right_bytes,
            ordered_among_burn_operations,
            gradient_is_the_reversed_upstream_gradient,
            gradient_matches_finite_differences_through_other_operations,
            bad_arguments_get_errors_naming_the_rule,
            threads_share_tensors_across_burn_streams,
        );
    };
    ($device:expr; $($name:ident,)*) => {
        $(#[test]
        fn $name() {
            common::$name($device);
        })*
    };
}

use std::io::Write;

use burn::tensor::{
    bf16, f16, Bool, DType, Device, Element, Float, Int, Tensor, TensorCreationOptions, TensorData,
};
use revseq::{reference, DataType, ReverseSubsequences, TensorDesc};
use revseq_burn::{reverse_sequence, reverse_subsequences, Error};

const FLOATS: [DType; 4] = [DType::F32, DType::F16, DType::BF16, DType::F64];
const INTS: [DType; 8] = [
    DType::I32,
    DType::I64,
    DType::I16,
    DType::I8,
    DType::U32,
    DType::U64,
    DType::U16,
    DType::U8,
];

/// The dtypes of `list` this device stores; the ones it does not are named on stderr.
fn supported(device: &Device, list: &[DType]) -> Vec<DType> {
    let (yes, no): (Vec<DType>, Vec<DType>) = list.iter().partition(|&&d| device.supports_dtype(d));
    if !no.is_empty() {
        let _ = writeln!(std::io::stderr(), "not stored by this device: {no:?}");
    }
    yes
}

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Distinct, finite values of `dtype`, `count` of them, as burn data.
fn values(dtype: DType, shape: &[usize], rng: &mut Rng) -> TensorData {
    let count: usize = shape.iter().product();
    let start = rng.below(1000) as i64;
    let ints = (0..count as i64).map(|i| start + i);
    fn data<E: Element>(v: Vec<E>, shape: &[usize]) -> TensorData {
        TensorData::new(v, shape.to_vec())
    }
    match dtype {
        DType::F32 => data(ints.map(|i| i as f32 * 0.5).collect(), shape),
        DType::F64 => data(ints.map(|i| i as f64 * 0.25).collect(), shape),
        DType::F16 => data(
            ints.map(|i| f16::from_f32((i % 2048) as f32)).collect(),
            shape,
        ),
        DType::BF16 => data(
            ints.map(|i| bf16::from_f32((i % 256) as f32)).collect(),
            shape,
        ),
        DType::I64 => data(ints.map(|i| -i * 3).collect(), shape),
        DType::I32 => data(ints.map(|i| -(i as i32)).collect(), shape),
        DType::I16 => data(ints.map(|i| (i % 30000) as i16).collect(), shape),
        DType::I8 => data(ints.map(|i| (i % 250 - 125) as i8).collect(), shape),
        DType::U64 => data(ints.map(|i| i as u64 * 7).collect(), shape),
        DType::U32 => data(ints.map(|i| i as u32).collect(), shape),
        DType::U16 => data(ints.map(|i| i as u16).collect(), shape),
        DType::U8 => data(ints.map(|i| i as u8).collect(), shape),
        other => panic!("no test values for {other:?}"),
    }
}

/// Lengths of `dtype` from `lengths`.
fn lengths_data(dtype: DType, lengths: &[i64], shape: &[usize]) -> TensorData {
    match dtype {
        DType::I64 => TensorData::new(lengths.to_vec(), shape.to_vec()),
        DType::I32 => TensorData::new(
            lengths.iter().map(|&l| l as i32).collect::<Vec<_>>(),
            shape.to_vec(),
        ),
        other => panic!("no test lengths for {other:?}"),
    }
}

fn options(device: &Device, dtype: DType) -> TensorCreationOptions {
    TensorCreationOptions::new(device.clone()).with_dtype(dtype)
}

/// ONNX `ReverseSequence` on the host, from revseq's reference, on elements of
/// the dtype's width (the operator only moves bits).
fn onnx_reference(
    data: &TensorData,
    shape: &[usize],
    lens: &[i64],
    batch_axis: usize,
    time_axis: usize,
) -> Vec<u8> {
    fn run<T: revseq::Element + bytemuck::Pod>(
        bytes: &[u8],
        shape: &[usize],
        lens: &[i64],
        batch_axis: usize,
        time_axis: usize,
    ) -> Vec<u8> {
        let input: Vec<T> = bytemuck::pod_collect_to_vec(bytes);
        let out = reference::reverse_sequence(&input, shape, lens, batch_axis, time_axis)
            .expect("valid reference arguments");
        bytemuck::cast_slice(&out).to_vec()
    }
    let bytes = data.as_bytes();
    match data.dtype().size() {
        1 => run::<u8>(bytes, shape, lens, batch_axis, time_axis),
        2 => run::<u16>(bytes, shape, lens, batch_axis, time_axis),
        4 => run::<u32>(bytes, shape, lens, batch_axis, time_axis),
        8 => run::<u64>(bytes, shape, lens, batch_axis, time_axis),
        n => panic!("{n}-byte elements"),
    }
}

/// Runs ONNX `ReverseSequence` through revseq-burn on a tensor of `K`, and
/// returns what came back and what the reference says.
fn onnx_case<const D: usize, K: revseq_burn::Reversible>(
    device: &Device,
    dtype: DType,
    lens_dtype: DType,
    shape: [usize; D],
    batch_axis: usize,
    time_axis: usize,
    rng: &mut Rng,
) -> (TensorData, Vec<u8>) {
    let data = values(dtype, &shape, rng);
    let time = shape[time_axis] as u64;
    let lens: Vec<i64> = (0..shape[batch_axis])
        .map(|_| rng.below(time + 1) as i64)
        .collect();
    let expected = onnx_reference(&data, &shape, &lens, batch_axis, time_axis);
    let x = Tensor::<D, K>::from_data(data, options(device, dtype));
    let sequence_lens = Tensor::<1, Int>::from_data(
        lengths_data(lens_dtype, &lens, &[lens.len()]),
        options(device, lens_dtype),
    );
    let y = reverse_sequence(x, sequence_lens, batch_axis, time_axis).expect("valid arguments");
    assert_eq!(y.dims(), shape);
    let out = y.into_data();
    assert_eq!(out.dtype(), dtype);
    (out, expected)
}

fn onnx_all_orders<const D: usize, K: revseq_burn::Reversible>(
    device: &Device,
    dtype: DType,
    shape: [usize; D],
    rng: &mut Rng,
) {
    for (batch_axis, time_axis) in [(0, 1), (1, 0)] {
        for lens_dtype in [DType::I64, DType::I32] {
            let (out, expected) =
                onnx_case::<D, K>(device, dtype, lens_dtype, shape, batch_axis, time_axis, rng);
            assert_eq!(
                out.as_bytes(),
                &expected[..],
                "{dtype:?} {shape:?} batch_axis {batch_axis} time_axis {time_axis}, \
                 lengths {lens_dtype:?}"
            );
        }
    }
}

fn onnx_ranks_two_to_five<K: revseq_burn::Reversible>(
    device: &Device,
    dtypes: &[DType],
    seed: u64,
) {
    let mut rng = Rng(seed);
    for &dtype in dtypes {
        onnx_all_orders::<2, K>(device, dtype, [5, 9], &mut rng);
        onnx_all_orders::<3, K>(device, dtype, [4, 7, 3], &mut rng);
        onnx_all_orders::<4, K>(device, dtype, [3, 6, 2, 5], &mut rng);
        onnx_all_orders::<5, K>(device, dtype, [2, 5, 3, 2, 3], &mut rng);
        // Lanes past one workgroup, and an odd count of narrow elements.
        onnx_all_orders::<3, K>(device, dtype, [3, 300, 37], &mut rng);
    }
}

pub fn onnx_float_dtypes_ranks_two_to_five_both_axis_orders(device: &Device) {
    let floats = supported(device, &FLOATS);
    assert!(floats.contains(&DType::F32), "every burn device stores f32");
    onnx_ranks_two_to_five::<Float>(device, &floats, 1);
}

pub fn onnx_int_dtypes_ranks_two_to_five_both_axis_orders(device: &Device) {
    let ints = supported(device, &INTS);
    assert!(ints.contains(&DType::I32), "every burn device stores i32");
    onnx_ranks_two_to_five::<Int>(device, &ints, 2);
}

/// DirectML's form with lengths broadcast over the dimensions where `broadcast`
/// is true, against revseq's byte reference on the same full-rank descriptor.
fn directml_case<const D: usize>(
    device: &Device,
    dtype: DType,
    shape: [usize; D],
    axis: usize,
    broadcast: [bool; D],
    rng: &mut Rng,
) {
    let mut length_shape = shape;
    length_shape[axis] = 1;
    for dim in 0..D {
        if broadcast[dim] {
            length_shape[dim] = 1;
        }
    }
    let count: usize = length_shape.iter().product();
    let size = shape[axis] as i64;
    // Signed lengths past both ends: DirectML clamps them to [0, size].
    let lens: Vec<i64> = (0..count)
        .map(|_| rng.below(size as u64 + 5) as i64 - 2)
        .collect();
    let data = values(dtype, &shape, rng);

    let expected = definition(
        data.as_bytes(),
        dtype.size(),
        &shape,
        &lens,
        &length_shape,
        axis,
    );
    if D <= revseq::MAX_RANK {
        // revseq's reference on the same full-rank descriptor agrees.
        let sizes: Vec<u32> = shape.iter().map(|&s| s as u32).collect();
        let mut length_sizes = sizes.clone();
        length_sizes[axis] = 1;
        let mut strides = vec![0u32; D];
        let mut stride = 1;
        for dim in (0..D).rev() {
            if length_shape[dim] > 1 {
                strides[dim] = stride;
            }
            stride *= length_shape[dim] as u32;
        }
        let dt = match dtype.size() {
            1 => DataType::Uint8,
            2 => DataType::Uint16,
            4 => DataType::Uint32,
            _ => DataType::Uint64,
        };
        let desc = ReverseSubsequences::new(
            TensorDesc::new(dt, &sizes),
            TensorDesc::new(DataType::Int64, &length_sizes).with_strides(&strides),
            TensorDesc::new(dt, &sizes),
            axis as u32,
        );
        let mut reference = vec![0u8; data.as_bytes().len()];
        reference::reverse_subsequences_bytes(
            &desc,
            data.as_bytes(),
            bytemuck::cast_slice(&lens),
            &mut reference,
        )
        .expect("valid reference descriptor");
        assert_eq!(
            reference, expected,
            "the definition against revseq's reference"
        );
    }

    let x = Tensor::<D>::from_data(data, options(device, dtype));
    let lengths = Tensor::<D, Int>::from_data(
        TensorData::new(lens.clone(), length_shape.to_vec()),
        options(device, DType::I64),
    );
    let y = reverse_subsequences(x, lengths, axis).expect("valid arguments");
    assert_eq!(
        y.into_data().as_bytes(),
        &expected[..],
        "{dtype:?} {shape:?} axis {axis} broadcast {broadcast:?}"
    );
}

/// DirectML's definition, for any rank: element `t` of a lane with clamped length
/// `L` comes from `L - 1 - t` when `t < L`, from itself otherwise.
fn definition(
    bytes: &[u8],
    width: usize,
    shape: &[usize],
    lens: &[i64],
    length_shape: &[usize],
    axis: usize,
) -> Vec<u8> {
    let mut out = vec![0u8; bytes.len()];
    let count: usize = shape.iter().product();
    for flat in 0..count {
        let mut index = vec![0usize; shape.len()];
        let mut rest = flat;
        for dim in (0..shape.len()).rev() {
            index[dim] = rest % shape[dim];
            rest /= shape[dim];
        }
        let length_at = index
            .iter()
            .zip(length_shape)
            .fold(0, |acc, (&i, &s)| acc * s + if s == 1 { 0 } else { i });
        let length = lens[length_at].clamp(0, shape[axis] as i64) as usize;
        let mut source = index.clone();
        if index[axis] < length {
            source[axis] = length - 1 - index[axis];
        }
        let from = source
            .iter()
            .zip(shape)
            .fold(0, |acc, (&i, &s)| acc * s + i);
        out[flat * width..(flat + 1) * width]
            .copy_from_slice(&bytes[from * width..(from + 1) * width]);
    }
    out
}

pub fn directml_lengths_per_lane_broadcast_and_clamped(device: &Device) {
    let mut rng = Rng(3);
    for dtype in [DType::F32, DType::F16]
        .into_iter()
        .filter(|&d| device.supports_dtype(d))
    {
        directml_case(device, dtype, [6, 11], 1, [false, false], &mut rng);
        directml_case(device, dtype, [6, 11], 0, [false, false], &mut rng);
        directml_case(
            device,
            dtype,
            [3, 5, 4, 7],
            2,
            [false, false, false, false],
            &mut rng,
        );
        directml_case(
            device,
            dtype,
            [3, 5, 4, 7],
            1,
            [false, false, true, false],
            &mut rng,
        );
        directml_case(
            device,
            dtype,
            [3, 5, 4, 7],
            3,
            [true, false, false, false],
            &mut rng,
        );
        directml_case(
            device,
            dtype,
            [2, 3, 4, 5, 6],
            0,
            [false, true, false, true, false],
            &mut rng,
        );
        directml_case(
            device,
            dtype,
            [64, 2, 33],
            0,
            [false, false, false],
            &mut rng,
        );
    }
}

pub fn rank_eight_the_most_cubecl_tensors_have(device: &Device) {
    let mut rng = Rng(4);
    directml_case(
        device,
        DType::F32,
        [2, 3, 2, 2, 3, 2, 2, 3],
        4,
        [false, true, true, false, false, true, false, true],
        &mut rng,
    );
    directml_case(
        device,
        DType::F32,
        [2, 3, 2, 2, 3, 2, 2, 3],
        7,
        [false; 8],
        &mut rng,
    );
}

pub fn empty_tensors_come_back_empty(device: &Device) {
    let x = Tensor::<3>::zeros([0, 4, 3], device);
    let lens = Tensor::<1, Int>::zeros([0], device);
    let y = reverse_sequence(x, lens, 0, 1).unwrap();
    assert_eq!(y.dims(), [0, 4, 3]);
    assert_eq!(y.into_data().num_elements(), 0);

    let x = Tensor::<2>::zeros([3, 0], device);
    let lens = Tensor::<2, Int>::zeros([3, 1], device);
    assert_eq!(reverse_subsequences(x, lens, 1).unwrap().dims(), [3, 0]);
}

pub fn views_and_neighbouring_tensors_read_the_right_bytes(device: &Device) {
    // A slice of a bigger tensor, a transposed view, and many small tensors packed
    // into shared buffers: each is copied, made contiguous or bound in place.
    let mut rng = Rng(5);
    let base_data = values(DType::F32, &[8, 6, 5], &mut rng);
    let base = Tensor::<3>::from_data(base_data, options(device, DType::F32));
    for (x, lens_host) in [
        (base.clone().slice([2..6, 0..6, 0..5]), vec![6i64, 0, 3, 1]),
        (base.clone().swap_dims(1, 2), vec![5, 0, 3, 1, 2, 4, 5, 5]),
    ] {
        let shape = x.dims();
        let host = x.to_data();
        let lens =
            Tensor::<1, Int>::from_data(TensorData::new(lens_host.clone(), [shape[0]]), device);
        let y = reverse_sequence(x, lens, 0, 1).unwrap();
        let expected = onnx_reference(&host, &shape, &lens_host, 0, 1);
        assert_eq!(y.into_data().as_bytes(), &expected[..], "{shape:?}");
    }
    for n in 1..40usize {
        let data = values(DType::F32, &[2, n], &mut rng);
        let x = Tensor::<2>::from_data(data.clone(), options(device, DType::F32));
        let lens_host = [n as i64, (n / 2) as i64];
        let lens = Tensor::<1, Int>::from_data(TensorData::new(lens_host.to_vec(), [2]), device);
        let y = reverse_sequence(x, lens, 0, 1).unwrap();
        let expected = onnx_reference(&data, &[2, n], &lens_host, 0, 1);
        assert_eq!(y.into_data().as_bytes(), &expected[..], "[2, {n}]");
    }
}

pub fn ordered_among_burn_operations(device: &Device) {
    // Lazy (under fusion, fused) work before and after the reversal, many times
    // over, never read back in between: each reversal reads what burn wrote just
    // before it, and burn reads what it wrote.
    let mut rng = Rng(6);
    let shape = [4usize, 33, 7];
    let data = values(DType::F32, &shape, &mut rng);
    let host: Vec<f32> = data.try_to_vec().unwrap();
    let lens_host = [33i64, 0, 17, 2];
    let lens = Tensor::<1, Int>::from_data(TensorData::new(lens_host.to_vec(), [4]), device);
    let mut x = Tensor::<3>::from_data(data, options(device, DType::F32));
    let mut expected = host.clone();
    for step in 0..12 {
        let scale = 1.0 + step as f32;
        x = reverse_sequence(x * scale + 1.0, lens.clone(), 0, 1).unwrap() - 1.0;
        let scaled: Vec<f32> = expected.iter().map(|v| v * scale + 1.0).collect();
        let reversed = reference::reverse_sequence(&scaled, &shape, &lens_host, 0, 1).unwrap();
        expected = reversed.iter().map(|v| v - 1.0).collect();
    }
    let out: Vec<f32> = x.into_data().try_to_vec().unwrap();
    assert_eq!(out, expected);
}

pub fn gradient_is_the_reversed_upstream_gradient(device: &Device) {
    let device = device.clone().autodiff();
    let mut rng = Rng(7);
    let shape = [3usize, 10, 4];
    let lens_host = [10i64, 4, 0];
    let x_data = values(DType::F32, &shape, &mut rng);
    let w_data = values(DType::F32, &shape, &mut rng);
    let x = Tensor::<3>::from_data(x_data, &device).require_grad();
    let w = Tensor::<3>::from_data(w_data.clone(), &device);
    let lens = Tensor::<1, Int>::from_data(TensorData::new(lens_host.to_vec(), [3]), &device);

    // loss = sum(w * reverse(x)): d loss / dx = reverse(w).
    let y = reverse_sequence(x.clone(), lens.clone(), 0, 1).unwrap();
    let grads = (y * w).sum().backward();
    let grad = x.grad(&grads).expect("x requires a gradient");
    let expected = onnx_reference(&w_data, &shape, &lens_host, 0, 1);
    assert_eq!(grad.into_data().as_bytes(), &expected[..]);
}

pub fn gradient_matches_finite_differences_through_other_operations(device: &Device) {
    // loss = sum(reverse(x * a)² * w), time-major, by central differences in f64
    // where the device has it (f32 otherwise, with a looser tolerance). No
    // transcendental functions: Vulkan has none for f64.
    let device = device.clone().autodiff();
    let dtype = if device.supports_dtype(DType::F64) {
        DType::F64
    } else {
        DType::F32
    };
    let tolerance = if dtype == DType::F64 { 1e-6 } else { 2e-2 };
    let shape = [6usize, 2, 3];
    let lens_host = [4i64, 6];
    let mut rng = Rng(8);
    let x0: Vec<f64> = (0..36)
        .map(|_| rng.below(1000) as f64 / 500.0 - 1.0)
        .collect();
    let w: Vec<f64> = (0..36)
        .map(|_| rng.below(1000) as f64 / 500.0 - 1.0)
        .collect();
    let opts = |d: &Device| TensorCreationOptions::new(d.clone()).with_dtype(dtype);
    let loss = |x: Tensor<3>, d: &Device| {
        let w = Tensor::<3>::from_data(TensorData::new(w.clone(), shape), opts(d));
        let lens = Tensor::<1, Int>::from_data(TensorData::new(lens_host.to_vec(), [2]), d);
        let y = reverse_sequence(x * 1.5, lens, 1, 0).unwrap();
        (y.clone() * y * w).sum()
    };
    let x =
        Tensor::<3>::from_data(TensorData::new(x0.clone(), shape), opts(&device)).require_grad();
    let grads = loss(x.clone(), &device).backward();
    let grad: Vec<f64> = x
        .grad(&grads)
        .unwrap()
        .into_data()
        .convert::<f64>()
        .try_to_vec()
        .unwrap();

    let plain = device.clone().without_autodiff();
    let h = if dtype == DType::F64 { 1e-5 } else { 1e-2 };
    let at = |i: usize, delta: f64| {
        let mut xs = x0.clone();
        xs[i] += delta;
        let x = Tensor::<3>::from_data(TensorData::new(xs, shape), opts(&plain));
        loss(x, &plain)
            .into_data()
            .convert::<f64>()
            .try_to_vec::<f64>()
            .unwrap()[0]
    };
    for (i, &analytic) in grad.iter().enumerate() {
        let numeric = (at(i, h) - at(i, -h)) / (2.0 * h);
        assert!(
            (numeric - analytic).abs() <= tolerance * (1.0 + numeric.abs()),
            "element {i}: finite difference {numeric}, gradient {analytic}"
        );
    }
}

pub fn bad_arguments_get_errors_naming_the_rule(device: &Device) {
    let x = || Tensor::<3>::zeros([2, 5, 3], device);
    let lens = || Tensor::<1, Int>::from_ints([5, 2], device);

    let err = reverse_sequence(x(), lens(), 3, 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "batch_axis 3 must be less than the input's rank 3"
    );
    let err = reverse_sequence(x(), lens(), 1, 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "batch_axis and time_axis must differ, both are 1"
    );
    let err =
        reverse_sequence(x(), Tensor::<1, Int>::from_ints([5, 2, 1], device), 0, 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "sequence_lens: shape [3] must be [2]: one length per entry of batch_axis 0"
    );
    let err = reverse_subsequences(x(), Tensor::<3, Int>::zeros([2, 5, 1], device), 1).unwrap_err();
    assert!(
        matches!(
            err,
            Error::LengthsShape {
                tensor: "lengths",
                ..
            }
        ),
        "{err}"
    );
    let err = reverse_subsequences(x(), Tensor::<3, Int>::zeros([2, 1, 3], device), 7).unwrap_err();
    assert_eq!(
        err.to_string(),
        "axis 7 must be less than the input's rank 3"
    );

    // Lengths of a type the operator does not read, where the device has one.
    if let Some(&dtype) = [DType::I16, DType::U8, DType::I8]
        .iter()
        .find(|&&d| device.supports_dtype(d))
    {
        let lens = Tensor::<1, Int>::from_data(
            TensorData::new(vec![1i64, 2], [2]),
            options(device, dtype),
        );
        let err = reverse_sequence(x(), lens, 0, 1).unwrap_err();
        assert!(matches!(err, Error::LengthType { .. }), "{err}");
    }
}

pub fn threads_share_tensors_across_burn_streams(device: &Device) {
    // burn gives each thread a stream of its own; the lengths and the input are
    // written on this thread and reversed on others.
    let mut rng = Rng(9);
    let shape = [3usize, 40, 5];
    let data = values(DType::F32, &shape, &mut rng);
    let host: Vec<f32> = data.try_to_vec().unwrap();
    let lens_host = [40i64, 13, 1];
    let x = Tensor::<3>::from_data(data, options(device, DType::F32)) + 0.0;
    let lens = Tensor::<1, Int>::from_data(TensorData::new(lens_host.to_vec(), [3]), device);
    let workers: Vec<_> = (0..4)
        .map(|t| {
            let (x, lens) = (x.clone(), lens.clone());
            std::thread::spawn(move || {
                let y = reverse_sequence(x * (t as f32 + 1.0), lens, 0, 1).unwrap();
                y.into_data().try_to_vec::<f32>().unwrap()
            })
        })
        .collect();
    for (t, worker) in workers.into_iter().enumerate() {
        let scaled: Vec<f32> = host.iter().map(|v| v * (t as f32 + 1.0)).collect();
        let expected = reference::reverse_sequence(&scaled, &shape, &lens_host, 0, 1).unwrap();
        assert_eq!(worker.join().unwrap(), expected, "thread {t}");
    }
}

/// Bool tensors, both forms: against the reference on the same pattern as bytes.
pub fn bools_both_forms(device: &Device) {
    let mut rng = Rng(10);
    let shape = [3usize, 9, 4];
    let pattern: Vec<u8> = (0..108).map(|_| rng.below(2) as u8).collect();
    let lens_host = [9i64, 0, 5];
    let x = || {
        let bools: Vec<bool> = pattern.iter().map(|&b| b == 1).collect();
        Tensor::<3, Bool>::from_data(TensorData::new(bools, shape), device)
    };
    let read = |y: Tensor<3, Bool>| -> Vec<u8> {
        let values: Vec<bool> = y.into_data().convert::<bool>().try_into_vec().unwrap();
        values.into_iter().map(u8::from).collect()
    };
    let lens = Tensor::<1, Int>::from_data(TensorData::new(lens_host.to_vec(), [3]), device);
    let expected = reference::reverse_sequence(&pattern, &shape, &lens_host, 0, 1).unwrap();
    assert_eq!(read(reverse_sequence(x(), lens, 0, 1).unwrap()), expected);

    let lens = Tensor::<3, Int>::from_data(TensorData::new(lens_host.to_vec(), [3, 1, 1]), device);
    assert_eq!(read(reverse_subsequences(x(), lens, 1).unwrap()), expected);
}

/// Unsigned lengths of every width the device stores, past the axis and past
/// the signed range: each clamps to the axis.
pub fn unsigned_lengths_clamp_to_the_axis(device: &Device) {
    let shape = [4usize, 6];
    let data: Vec<f32> = (0..24).map(|i| i as f32).collect();
    let lens_host = [u64::MAX, 3, 0, 7];
    let clamped = [6i64, 3, 0, 6];
    let expected = reference::reverse_sequence(&data, &shape, &clamped, 0, 1).unwrap();
    for dtype in supported(device, &[DType::U64, DType::U32]) {
        let lens = match dtype {
            DType::U64 => TensorData::new(lens_host.to_vec(), [4]),
            _ => TensorData::new(
                lens_host.map(|l| l.min(u32::MAX.into()) as u32).to_vec(),
                [4],
            ),
        };
        let x = Tensor::<2>::from_data(TensorData::new(data.clone(), shape), device);
        let lens = Tensor::<1, Int>::from_data(lens, options(device, dtype));
        let y = reverse_sequence(x, lens, 0, 1).unwrap();
        let out: Vec<f32> = y.into_data().try_into_vec().unwrap();
        assert_eq!(out, expected, "lengths {dtype:?}");
    }
}

/// Random ranks 2 to 5, sizes, axes and broadcast patterns, in DirectML's form.
pub fn random_shapes_against_the_definition(device: &Device) {
    let mut rng = Rng(11);
    for _ in 0..24 {
        let rank = 2 + rng.below(4) as usize;
        let mut shape = [1usize; 5];
        let mut broadcast = [false; 5];
        for dim in 0..rank {
            shape[dim] = 1 + rng.below(7) as usize;
            broadcast[dim] = rng.below(3) == 0;
        }
        let axis = rng.below(rank as u64) as usize;
        let dtype = DType::F32;
        match rank {
            2 => directml_case(
                device,
                dtype,
                [shape[0], shape[1]],
                axis,
                [broadcast[0], broadcast[1]],
                &mut rng,
            ),
            3 => directml_case(
                device,
                dtype,
                [shape[0], shape[1], shape[2]],
                axis,
                [broadcast[0], broadcast[1], broadcast[2]],
                &mut rng,
            ),
            4 => directml_case(
                device,
                dtype,
                [shape[0], shape[1], shape[2], shape[3]],
                axis,
                [broadcast[0], broadcast[1], broadcast[2], broadcast[3]],
                &mut rng,
            ),
            _ => directml_case(device, dtype, shape, axis, broadcast, &mut rng),
        }
    }
}

/// The outputs of a fixed set of cases on `device`, as bytes, named: floats and
/// ints in both forms, broadcast, negative and too-long lengths, bools. On the
/// device's own path, or where `portable`, on the portable path.
pub fn outputs(device: &Device, portable: bool) -> Vec<(String, Vec<u8>)> {
    type Sequence = fn(Tensor<3>, Tensor<1, Int>, usize, usize) -> Result<Tensor<3>, Error>;
    type Subsequences<K> = fn(Tensor<3, K>, Tensor<3, Int>, usize) -> Result<Tensor<3, K>, Error>;
    let (reverse_sequence, reverse_subsequences, reverse_bools): (
        Sequence,
        Subsequences<Int>,
        Subsequences<Bool>,
    ) = match portable {
        true => (
            revseq_burn::lab::reverse_sequence,
            revseq_burn::lab::reverse_subsequences,
            revseq_burn::lab::reverse_subsequences,
        ),
        false => (reverse_sequence, reverse_subsequences, reverse_subsequences),
    };
    let mut rng = Rng(12);
    let mut out = Vec::new();
    for (shape, batch_axis, time_axis) in [([5usize, 9, 3], 0, 1), ([9, 5, 3], 1, 0)] {
        let data = values(DType::F32, &shape, &mut rng);
        let lens: Vec<i64> = (0..5).map(|_| rng.below(10) as i64).collect();
        let x = Tensor::<3>::from_data(data.clone(), device);
        let lens = Tensor::<1, Int>::from_data(TensorData::new(lens, [5]), device);
        let y = reverse_sequence(x, lens, batch_axis, time_axis).unwrap();
        out.push((
            format!("f32 {shape:?} onnx"),
            y.into_data().as_bytes().to_vec(),
        ));
    }
    let shape = [4usize, 7, 6];
    let data = values(DType::I32, &shape, &mut rng);
    let lens: Vec<i64> = (0..24).map(|_| rng.below(12) as i64 - 3).collect();
    let x = Tensor::<3, Int>::from_data(data, options(device, DType::I32));
    let lens = Tensor::<3, Int>::from_data(TensorData::new(lens, [4, 1, 6]), device);
    let y = reverse_subsequences(x, lens, 1).unwrap();
    out.push((
        format!("i32 {shape:?} per lane"),
        y.into_data().as_bytes().to_vec(),
    ));
    let bools: Vec<bool> = (0..84).map(|_| rng.below(2) == 1).collect();
    let x = Tensor::<3, Bool>::from_data(TensorData::new(bools, [4, 7, 3]), device);
    let lens = Tensor::<3, Int>::from_data(TensorData::new(vec![5i64, 0, 7], [1, 1, 3]), device);
    let y = reverse_bools(x, lens, 1).unwrap();
    let y: Vec<bool> = y.into_data().convert::<bool>().try_into_vec().unwrap();
    out.push((
        "bool broadcast".into(),
        y.into_iter().map(u8::from).collect(),
    ));
    out
}
