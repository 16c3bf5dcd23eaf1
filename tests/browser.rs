//! The browser suite: the async API on wasm32 through the browser's WebGPU, run in
//! headless Chromium by `wasm-bindgen-test-runner` (see `.ci/browser`). Natively this
//! file compiles to nothing; the native suite lives in `tests/revseq/`.
//!
//! Every test opens the page's WebGPU adapter and fails without it: a browser with
//! no WebGPU gives no adapter, and wgpu is built without WebGL, so nothing else can
//! stand in.

#![cfg(target_arch = "wasm32")]

#[path = "common/spec.rs"]
mod spec;

use revseq::{reference, DataType, Error, Gpu, ReverseSubsequences, TensorDesc, TensorRole};
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const LENGTH_TYPES: [DataType; 4] = [
    DataType::Uint32,
    DataType::Uint64,
    DataType::Int32,
    DataType::Int64,
];

async fn gpu() -> Gpu {
    Gpu::new_async().await.unwrap_or_else(|e| {
        panic!(
            "the browser suite needs WebGPU and found no adapter: {e}\n\
             headless Chromium needs the flags in webdriver.json"
        )
    })
}

/// A seeded byte pattern, different for every (seed, index).
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Little-endian `value` as a length of `data_type`.
fn length(data_type: DataType, value: i64) -> Vec<u8> {
    match data_type {
        DataType::Uint32 => (value as u32).to_le_bytes().to_vec(),
        DataType::Int32 => (value as i32).to_le_bytes().to_vec(),
        DataType::Uint64 => (value as u64).to_le_bytes().to_vec(),
        _ => value.to_le_bytes().to_vec(),
    }
}

/// Runs `desc` through `compile_async` and `run_async` over an output pre-filled
/// with two different canaries (and 5 bytes past the tensor), and asserts every
/// byte equals the reference's on the same canary.
async fn assert_matches_reference(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
    input: &[u8],
    lengths: &[u8],
) {
    let op = gpu
        .compile_async(desc)
        .await
        .unwrap_or_else(|e| panic!("compile_async failed for {desc:?}: {e}"));
    let out_len = desc.output.min_size_in_bytes() as usize + 5;
    for canary in [0xA5u8, 0x5A] {
        let mut expected = vec![canary; out_len];
        reference::reverse_subsequences_bytes(desc, input, lengths, &mut expected).unwrap();
        let mut actual = vec![canary; out_len];
        op.run_async(input, lengths, &mut actual)
            .await
            .unwrap_or_else(|e| panic!("run_async failed for {desc:?}: {e}"));
        assert!(
            actual == expected,
            "differs from the reference (canary {canary:#04x}, variant {:?}) for {desc:?}",
            op.variant()
        );
    }
}

#[wasm_bindgen_test]
async fn runs_on_the_browsers_webgpu_adapter() {
    let gpu = gpu().await;
    let info = gpu.adapter_info();
    let navigator = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).unwrap();
    let browser = js_sys::Reflect::get(&navigator, &"userAgent".into()).unwrap();
    console_log!(
        "revseq browser tests run in {} on adapter {:?} ({:?} backend, {:?}, driver {:?} {:?}); \
         storage bindings up to {} bytes",
        browser.as_string().unwrap_or_default(),
        info.name,
        info.backend,
        info.device_type,
        info.driver,
        info.driver_info,
        gpu.device().limits().max_storage_buffer_binding_size
    );
    assert_eq!(info.backend, wgpu::Backend::BrowserWebGpu);
    // The kernels need no optional feature, so the device asks for none.
    assert!(!gpu.device().features().contains(wgpu::Features::SHADER_F16));
}

#[wasm_bindgen_test]
async fn directml_examples() {
    let gpu = gpu().await;
    for case in spec::directml() {
        let out = gpu
            .reverse_subsequences_async(&case.input, &case.sizes, &case.lengths, case.axis)
            .await
            .unwrap();
        assert_eq!(out, case.expected, "{}", case.name);
    }
}

#[wasm_bindgen_test]
async fn onnx_examples() {
    let gpu = gpu().await;
    for case in spec::onnx() {
        let out = gpu
            .reverse_sequence_async(
                &case.input,
                &case.shape,
                &case.lens,
                case.batch_axis,
                case.time_axis,
            )
            .await
            .unwrap();
        assert_eq!(out, case.expected, "{}", case.name);
    }
}

