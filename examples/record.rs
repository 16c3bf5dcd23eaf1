//! GPU-resident tensors: compile a descriptor once, record it into your own
//! encoder as often as you like, submit when you choose. `cargo run --example record`

use revseq::wgpu::{self, util::DeviceExt};
use revseq::{DataType, ReverseSubsequences, TensorDesc, TensorRole};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Your device, from the wgpu revseq re-exports (so that the types match).
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&Default::default()))?;
    let gpu = revseq::Gpu::from_wgpu(device.clone(), queue.clone());

    // [batch 8, time 128, features 64] f16, reversed along time, one i64 length per
    // batch entry broadcast through strides (ONNX's batch-major layout).
    let (batch, time, features) = (8u32, 128u32, 64u32);
    let tensor = TensorDesc::new(DataType::Float16, &[batch, time, features]);
    let desc = ReverseSubsequences::new(
        tensor.clone(),
        TensorDesc::new(DataType::Int64, &[batch, 1, features]).with_strides(&[1, 0, 0]),
        tensor,
        1,
    );
    let op = gpu.compile(&desc)?; // validated once; the pipeline comes from the cache
    println!("{} runs as {:?}", gpu.adapter_info().name, op.variant());

    let elements = (batch * time * features) as usize;
    let values: Vec<half::f16> = (0..elements)
        .map(|i| half::f16::from_f32((i % 1000) as f32))
        .collect();
    let lengths: Vec<i64> = (0..batch as i64).map(|b| 16 * b).collect();
    let storage = |bytes: &[u8], usage| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytes,
            usage: wgpu::BufferUsages::STORAGE | usage,
        })
    };
    let input = storage(bytemuck::cast_slice(&values), wgpu::BufferUsages::empty());
    let lens = storage(bytemuck::cast_slice(&lengths), wgpu::BufferUsages::empty());
    let empty = |usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: op.binding_size(TensorRole::Output),
            usage,
            mapped_at_creation: false,
        })
    };
    let reversed = empty(wgpu::BufferUsages::STORAGE);
    let restored = empty(wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC);
    let readback = empty(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);

    // Two calls into one encoder: reversing twice by the same lengths restores the
    // input. The second reads what the first wrote; wgpu orders them.
    let mut encoder = device.create_command_encoder(&Default::default());
    op.record(
        &mut encoder,
        input.as_entire_buffer_binding(),
        lens.as_entire_buffer_binding(),
        reversed.as_entire_buffer_binding(),
    )?;
    op.record(
        &mut encoder,
        reversed.as_entire_buffer_binding(),
        lens.as_entire_buffer_binding(),
        restored.as_entire_buffer_binding(),
    )?;
    encoder.copy_buffer_to_buffer(&restored, 0, &readback, 0, readback.size());
    queue.submit([encoder.finish()]);

    readback.map_async(wgpu::MapMode::Read, .., |result| {
        result.expect("mapping the output")
    });
    // In slices, not one long wait: on GL another thread may need the device.
    revseq::wait_for_queue(&device, &queue)?;
    let bytes = readback.get_mapped_range(..)?.to_vec();
    assert_eq!(bytes, bytemuck::cast_slice::<_, u8>(&values));
    println!("reversed and restored {} bytes in one submit", bytes.len());
    Ok(())
}
