//! Recording into the caller's encoder: bindings at offsets inside larger buffers,
//! canaries around the output that must survive, and binding errors.

use revseq::{
    reference, DataType, Error, Gpu, ReverseSubsequences, TensorDesc, TensorRole, Variant,
};
use wgpu::util::DeviceExt;

use crate::strided::lengths_for;
use crate::support::{gpu, per_element, Rng};

const CANARY: u8 = 0xC3;

fn storage(contents: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    storage_on(gpu(), contents, usage)
}

/// A buffer holding `contents`. Like every wgpu call of these tests, under the
/// device's lock, as the README asks of callers that share a GL device.
fn storage_on(gpu: &Gpu, contents: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    gpu.device_lock().hold(|| {
        gpu.device()
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("test"),
                contents,
                usage: wgpu::BufferUsages::STORAGE | usage,
            })
    })
}

pub(crate) fn read_back_on(gpu: &Gpu, buffer: &wgpu::Buffer) -> Vec<u8> {
    let (device, lock) = (gpu.device(), gpu.device_lock());
    let staging = lock.hold(|| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("test readback"),
            size: buffer.size(),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
    lock.hold(|| gpu.queue().submit([encoder.finish()]));
    lock.hold(|| staging.map_async(wgpu::MapMode::Read, .., |r| r.unwrap()));
    revseq::wait_for_queue(device, gpu.queue()).unwrap();
    let bytes = staging.get_mapped_range(..).unwrap().to_vec();
    lock.hold(|| drop(staging));
    bytes
}

/// Places each tensor at `offset` inside a buffer with room on both sides, runs
/// the operator through `record`, and checks the whole output buffer: the tensor's
/// bytes against the reference, every other byte still the canary.
fn run_at_offset(desc: &ReverseSubsequences, seed: u64) {
    run_at_offset_on(gpu(), desc, seed)
}

/// Runs `desc` through `record` with every binding at an aligned offset inside a
/// larger buffer of canaries, and checks the whole output buffer. The buffers
/// have no copy usages (the output `COPY_SRC` only, to read it back): a plan
/// that stages needs `STORAGE` alone.
pub(crate) fn run_at_offset_on(gpu: &Gpu, desc: &ReverseSubsequences, seed: u64) {
    run_at_offset_with(gpu, desc, seed, wgpu::BufferUsages::empty());
}

/// As [`run_at_offset_on`], with `usage` besides on the input and output buffers.
pub(crate) fn run_at_offset_with(
    gpu: &Gpu,
    desc: &ReverseSubsequences,
    seed: u64,
    usage: wgpu::BufferUsages,
) {
    let offset = u64::from(gpu.device().limits().min_storage_buffer_offset_alignment).max(256);
    let mut rng = Rng::new(seed);
    let compiled = gpu.compile(desc).unwrap();
    let in_bytes = rng.bytes(desc.input.min_size_in_bytes() as usize);
    let len_bytes = lengths_for(&mut rng, desc, desc.input.sizes()[desc.axis as usize]);
    let padded = |bytes: &[u8]| {
        let mut all = vec![CANARY; offset as usize];
        all.extend_from_slice(bytes);
        all.resize(all.len().next_multiple_of(4) + 64, CANARY);
        all
    };
    let input = storage_on(gpu, &padded(&in_bytes), usage);
    let lengths = storage_on(gpu, &padded(&len_bytes), wgpu::BufferUsages::empty());
    let out_len = desc.output.min_size_in_bytes() as usize;
    let out_initial = padded(&vec![CANARY; out_len]);
    let output = storage_on(gpu, &out_initial, usage | wgpu::BufferUsages::COPY_SRC);
    let binding = |buffer, tensor| wgpu::BufferBinding {
        buffer,
        offset,
        size: wgpu::BufferSize::new(compiled.binding_size(tensor)),
    };

    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    compiled
        .record(
            &mut encoder,
            binding(&input, TensorRole::Input),
            binding(&lengths, TensorRole::SequenceLengths),
            binding(&output, TensorRole::Output),
        )
        .unwrap();
    gpu.device_lock()
        .hold(|| gpu.queue().submit([encoder.finish()]));
    let actual = read_back_on(gpu, &output);

    let mut expected = out_initial.clone();
    let window = offset as usize..offset as usize + out_len;
    reference::reverse_subsequences_bytes(desc, &in_bytes, &len_bytes, &mut expected[window])
        .unwrap();
    assert_eq!(actual.len(), expected.len());
    if let Some(at) = actual.iter().zip(&expected).position(|(a, e)| a != e) {
        panic!(
            "output buffer byte {at} (tensor starts at {offset}, {out_len} bytes): gpu {:#04x}, expected {:#04x}, {desc:?}",
            actual[at], expected[at]
        );
    }
}

#[test]
fn bindings_at_offsets_leave_the_rest_of_the_buffer_alone() {
    for (seed, data_type) in DataType::ALL.into_iter().enumerate() {
        // 3 × 5 elements: for 1-byte types the last output word is partly past the tensor.
        let desc = ReverseSubsequences::new(
            TensorDesc::new(data_type, &[3, 5]),
            TensorDesc::new(DataType::Uint32, &[3, 1]),
            TensorDesc::new(data_type, &[3, 5]),
            1,
        );
        run_at_offset(&desc, seed as u64);
        // Gapped output: odd strides leave single bytes between 1-byte elements.
        let desc = ReverseSubsequences::new(
            TensorDesc::new(data_type, &[3, 5]),
            TensorDesc::new(DataType::Uint32, &[1, 5]),
            TensorDesc::new(data_type, &[3, 5]).with_strides(&[1, 5]),
            0,
        );
        run_at_offset(&desc, seed as u64 + 100);
    }
}

#[test]
fn fast_variants_at_offsets_leave_the_rest_of_the_buffer_alone() {
    for (seed, data_type) in DataType::ALL.into_iter().enumerate() {
        let v = 16 / data_type.size_in_bytes(); // elements per 16-byte vector
        let n = 3 * v.max(2);
        let cases = [
            (
                ReverseSubsequences::new(
                    TensorDesc::new(data_type, &[3, n]),
                    TensorDesc::new(DataType::Uint32, &[3, 1]),
                    TensorDesc::new(data_type, &[3, n]),
                    1,
                ),
                Variant::Rows,
            ),
            (
                ReverseSubsequences::new(
                    TensorDesc::new(data_type, &[2, 5, n]),
                    TensorDesc::new(DataType::Uint32, &[2, 1, n]).with_strides(&[1, 0, 0]),
                    TensorDesc::new(data_type, &[2, 5, n]),
                    1,
                ),
                Variant::Runs,
            ),
            (
                ReverseSubsequences::new(
                    TensorDesc::new(data_type, &[5, n]),
                    TensorDesc::new(DataType::Uint32, &[1, n]),
                    TensorDesc::new(data_type, &[5, n]),
                    0,
                ),
                per_element(data_type, 5, true),
            ),
        ];
        for (desc, variant) in cases {
            assert_eq!(gpu().compile(&desc).unwrap().variant(), variant);
            run_at_offset(&desc, 200 + seed as u64);
        }
    }
}

fn small() -> ReverseSubsequences {
    ReverseSubsequences::new(
        TensorDesc::new(DataType::Uint8, &[2, 3]),
        TensorDesc::new(DataType::Uint32, &[2, 1]),
        TensorDesc::new(DataType::Uint8, &[2, 3]),
        1,
    )
}

fn record_with(
    input: &wgpu::Buffer,
    input_offset: u64,
    lengths: &wgpu::Buffer,
    output: &wgpu::Buffer,
) -> Result<(), Error> {
    let compiled = gpu().compile(&small())?;
    let mut encoder = gpu().device().create_command_encoder(&Default::default());
    let result = compiled.record(
        &mut encoder,
        wgpu::BufferBinding {
            buffer: input,
            offset: input_offset,
            size: None,
        },
        lengths.as_entire_buffer_binding(),
        output.as_entire_buffer_binding(),
    );
    if result.is_ok() {
        gpu()
            .device_lock()
            .hold(|| gpu().queue().submit([encoder.finish()]));
    }
    result
}

#[test]
fn binding_without_storage_usage_is_an_error() {
    let plain = gpu().device_lock().hold(|| {
        gpu()
            .device()
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: &[0; 8],
                usage: wgpu::BufferUsages::COPY_SRC,
            })
    });
    let lengths = storage(&[0; 8], wgpu::BufferUsages::empty());
    let output = storage(&[0; 8], wgpu::BufferUsages::empty());
    let err = record_with(&plain, 0, &lengths, &output).unwrap_err();
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
}