/// Every data type (so every element width) with every length type, on layouts that
/// select every kernel variant under one tuning or the other (the browser's
/// SwiftShader adapter is a CPU), against the reference.
#[wasm_bindgen_test]
async fn every_width_and_length_type_matches_the_reference() {
    let browser = gpu().await;
    // (sizes, axis, strides of the lengths tensor): the axis outermost, in the
    // middle and innermost; lengths broadcast along the inner dimension, as ONNX
    // has them; rows of 3 elements, too short for a vector; and an axis of 70
    // positions, past what `columns` holds.
    let layouts: [([u32; 3], u32, Option<[u32; 3]>); 6] = [
        ([3, 20, 8], 0, None),
        ([3, 20, 8], 1, None),
        ([3, 20, 8], 2, None),
        ([3, 20, 8], 1, Some([1, 0, 0])),
        ([5, 7, 3], 1, None),
        ([2, 70, 8], 1, None),
    ];
    let mut variants = std::collections::BTreeSet::new();
    for gpu in [
        browser.with_tuning(revseq::Tuning::Cpu),
        browser.with_tuning(revseq::Tuning::Gpu),
    ] {
        for (seed, data_type) in DataType::ALL.into_iter().enumerate() {
            for length_type in LENGTH_TYPES {
                for (sizes, axis, length_strides) in layouts {
                    let mut length_sizes = sizes;
                    length_sizes[axis as usize] = 1;
                    let mut lengths_desc = TensorDesc::new(length_type, &length_sizes);
                    if let Some(strides) = length_strides {
                        lengths_desc = lengths_desc.with_strides(&strides);
                    }
                    let desc = ReverseSubsequences::new(
                        TensorDesc::new(data_type, &sizes),
                        lengths_desc,
                        TensorDesc::new(data_type, &sizes),
                        axis,
                    );
                    let n = i64::from(sizes[axis as usize]);
                    let slots = desc.sequence_lengths.min_size_in_bytes()
                        / u64::from(length_type.size_in_bytes());
                    // Nothing, part, all, past the axis and (signed types) negative.
                    let lengths: Vec<u8> = (0..slots as i64)
                        .flat_map(|lane| {
                            let value = match lane % 5 {
                                0 => 0,
                                1 => lane % n,
                                2 => n,
                                3 => n + 7,
                                _ if matches!(length_type, DataType::Int32 | DataType::Int64) => -3,
                                _ => n / 2,
                            };
                            length(length_type, value)
                        })
                        .collect();
                    let input = bytes(seed as u64, desc.input.min_size_in_bytes() as usize);
                    assert_matches_reference(&gpu, &desc, &input, &lengths).await;
                    variants.insert(gpu.compile_async(&desc).await.unwrap().variant().name());
                }
            }
        }
    }
    console_log!("variants run: {variants:?}");
    assert_eq!(variants.len(), revseq::Variant::ALL.len(), "{variants:?}");
}

/// Gapped, permuted output strides and broadcast (stride-0) input and lengths; the
/// gap bytes keep their canary.
#[wasm_bindgen_test]
async fn strided_and_broadcast_tensors_keep_their_gaps() {
    let gpu = gpu().await;
    for data_type in [
        DataType::Uint8,
        DataType::Float16,
        DataType::Float32,
        DataType::Complex128,
    ] {
        let sizes = [3u32, 5, 4];
        let desc = ReverseSubsequences::new(
            // The input repeats along dimension 0.
            TensorDesc::new(data_type, &sizes).with_strides(&[0, 4, 1]),
            // One length per position of the last dimension, shared by dimension 0.
            TensorDesc::new(DataType::Int64, &[3, 1, 4]).with_strides(&[0, 0, 1]),
            // Column-major with a gap of 3 elements after each run of dimension 0.
            TensorDesc::new(data_type, &sizes).with_strides(&[1, 6, 30]),
            1,
        );
        let lengths: Vec<u8> = [5i64, 2, 0, 9]
            .into_iter()
            .flat_map(i64::to_le_bytes)
            .collect();
        let input = bytes(7, desc.input.min_size_in_bytes() as usize);
        assert_matches_reference(&gpu, &desc, &input, &lengths).await;

        let op = gpu.compile_async(&desc).await.unwrap();
        let width = data_type.size_in_bytes() as usize;
        let mut out = vec![0xA5u8; desc.output.min_size_in_bytes() as usize];
        op.run_async(&input, &lengths, &mut out).await.unwrap();
        // Elements 3..6 of each run of 6 are the gap.
        for gap in (0..out.len() / width).filter(|e| e % 6 >= 3) {
            assert!(
                out[gap * width..][..width].iter().all(|&b| b == 0xA5),
                "{data_type:?} gap element {gap}"
            );
        }
    }
}

