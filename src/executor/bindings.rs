//! What every dispatch binds, for the normal build and the trace build alike: the
//! layout (the uniform at binding 0; input, sequence lengths and output at 1, 2
//! and 3; the trace build's records at 4) and the bind group of one dispatch.
//! The input is read-only, so that a caller may bind one buffer as input and
//! lengths; in place across windows it is a second writable window of the
//! tensor, under a layout of its own.

use crate::kernels::params::PARAMS_SIZE;

/// The bind group layout and the pipeline layout over it; `traced` adds the
/// records at binding 4, and `writable_input` makes the input `read_write`.
pub(crate) fn layouts(
    device: &wgpu::Device,
    traced: bool,
    writable_input: bool,
) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
    // Input and output are `array<u32>` in some kernels and `array<vec4<u32>>` in
    // others, so their minimum size is left to each pipeline; `record` checks
    // every binding against the tensor before wgpu sees it.
    let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty,
        count: None,
    };
    let storage = |read_only, min_binding_size| wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Storage { read_only },
        has_dynamic_offset: false,
        min_binding_size,
    };
    let uniform = wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Uniform,
        has_dynamic_offset: false,
        min_binding_size: wgpu::BufferSize::new(PARAMS_SIZE),
    };
    let mut entries = vec![
        entry(0, uniform),
        entry(1, storage(!writable_input, None)),
        entry(2, storage(true, wgpu::BufferSize::new(4))),
        entry(3, storage(false, None)),
    ];
    if traced {
        entries.push(entry(4, storage(false, None)));
    }
    let label = match (traced, writable_input) {
        (true, _) => "revseq::traced_layout",
        (false, false) => "revseq::bind_group_layout",
        (false, true) => "revseq::writable_input_layout",
    };
    let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(&bind_group_layout)],
        immediate_size: 0,
    });
    (bind_group_layout, pipeline_layout)
}

/// One dispatch's bind group: its `Params` at binding 0, its windows of the input,
/// sequence lengths and output at 1-3, and the trace build's records where given.
pub(crate) fn bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    params: wgpu::BindingResource<'_>,
    tensors: [wgpu::BufferBinding<'_>; 3],
    records: Option<wgpu::BindingResource<'_>>,
) -> wgpu::BindGroup {
    let entry = |binding: u32, resource| wgpu::BindGroupEntry { binding, resource };
    let [input, lengths, output] = tensors.map(wgpu::BindingResource::Buffer);
    let [a, b, c, d] = [
        entry(0, params),
        entry(1, input),
        entry(2, lengths),
        entry(3, output),
    ];
    // `record` makes one a dispatch: no allocation on its path.
    let create = |entries: &[wgpu::BindGroupEntry<'_>]| {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("revseq::bind_group"),
            layout,
            entries,
        })
    };
    match records {
        None => create(&[a, b, c, d]),
        Some(records) => create(&[a, b, c, d, entry(4, records)]),
    }
}
