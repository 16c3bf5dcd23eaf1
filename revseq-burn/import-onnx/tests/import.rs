//! The imported models against ONNX Runtime's outputs and the ONNX backend
//! tests' expected outputs, on burn's default wgpu device (lavapipe in CI,
//! revseq's kernels; `Model::default()` too) and on burn's CPU backend
//! (revseq-burn's portable path).

use std::io::Write;
use std::sync::OnceLock;

use burn::tensor::{bf16, Bool, DType, Device, Int, Tensor, TensorData};
use revseq_burn_import_onnx::{
    data, keras_bilstm, kinds, kinds_external, shape_lengths, tagger, test_reversesequence_batch,
    test_reversesequence_bfloat16, test_reversesequence_time, values,
};

/// burn's default wgpu device, as a burn program makes it. Without an adapter
/// the tests fail, saying how to get one; the adapter's name goes to stderr.
fn device() -> &'static Device {
    static DEVICE: OnceLock<Device> = OnceLock::new();
    DEVICE.get_or_init(|| {
        let device = Device::default();
        let adapter = revseq_burn::lab::adapter(&device).unwrap_or_else(|| {
            panic!(
                "these tests need a wgpu adapter that runs WGSL and found {device:?}\n\
                 On Debian or Ubuntu: apt-get update && apt-get install -y mesa-vulkan-drivers"
            )
        });
        let _ = writeln!(
            std::io::stderr(),
            "imported models run on adapter {adapter:?}"
        );
        device
    })
}

fn f32s(file: &str) -> Vec<f32> {
    values(file, f32::from_le_bytes)
}

fn i64s(file: &str) -> Vec<i64> {
    values(file, i64::from_le_bytes)
}

fn floats<const D: usize>(device: &Device, values: Vec<f32>, shape: [usize; D]) -> Tensor<D> {
    Tensor::from_data(TensorData::new(values, shape), device)
}

fn ints<const D: usize, T: burn::tensor::Element>(
    device: &Device,
    values: Vec<T>,
    shape: [usize; D],
) -> Tensor<D, Int> {
    Tensor::from_data(TensorData::new(values, shape), device)
}

fn read_f32<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().convert::<f32>().try_into_vec().expect("f32")
}

fn read_i64<const D: usize>(t: Tensor<D, Int>) -> Vec<i64> {
    t.into_data().convert::<i64>().try_into_vec().expect("i64")
}

/// Asserts `actual` is within 1e-5 of ONNX Runtime's `expected`, value by value.
fn assert_close(model: &str, actual: &[f32], expected: &[f32]) {
    assert_eq!(actual.len(), expected.len(), "{model}");
    for (i, (a, b)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - b).abs() <= 1e-5,
            "{model}, value {i}: burn {a}, ONNX Runtime {b}"
        );
    }
}

/// Keras: Masking, Bidirectional(LSTM), Dense; the backward outputs reversed by a
/// ReverseSequence whose lengths the graph computes.
fn the_keras_bilstm_matches_onnx_runtime(device: &Device) {
    let model = keras_bilstm::Model::from_embedded(device);
    let x = floats(device, f32s("keras_bilstm.x.f32"), [4, 12, 8]);
    let tags = read_f32(model.forward(x));
    assert_close("keras_bilstm", &tags, &f32s("keras_bilstm.dense_1.f32"));
}

fn the_tf2onnx_tagger_matches_onnx_runtime(device: &Device) {
    let model = tagger::Model::from_embedded(device);
    let x = floats(device, f32s("tagger.x.f32"), [4, 12, 8]);
    let lengths = ints(
        device,
        values("tagger.lengths.i32", i32::from_le_bytes),
        [4],
    );
    let tags = read_f32(model.forward(x, lengths));
    assert_close("tagger", &tags, &f32s("tagger.Identity_0.f32"));
}

/// The models as a burn program loads them, on burn's default device
/// (`Model::default()`): revseq's kernels run their `ReverseSequence` nodes,
/// within 1e-5 of ONNX Runtime.
#[test]
fn models_on_burns_default_device_run_the_kernels() {
    let device = device();
    assert_eq!(revseq_burn::path(device), revseq_burn::KernelPath::Kernels);
    let before = revseq_burn::lab::kernel_runs()[0];
    let x = || floats(device, f32s("tagger.x.f32"), [4, 12, 8]);
    let lengths = ints(
        device,
        values("tagger.lengths.i32", i32::from_le_bytes),
        [4],
    );
    let tags = read_f32(tagger::Model::default().forward(x(), lengths));
    assert_close("tagger", &tags, &f32s("tagger.Identity_0.f32"));
    let tags = read_f32(keras_bilstm::Model::default().forward(x()));
    assert_close("keras_bilstm", &tags, &f32s("keras_bilstm.dense_1.f32"));
    assert!(
        revseq_burn::lab::kernel_runs()[0] >= before + 2,
        "revseq's kernels did not run the models' ReverseSequence nodes"
    );
}

/// An ONNX backend test: inputs `[4, 4]` and 4 lengths, the expected output exact.
fn backend_test(
    device: &Device,
    name: &str,
    forward: impl Fn(Tensor<2>, Tensor<1, Int>) -> Tensor<2>,
) {
    let x = floats(device, f32s(&format!("{name}.input_0.f32")), [4, 4]);
    let lengths = ints(device, i64s(&format!("{name}.input_1.i64")), [4]);
    let y = read_f32(forward(x, lengths));
    assert_eq!(y, f32s(&format!("{name}.output_0.f32")), "{name}");
}

