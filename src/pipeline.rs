//! The pipeline cache: one compute pipeline per [`PipelineKey`], built once, shared
//! by every clone of a [`Gpu`](crate::Gpu) and safe to use from many threads.

use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

use crate::scope::capture;
use crate::shaders::{Kernel, PipelineKey};
use crate::Error;

#[derive(Default)]
pub(crate) struct PipelineCache {
    state: RwLock<State>,
}

#[derive(Default)]
struct State {
    modules: HashMap<Kernel, wgpu::ShaderModule>,
    pipelines: HashMap<PipelineKey, wgpu::ComputePipeline>,
}

impl PipelineCache {
    pub(crate) fn len(&self) -> usize {
        let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
        state.pipelines.len()
    }

    pub(crate) fn get_or_build(
        &self,
        device: &wgpu::Device,
        layout: &wgpu::PipelineLayout,
        key: PipelineKey,
    ) -> Result<wgpu::ComputePipeline, Error> {
        let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(pipeline) = state.pipelines.get(&key) {
            return Ok(pipeline.clone());
        }
        drop(state);

        // Building under the write lock means two threads asking for the same new
        // key build it once; the second finds it on the re-check.
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(pipeline) = state.pipelines.get(&key) {
            return Ok(pipeline.clone());
        }
        let kernel = key.kernel();
        let module = match state.modules.get(&kernel) {
            Some(module) => module.clone(),
            None => {
                let module = capture(device, "compiling a shader module", || {
                    device.create_shader_module(wgpu::ShaderModuleDescriptor {
                        label: Some(kernel.label()),
                        source: wgpu::ShaderSource::Wgsl(kernel.source().into()),
                    })
                })?;
                state.modules.insert(kernel, module.clone());
                module
            }
        };
        let constants = key.constants();
        let pipeline = capture(device, "building a compute pipeline", || {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(kernel.label()),
                layout: Some(layout),
                module: &module,
                entry_point: Some(Kernel::ENTRY_POINT),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    // The kernels use no workgroup memory.
                    zero_initialize_workgroup_memory: false,
                },
                cache: None,
            })
        })?;
        state.pipelines.insert(key, pipeline.clone());
        Ok(pipeline)
    }
}
