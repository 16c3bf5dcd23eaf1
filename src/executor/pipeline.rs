//! The pipeline cache: one compute pipeline per [`PipelineKey`], and the staging
//! copy's per tuning, built once, shared by every clone of a [`Gpu`](crate::Gpu)
//! and safe to use from many threads.

use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

use crate::descriptor::error::Error;
use crate::executor::device_lock::DeviceLock;
use crate::executor::scope::Scope;
use crate::kernels::copy::Copying;
use crate::kernels::shaders::{KernelFile, Source};
use crate::kernels::PipelineKey;

/// A pipeline the cache builds: an operator's, or the staging copy's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Pipeline {
    Operator(PipelineKey),
    Copy(Copying),
}

impl Pipeline {
    pub(crate) fn source(&self) -> Source {
        match self {
            Pipeline::Operator(key) => key.source(),
            Pipeline::Copy(copying) => copying.source(),
        }
    }

    /// Whether its input binding is writable (`src/executor/bindings.rs`).
    pub(crate) fn writes_input(&self) -> bool {
        match self {
            Pipeline::Operator(key) => key.writes_input(),
            Pipeline::Copy(_) => false,
        }
    }

    pub(crate) fn constants(&self) -> Vec<(&'static str, f64)> {
        match self {
            Pipeline::Operator(key) => key.constants(),
            Pipeline::Copy(copying) => copying.constants(),
        }
    }
}

#[derive(Default)]
pub(crate) struct PipelineCache {
    state: RwLock<State>,
}

#[derive(Default)]
struct State {
    modules: HashMap<Source, wgpu::ShaderModule>,
    pipelines: HashMap<Pipeline, wgpu::ComputePipeline>,
}

impl PipelineCache {
    pub(crate) fn len(&self) -> usize {
        let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
        state.pipelines.len()
    }

    fn cached(&self, key: Pipeline) -> Option<wgpu::ComputePipeline> {
        let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
        state.pipelines.get(&key).cloned()
    }

    pub(crate) async fn get_or_build(
        &self,
        device: &wgpu::Device,
        lock: &DeviceLock,
        layout: &wgpu::PipelineLayout,
        key: Pipeline,
    ) -> Result<wgpu::ComputePipeline, Error> {
        if let Some(pipeline) = self.cached(key) {
            return Ok(pipeline);
        }
        // Built without the lock, which must not be held across the await; two
        // threads asking for the same new key may both build it, and the first
        // inserted wins.
        let source = key.source();
        let label = source.label();
        let cached_module = {
            let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
            state.modules.get(&source).cloned()
        };
        let (module, module_errors) = match cached_module {
            Some(module) => (module, None),
            None => {
                let scope = Scope::push(device);
                let module = lock.hold(|| {
                    device.create_shader_module(wgpu::ShaderModuleDescriptor {
                        label: Some(&label),
                        source: wgpu::ShaderSource::Wgsl(source.wgsl().into()),
                    })
                });
                (module, Some(scope.pop("compiling a shader module")))
            }
        };
        let constants = key.constants();
        let scope = Scope::push(device);
        // On GL the driver compiles the program here, under wgpu's lock.
        let pipeline = lock.hold(|| compute_pipeline(device, layout, &module, &label, &constants));
        let pipeline_errors = scope.pop("building a compute pipeline");
        let checked = async {
            if let Some(errors) = module_errors {
                errors.await?;
            }
            pipeline_errors.await
        };
        if let Err(error) = checked.await {
            lock.hold(|| drop((module, pipeline)));
            return Err(error);
        }

        // A module or pipeline another thread inserted first is dropped here.
        lock.hold(|| {
            let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
            state.modules.entry(source).or_insert(module);
            Ok(state.pipelines.entry(key).or_insert(pipeline).clone())
        })
    }
}

/// The compute pipeline of `module`'s kernel under `layout` with its `override`
/// `constants`: the one way revseq builds a pipeline, for the cache and the trace
/// build alike.
pub(crate) fn compute_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    label: &str,
    constants: &[(&str, f64)],
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: Some(layout),
        module,
        entry_point: Some(KernelFile::ENTRY_POINT),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants,
            // No kernel of the operator uses workgroup memory.
            zero_initialize_workgroup_memory: false,
        },
        cache: None,
    })
}

/// The trace build's pipelines of one device (`src/lab/trace.rs` builds and
/// reads them), built once: the operators' and the staging copy's, by key,
/// layout and sample, and the two bind group layouts (the operator's, with the
/// records at binding 4; its input writable or not). Shared by every clone of a
/// [`Gpu`](crate::Gpu), whose keys name the same WGSL.
#[cfg(feature = "lab")]
#[derive(Default)]
pub(crate) struct TracePipelines {
    pub(crate) layouts:
        std::sync::Mutex<HashMap<bool, (wgpu::BindGroupLayout, wgpu::PipelineLayout)>>,
    pub(crate) pipelines: std::sync::Mutex<HashMap<(Pipeline, bool, u32), wgpu::ComputePipeline>>,
}