/// The ONNX backend tests, BF16 where the device stores it (lavapipe does not).
fn onnx_backend_tests_are_exact(device: &Device) {
    let model = test_reversesequence_batch::Model::from_embedded(device);
    backend_test(device, "test_reversesequence_batch", |x, l| {
        model.forward(x, l)
    });
    let model = test_reversesequence_time::Model::from_embedded(device);
    backend_test(device, "test_reversesequence_time", |x, l| {
        model.forward(x, l)
    });

    let name = "test_reversesequence_bfloat16";
    if !device.supports_dtype(DType::BF16) {
        let _ = writeln!(
            std::io::stderr(),
            "{name}: not run, the device does not store BF16"
        );
        return;
    }
    let model = test_reversesequence_bfloat16::Model::from_embedded(device);
    let bits = |file: &str| -> Vec<bf16> {
        values(file, |b: [u8; 2]| bf16::from_bits(u16::from_le_bytes(b)))
    };
    let x = Tensor::<2>::from_data(
        TensorData::new(bits(&format!("{name}.input_0.bf16")), [2, 4]),
        (device, DType::BF16),
    );
    let lengths = ints(device, i64s(&format!("{name}.input_1.i64")), [2]);
    let y = model.forward(x, lengths).into_data().convert::<bf16>();
    let y: Vec<bf16> = y.try_into_vec().expect("bf16");
    assert_eq!(y, bits(&format!("{name}.output_0.bf16")), "{name}");
}

/// Float, int32 and bool inputs, both axis orders, `sequence_lens` an initializer.
fn kinds_match_onnx_runtime_exactly(device: &Device) {
    let model = kinds::Model::from_embedded(device);
    let run = |f, i, b| model.forward(f, i, b);
    check_kinds(device, &run);
}

/// The same with the initializer in a file beside the model (ONNX external data).
fn external_data_kinds_match_onnx_runtime_exactly(device: &Device) {
    let model = kinds_external::Model::from_embedded(device);
    let run = |f, i, b| model.forward(f, i, b);
    check_kinds(device, &run);
}

/// Lengths burn-onnx keeps on the host (the shape of another input), uploaded.
fn lengths_from_a_shape_match_onnx_runtime_exactly(device: &Device) {
    let model = shape_lengths::Model::from_embedded(device);
    let s = floats(device, f32s("shape_lengths.s.f32"), [4, 5]);
    let w = floats(device, f32s("shape_lengths.w.f32"), [2, 5, 1, 3]);
    assert_eq!(
        read_f32(model.forward(s, w)),
        f32s("shape_lengths.s_out.f32")
    );
}

type Kinds = (Tensor<3>, Tensor<3, Int>, Tensor<2, Bool>);

fn check_kinds(
    device: &Device,
    model: &dyn Fn(Tensor<3>, Tensor<3, Int>, Tensor<2, Bool>) -> Kinds,
) {
    let f = floats(device, f32s("kinds.f.f32"), [4, 5, 3]);
    let i = ints(device, values("kinds.i.i32", i32::from_le_bytes), [5, 4, 2]);
    let b = Tensor::<2, Bool>::from_data(
        TensorData::new(data("kinds.b.u8").iter().map(|&v| v != 0).collect(), [4, 5]),
        device,
    );
    let (f, i, b) = model(f, i, b);
    assert_eq!(read_f32(f), f32s("kinds.f_out.f32"), "float");
    let expected: Vec<i64> = values("kinds.i_out.i32", i32::from_le_bytes)
        .into_iter()
        .map(i64::from)
        .collect();
    assert_eq!(read_i64(i), expected, "int32");
    let expected: Vec<i64> = data("kinds.b_out.u8")
        .iter()
        .map(|&v| i64::from(v))
        .collect();
    assert_eq!(read_i64(b.int()), expected, "bool");
}

/// A bad length tensor at run time: the generated `forward` panics with the node's
/// name and `reverse_sequence`'s own error text.
fn a_bad_length_at_run_time_panics_with_the_operators_error(device: &Device) {
    let name = "test_reversesequence_batch";
    let model = test_reversesequence_batch::Model::from_embedded(device);
    let x = || floats(device, f32s(&format!("{name}.input_0.f32")), [4, 4]);
    let three = || ints(device, vec![1i64, 2, 3], [3]);
    let error = revseq_burn::reverse_sequence(x(), three(), 0, 1).expect_err("3 lengths, batch 4");
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        model.forward(x(), three());
    }))
    .expect_err("forward must panic");
    let message = panic
        .downcast_ref::<String>()
        .expect("a formatted panic message");
    assert_eq!(*message, format!("ReverseSequence node 'custom1': {error}"));
}

/// Every test above on burn's wgpu device (revseq's kernels) and on burn's CPU
/// backend (the portable path).
macro_rules! on_both_paths {
    ($($name:ident),*) => {
        mod kernels {
            $(#[test]
            fn $name() {
                super::$name(super::device());
            })*
        }
        mod portable {
            $(#[test]
            fn $name() {
                super::$name(&burn::tensor::Device::flex());
            })*
        }
    };
}

on_both_paths!(
    the_keras_bilstm_matches_onnx_runtime,
    the_tf2onnx_tagger_matches_onnx_runtime,
    onnx_backend_tests_are_exact,
    kinds_match_onnx_runtime_exactly,
    external_data_kinds_match_onnx_runtime_exactly,
    lengths_from_a_shape_match_onnx_runtime_exactly,
    a_bad_length_at_run_time_panics_with_the_operators_error
);