#[wasm_bindgen_test]
async fn onnx_reverse_sequence_batch_major() {
    let gpu = gpu().await;
    // [batch 3, time 4, 2]: batch 0 reverses 4 steps, batch 1 one, batch 2 three.
    let input: Vec<i64> = (0..24).collect();
    let lens = [4i64, 1, 3];
    let out = gpu
        .reverse_sequence_async(&input, &[3, 4, 2], &lens, 0, 1)
        .await
        .unwrap();
    let expected = reference::reverse_sequence(&input, &[3, 4, 2], &lens, 0, 1).unwrap();
    assert_eq!(out, expected);
    assert_eq!(&out[..8], [6, 7, 4, 5, 2, 3, 0, 1]);
    // ONNX's own rule, checked on the host as ONNX Runtime does.
    let err = gpu
        .reverse_sequence_async(&input, &[3, 4, 2], &[4, 5, 1], 0, 1)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::OnnxSequenceLength {
                index: 1,
                value: 5,
                ..
            }
        ),
        "{err}"
    );
}

/// Reads `size` bytes of `buffer` back through a mappable copy.
async fn read_back(gpu: &Gpu, buffer: &wgpu::Buffer, size: u64) -> Vec<u8> {
    let device = gpu.device();
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("browser test readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
    gpu.queue().submit([encoder.finish()]);
    let mapped = js_sys::Promise::new(&mut |resolve, reject| {
        staging.map_async(wgpu::MapMode::Read, .., move |result| {
            let settle = if result.is_ok() { &resolve } else { &reject };
            settle.call0(&wasm_bindgen::JsValue::NULL).unwrap();
        });
    });
    wasm_bindgen_futures::JsFuture::from(mapped)
        .await
        .expect("mapping the readback");
    let bytes = staging.get_mapped_range(..).unwrap().to_vec();
    bytes
}

/// `record` into the caller's encoder, beside the caller's own commands, at
/// bindings that start at the device's offset alignment; one submit.
#[wasm_bindgen_test]
async fn record_into_a_callers_encoder() {
    use wgpu::util::DeviceExt;
    let gpu = gpu().await;
    let device = gpu.device();
    let tensor = TensorDesc::new(DataType::Float32, &[4, 6]);
    let desc = ReverseSubsequences::new(
        tensor.clone(),
        TensorDesc::new(DataType::Uint32, &[4, 1]),
        tensor,
        1,
    );
    let op = gpu.compile_async(&desc).await.unwrap();
    let offset = u64::from(device.limits().min_storage_buffer_offset_alignment);
    let input: Vec<f32> = (0..24).map(|v| v as f32).collect();
    let lengths = [6u32, 3, 0, 100];
    let mut input_bytes = vec![0u8; offset as usize];
    input_bytes.extend_from_slice(bytemuck::cast_slice(&input));
    let storage = |contents: &[u8], usage| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents,
            usage: wgpu::BufferUsages::STORAGE | usage,
        })
    };
    let input_buffer = storage(&input_bytes, wgpu::BufferUsages::empty());
    let lengths_buffer = storage(bytemuck::cast_slice(&lengths), wgpu::BufferUsages::empty());
    let out_size = op.binding_size(TensorRole::Output);
    let output = storage(
        &vec![0xEE; (offset + out_size + 16) as usize],
        wgpu::BufferUsages::COPY_SRC,
    );

    let mut encoder = device.create_command_encoder(&Default::default());
    op.record(
        &mut encoder,
        wgpu::BufferBinding {
            buffer: &input_buffer,
            offset,
            size: None,
        },
        lengths_buffer.as_entire_buffer_binding(),
        wgpu::BufferBinding {
            buffer: &output,
            offset,
            size: wgpu::BufferSize::new(out_size),
        },
    )
    .unwrap();
    gpu.queue().submit([encoder.finish()]);

    let bytes = read_back(&gpu, &output, offset + out_size + 16).await;
    let expected = reference::reverse_subsequences(&input, &[4, 6], &lengths, 1).unwrap();
    assert_eq!(
        bytemuck::cast_slice::<u8, f32>(&bytes[offset as usize..][..96]),
        expected
    );
    assert!(
        bytes[..offset as usize].iter().all(|&b| b == 0xEE),
        "before the output binding"
    );
    assert!(
        bytes[(offset + out_size) as usize..]
            .iter()
            .all(|&b| b == 0xEE),
        "after the output binding"
    );
}