#[test]
fn misaligned_binding_offset_is_an_error() {
    let input = storage(&[0; 512], wgpu::BufferUsages::empty());
    let lengths = storage(&[0; 8], wgpu::BufferUsages::empty());
    let output = storage(&[0; 8], wgpu::BufferUsages::empty());
    let err = record_with(&input, 4, &lengths, &output).unwrap_err();
    assert!(
        matches!(
            err,
            Error::BindingMisaligned {
                tensor: TensorRole::Input,
                offset: 4,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn binding_smaller_than_the_tensor_is_an_error() {
    let input = storage(&[0; 8], wgpu::BufferUsages::empty());
    let lengths = storage(&[0; 4], wgpu::BufferUsages::empty());
    let output = storage(&[0; 8], wgpu::BufferUsages::empty());
    let err = record_with(&input, 0, &lengths, &output).unwrap_err();
    assert_eq!(
        err,
        Error::BindingTooSmall {
            tensor: TensorRole::SequenceLengths,
            required: 8,
            actual: 4
        }
    );
}

#[test]
fn output_aliasing_an_input_is_an_error() {
    let shared = storage(&[0; 8], wgpu::BufferUsages::empty());
    let lengths = storage(&[0; 8], wgpu::BufferUsages::empty());
    let err = record_with(&shared, 0, &lengths, &shared).unwrap_err();
    assert_eq!(
        err,
        Error::OutputAliases {
            tensor: TensorRole::Input
        }
    );
}

#[test]
fn wgpu_validation_errors_come_back_as_err() {
    let input = storage(&[0; 8], wgpu::BufferUsages::empty());
    let lengths = storage(&[0; 8], wgpu::BufferUsages::empty());
    let output = storage(&[0; 8], wgpu::BufferUsages::empty());
    input.destroy();
    let err = record_with(&input, 0, &lengths, &output).unwrap_err();
    assert!(matches!(err, Error::Wgpu { .. }), "{err}");
}
