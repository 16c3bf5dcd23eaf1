//! The pipeline cache: one compute pipeline per published kernel
//! ([`Kernel`](crate::program::Kernel)), keyed by its digest, built from its
//! WGSL as any executor builds it (the layout from what the entry point uses,
//! no `override` left), shared by every clone of a [`Gpu`](crate::Gpu) and
//! safe to use from many threads.

use std::sync::{Arc, PoisonError, RwLock};

use crate::bounded::Bounded;
use crate::descriptor::error::Error;
use crate::executor::device::device_lock::DeviceLock;
use crate::executor::device::scope::Scope;
use crate::plan::program::Kernel;

/// A kernel's pipeline and the layout of its bind group, which wgpu made from
/// the bindings its entry point uses: its buffers at 0..k in the order of
/// [`Dispatch::bindings`](crate::program::Dispatch::bindings), every one
/// `read_write`, its uniform at k (and the trace build's records at
/// `TRACE_BINDING`).
#[derive(Clone, Debug)]
pub(crate) struct KernelPipeline {
    pub(crate) pipeline: wgpu::ComputePipeline,
    pub(crate) layout: wgpu::BindGroupLayout,
}

/// Pipelines the cache keeps: far more than a process meets (a few a layout,
/// data and length type), so that compiling a descriptor seen before builds
/// nothing; past it the least recently used goes (a compiled operator keeps
/// its own).
const KEPT_PIPELINES: usize = 1024;

pub(crate) struct PipelineCache {
    /// By digest, each beside its kernel: a digest that two texts share
    /// builds its own pipeline, uncached.
    state: RwLock<Bounded<u64, (Arc<Kernel>, KernelPipeline)>>,
}

impl Default for PipelineCache {
    fn default() -> PipelineCache {
        PipelineCache {
            state: RwLock::new(Bounded::new(KEPT_PIPELINES)),
        }
    }
}

impl PipelineCache {
    pub(crate) fn len(&self) -> usize {
        let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
        state.len()
    }

    fn cached(&self, kernel: &Arc<Kernel>) -> Option<KernelPipeline> {
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        match state.get(&kernel.digest) {
            Some((cached, pipeline)) if same(cached, kernel) => Some(pipeline.clone()),
            _ => None,
        }
    }

    /// `kernel`'s pipeline, from the cache or built now.
    pub(crate) async fn get_or_build(
        &self,
        device: &wgpu::Device,
        lock: &DeviceLock,
        kernel: &Arc<Kernel>,
    ) -> Result<KernelPipeline, Error> {
        if let Some(pipeline) = self.cached(kernel) {
            return Ok(pipeline);
        }
        // Built without the cache's lock, which must not be held across the
        // await; two threads asking for the same new kernel may both build
        // it, and the first inserted wins.
        let scope = Scope::push(device);
        // On GL the driver compiles the program here, under wgpu's lock.
        let pipeline = lock.hold(|| build(device, &kernel.wgsl, kernel.entry_point, &kernel.label));
        if let Err(error) = scope.pop("building a compute pipeline").await {
            lock.hold(|| drop(pipeline));
            return Err(error);
        }
        // A pipeline another thread inserted first is dropped here.
        lock.hold(|| {
            let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
            match state.get(&kernel.digest) {
                Some((cached, _)) if !same(cached, kernel) => Ok(pipeline),
                _ => Ok(state
                    .insert(kernel.digest, (kernel.clone(), pipeline))
                    .1
                    .clone()),
            }
        })
    }
}

/// Whether two kernels are one text: the same kernel, shared, in practice.
fn same(a: &Arc<Kernel>, b: &Arc<Kernel>) -> bool {
    Arc::ptr_eq(a, b) || a.wgsl == b.wgsl
}

/// The pipeline of `wgsl`'s `entry_point`, its layout made from the bindings
/// the entry point uses: the one way revseq builds a pipeline, for the cache
/// and the trace build alike.
pub(crate) fn build(
    device: &wgpu::Device,
    wgsl: &str,
    entry_point: &str,
    label: &str,
) -> KernelPipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: None,
        module: &module,
        entry_point: Some(entry_point),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants: &[],
            // No kernel of the operator uses workgroup memory.
            zero_initialize_workgroup_memory: false,
        },
        cache: None,
    });
    let layout = pipeline.get_bind_group_layout(0);
    KernelPipeline { pipeline, layout }
}

/// The trace build's pipelines of one device (`src/lab/trace.rs` builds and
/// reads them), built once, by kernel digest and sample. Shared by every
/// clone of a [`Gpu`](crate::Gpu), whose kernels are the same texts.
#[cfg(all(feature = "lab", not(target_arch = "wasm32")))]
#[derive(Default)]
pub(crate) struct TracePipelines {
    pub(crate) pipelines: std::sync::Mutex<std::collections::HashMap<(u64, u32), KernelPipeline>>,
}