/// The errors only a device can raise: its binding limit, and the buffers and
/// offsets handed to `record`. Each is an `Error` naming the tensor, not a wgpu
/// validation error in the console.
#[wasm_bindgen_test]
async fn device_errors_name_the_tensor_and_the_rule() {
    let gpu = gpu().await;
    let device = gpu.device();
    let limit = device.limits().max_buffer_size;

    // Past the device's buffer limit (past its binding limit is windowed): the
    // descriptor alone, nothing allocated.
    let huge = TensorDesc::new(
        DataType::Float32,
        &[u32::try_from(limit / 4 / 2 + 1).unwrap(), 2],
    );
    let desc = ReverseSubsequences::new(
        huge.clone(),
        TensorDesc::new(DataType::Uint32, &[1, 2]),
        huge,
        0,
    );
    let err = gpu.compile_async(&desc).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::TensorTooLarge {
                tensor: TensorRole::Input,
                limit_name,
                ..
            } if limit_name.contains("max_buffer_size")
        ),
        "{err}"
    );

    let tensor = TensorDesc::new(DataType::Uint16, &[2, 8]);
    let desc = ReverseSubsequences::new(
        tensor.clone(),
        TensorDesc::new(DataType::Int32, &[2, 1]),
        tensor,
        1,
    );
    let op = gpu.compile_async(&desc).await.unwrap();
    let buffer = |size, usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    let storage = wgpu::BufferUsages::STORAGE;
    let input = buffer(1024, storage);
    let lengths = buffer(1024, storage);
    let output = buffer(1024, storage);
    let uniform = buffer(1024, wgpu::BufferUsages::UNIFORM);
    let small = buffer(16, storage);
    fn whole(b: &wgpu::Buffer) -> wgpu::BufferBinding<'_> {
        b.as_entire_buffer_binding()
    }
    let record = |input: wgpu::BufferBinding<'_>,
                  lengths: wgpu::BufferBinding<'_>,
                  output: wgpu::BufferBinding<'_>| {
        let mut encoder = device.create_command_encoder(&Default::default());
        op.record(&mut encoder, input, lengths, output)
    };

    let err = record(whole(&uniform), whole(&lengths), whole(&output)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::BindingUsage {
                tensor: TensorRole::Input,
                ..
            }
        ),
        "{err}"
    );

    let misaligned = wgpu::BufferBinding {
        buffer: &output,
        offset: 4,
        size: None,
    };
    let err = record(whole(&input), whole(&lengths), misaligned).unwrap_err();
    assert!(
        matches!(
            err,
            Error::BindingMisaligned {
                tensor: TensorRole::Output,
                offset: 4,
                ..
            }
        ),
        "{err}"
    );

    let err = record(whole(&input), whole(&lengths), whole(&small)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::BindingTooSmall {
                tensor: TensorRole::Output,
                required: 32,
                actual: 16
            }
        ),
        "{err}"
    );

    let err = record(whole(&output), whole(&lengths), whole(&output)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutputAliases {
                tensor: TensorRole::Input
            }
        ),
        "{err}"
    );

    // And the valid call records.
    record(whole(&input), whole(&lengths), whole(&output)).unwrap();
}

/// Tensors past a binding run windowed, here bound 64 KiB at a time: rows grouped
/// into windows, an axis longer than a window, ONNX time-major by position.
#[wasm_bindgen_test]
async fn windowed_tensors_match_the_reference() {
    let gpu = gpu().await.with_max_binding(64 << 10);
    let cases = [
        (DataType::Uint8, [1u32, 60, 3001], 2u32, None),
        (DataType::Float32, [1, 1, 50_000], 2, None),
        (DataType::Float16, [200, 8, 48], 0, Some([0u32, 1, 0])),
        (DataType::Complex64, [30, 40, 16], 1, None),
    ];
    for (seed, (data_type, sizes, axis, length_strides)) in cases.into_iter().enumerate() {
        let mut length_sizes = sizes;
        length_sizes[axis as usize] = 1;
        let mut lengths_desc = TensorDesc::new(DataType::Int64, &length_sizes);
        if let Some(strides) = length_strides {
            lengths_desc = lengths_desc.with_strides(&strides);
        }
        let desc = ReverseSubsequences::new(
            TensorDesc::new(data_type, &sizes),
            lengths_desc,
            TensorDesc::new(data_type, &sizes),
            axis,
        );
        let op = gpu.compile_async(&desc).await.unwrap();
        assert!(op.dispatch_count() > 1, "{desc:?} ran in one dispatch");
        let n = i64::from(sizes[axis as usize]);
        let slots = desc.sequence_lengths.min_size_in_bytes() / 8;
        let lengths: Vec<u8> = (0..slots as i64)
            .flat_map(|lane| [n, lane % (n + 3), 0, n / 3][lane as usize % 4].to_le_bytes())
            .collect();
        let input = bytes(seed as u64 + 40, desc.input.min_size_in_bytes() as usize);
        assert_matches_reference(&gpu, &desc, &input, &lengths).await;
    }
}

