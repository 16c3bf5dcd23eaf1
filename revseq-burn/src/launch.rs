//! revseq's operator as a program (`revseq::program`) launched on burn's own
//! compute client: each kernel a cubecl kernel that brings its WGSL, each
//! dispatch a launch in the client's stream, ordered with burn's work before and
//! after it, each binding a window of a tensor's handle, of the client's scratch
//! or placeholder memory, or the dispatch's layout as the launch's uniform.
//! Nothing here touches a `wgpu::Device`: any device burn runs its WGSL
//! compiler on serves, whoever brought it up.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use burn_cubecl::cubecl::ir::{metadata::Info, settings::Dim3, UIntKind};
use burn_cubecl::cubecl::prelude::{
    AddressType, Client, CubeCount, CubeKernel, ElemType, ExecutionMode, KernelDefinition,
    KernelId, KernelMetadata, KernelSettings, PrecompiledSource, Scope,
};
use burn_cubecl::cubecl::server::{Handle, KernelArguments, MetadataBindingInfo};
use cubecl_common::device::ServiceId;
use revseq::program::{self, Binding, Program};
use revseq::TensorRole;

/// The runtime name of a cubecl wgpu client that compiles WGSL, the one
/// compiler that takes a kernel's own text (cubecl-wgpu's `runtime_name`):
/// burn's SPIR-V and MSL compilers refuse it.
const WGSL_RUNTIME: &str = "wgpu<wgsl>";

/// Whether `client` can launch revseq's kernels: a wgpu client that compiles
/// WGSL.
pub(crate) fn runs_wgsl(client: &Client) -> bool {
    client.name() == WGSL_RUNTIME
}

/// Launches of revseq's kernels in this process, and those of them in place.
static LAUNCHES: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];

/// How many programs revseq-burn has launched on burn's clients in this
/// process, and how many of them in place.
pub(crate) fn launches() -> [u64; 2] {
    LAUNCHES
        .each_ref()
        .map(|count| count.load(Ordering::Relaxed))
}

/// A kernel of a program, as cubecl launches a kernel that brings its own
/// source: keyed by its text's digest, its workgroup the cube.
struct Wgsl(Arc<program::Kernel>);

impl KernelMetadata for Wgsl {
    fn id(&self) -> KernelId {
        let [x, y, z] = self.0.workgroup_size;
        KernelId::new::<Self>()
            .info(self.0.digest)
            .cube_dim(Dim3::new_3d(x, y, z))
    }

    fn address_type(&self) -> ElemType {
        ElemType::UInt(UIntKind::U32)
    }
}

impl CubeKernel for Wgsl {
    fn define(&self) -> KernelDefinition {
        let [x, y, z] = self.0.workgroup_size;
        let settings = KernelSettings::new(
            Dim3::new_3d(x, y, z),
            ExecutionMode::Checked,
            AddressType::U32,
        );
        KernelDefinition {
            body: Scope::root(settings.clone()),
            settings,
            info: Info::default(),
        }
    }

    fn source(&self) -> Option<PrecompiledSource> {
        Some(PrecompiledSource {
            source: self.0.wgsl.clone(),
            entrypoint_name: self.0.entry_point.to_string(),
            lang: "wgsl",
        })
    }
}

/// A program ready to launch: its dispatches' uniforms as cubecl's info
/// words, made once for every launch of it.
pub(crate) struct Launch {
    program: Program,
    infos: Vec<Vec<u64>>,
}

impl Launch {
    pub(crate) fn new(program: Program) -> Launch {
        let infos = (program.dispatches().iter())
            .map(|dispatch| {
                let uniform = dispatch.bindings.iter().find_map(|binding| match binding {
                    Binding::Params { bytes } => Some(words(bytes)),
                    _ => None,
                });
                uniform.unwrap_or_default()
            })
            .collect();
        Launch { program, infos }
    }

    pub(crate) fn program(&self) -> &Program {
        &self.program
    }

    /// Launches the program on `client`, each [`Binding::Tensor`] a window of
    /// the handle `tensor` gives for its role; scratch is the client's,
    /// released when its launches are done with it, and the placeholder the
    /// client's memory this thread keeps.
    pub(crate) fn launch(&self, client: &Client, tensor: impl Fn(TensorRole) -> Handle) {
        let program = &self.program;
        let scratch = program
            .scratch_bytes()
            .map(|bytes| (bytes > 0).then(|| client.empty(bytes as usize)));
        for (dispatch, info) in program.dispatches().iter().zip(&self.infos) {
            let mut arguments = KernelArguments::new();
            for binding in &dispatch.bindings {
                arguments = match binding {
                    Binding::Tensor {
                        tensor: role,
                        offset,
                        size,
                    } => arguments.with_buffer(window(tensor(*role), *offset, *size).binding()),
                    Binding::Scratch {
                        buffer,
                        offset,
                        size,
                    } => {
                        let handle = scratch[*buffer].clone().expect("the program's scratch");
                        arguments.with_buffer(window(handle, *offset, *size).binding())
                    }
                    Binding::Placeholder { size } => {
                        arguments.with_buffer(placeholder(client, *size).binding())
                    }
                    Binding::Params { .. } => {
                        arguments.with_info(MetadataBindingInfo::custom(info.clone()))
                    }
                    other => unreachable!("revseq's programs bind no {other:?}"),
                };
            }
            let kernel = Wgsl(program.kernels()[dispatch.kernel].clone());
            let [x, y, z] = dispatch.workgroups;
            client.launch(Box::new(kernel), CubeCount::Static(x, y, z), arguments);
        }
    }
}

thread_local! {
    /// The placeholder memory each client's launches bind on this thread:
    /// a buffer the kernel names and never reads, in this thread's stream
    /// (cubecl orders memory another stream made with that stream).
    static PLACEHOLDERS: RefCell<HashMap<ServiceId, Handle>> = RefCell::default();
}

/// At least `size` bytes of `client`'s memory for a placeholder binding, kept
/// for this thread's later launches.
fn placeholder(client: &Client, size: u64) -> Handle {
    PLACEHOLDERS.with_borrow_mut(|placeholders| {
        let kept = placeholders
            .entry(client.service_id())
            .or_insert_with(|| client.empty(size as usize));
        if kept.size() < size {
            *kept = client.empty(size as usize);
        }
        kept.clone()
    })
}

/// Counts a program launched, `in_place` or not.
pub(crate) fn count(in_place: bool) {
    LAUNCHES[0].fetch_add(1, Ordering::Relaxed);
    if in_place {
        LAUNCHES[1].fetch_add(1, Ordering::Relaxed);
    }
}

/// `size` bytes of `handle` from byte `offset`: a window of the memory it names.
/// A tensor's last window reaches the end of its last 32-bit word, which may
/// pass the tensor's bytes: cubecl binds every resource to a whole word.
fn window(handle: Handle, offset: u64, size: u64) -> Handle {
    let visible = handle.size() - handle.offset_start.unwrap_or(0) - handle.offset_end.unwrap_or(0);
    let end = offset + size;
    assert!(
        end <= visible.next_multiple_of(4),
        "revseq-burn: a window of {size} bytes at {offset} past a tensor of {visible}"
    );
    handle
        .offset_start(offset)
        .offset_end(visible.saturating_sub(end))
}

/// The layout uniform's bytes as cubecl's info words: little-endian `u64`s.
fn words(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            u64::from_le_bytes(word)
        })
        .collect()
}