/// A reversed axis of size 0 (and any other empty tensor) is a no-op.
#[wasm_bindgen_test]
async fn size_zero_tensors_are_no_ops() {
    let gpu = gpu().await;
    let out = gpu
        .reverse_subsequences_async::<f32, u32>(&[], &[0, 2, 3], &[0; 6], 0)
        .await
        .unwrap();
    assert!(out.is_empty());
    let out = gpu
        .reverse_subsequences_async::<u8, i64>(&[], &[4, 0], &[0; 4], 1)
        .await
        .unwrap();
    assert!(out.is_empty());
}

/// In place through the browser's WebGPU: rows, runs and per-element lengths of
/// 1-, 2-, 4- and 16-byte elements, a gap between rows and canary bytes after the
/// tensor, and rows past a 4 KiB binding, against the reference's in-place twin.
#[wasm_bindgen_test]
async fn in_place_matches_the_reference() {
    let gpu = gpu().await;
    for (seed, data_type) in [
        DataType::Uint8,
        DataType::Float16,
        DataType::Float32,
        DataType::Complex128,
    ]
    .into_iter()
    .enumerate()
    {
        for (sizes, axis, strides) in [
            ([6u32, 37], 1u32, [40u32, 1]),
            ([19, 4], 0, [5, 1]),
            ([9, 7], 0, [1, 9]),
        ] {
            let mut length_sizes = sizes;
            length_sizes[axis as usize] = 1;
            let desc = revseq::ReverseInPlace::new(
                TensorDesc::new(data_type, &sizes).with_strides(&strides),
                TensorDesc::new(DataType::Int64, &length_sizes),
                axis,
            );
            let n = i64::from(sizes[axis as usize]);
            let slots = length_sizes.iter().product::<u32>() as i64;
            let lengths: Vec<u8> = (0..slots)
                .flat_map(|i| length(DataType::Int64, (i * 7 + seed as i64) % (n + 2) - 1))
                .collect();
            let mut tensor = bytes(seed as u64, desc.tensor.min_size_in_bytes() as usize + 9);
            let mut expected = tensor.clone();
            reference::reverse_in_place_bytes(&desc, &mut expected, &lengths).unwrap();
            let op = gpu.compile_in_place_async(&desc).await.unwrap();
            op.run_async(&mut tensor, &lengths).await.unwrap();
            assert!(
                tensor == expected,
                "{desc:?}: in place differs from the reference"
            );
        }
    }
    // Past a 4 KiB binding: pieces of whole rows, a window of the tensor each;
    // lanes past the binding (the axis outermost, rows of 9,000 bytes), pairs of
    // groups of positions, two writable windows of the tensor in one dispatch.
    let small = gpu.with_max_binding(4 << 10);
    let cases = [
        (DataType::Uint8, [24u32, 700], 1u32),
        (DataType::Float32, [24, 700], 1),
        (DataType::Float32, [64, 40], 0),
        (DataType::Uint8, [3, 9000], 1),
    ];
    for (seed, (data_type, sizes, axis)) in cases.into_iter().enumerate() {
        let mut length_sizes = sizes;
        length_sizes[axis as usize] = 1;
        let desc = revseq::ReverseInPlace::new(
            TensorDesc::new(data_type, &sizes),
            TensorDesc::new(DataType::Int32, &length_sizes),
            axis,
        );
        let n = i64::from(sizes[axis as usize]);
        let lengths: Vec<u8> = (0..i64::from(length_sizes[0] * length_sizes[1]))
            .flat_map(|i| length(DataType::Int32, n + 1 - (i * 61 + seed as i64) % (n + 2)))
            .collect();
        let mut tensor = bytes(seed as u64, desc.tensor.min_size_in_bytes() as usize + 9);
        let mut expected = tensor.clone();
        reference::reverse_in_place_bytes(&desc, &mut expected, &lengths).unwrap();
        let op = small.compile_in_place_async(&desc).await.unwrap();
        assert!(op.dispatch_count() > 1, "{desc:?}: one dispatch");
        op.run_async(&mut tensor, &lengths).await.unwrap();
        assert!(
            tensor == expected,
            "{desc:?}: in place past one binding differs from the reference"
        );
    }
}
