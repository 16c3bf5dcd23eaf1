//! The operator as dispatches any WebGPU executor can run: for a descriptor and a
//! [`Target`] (no device), the kernels' WGSL with their constants fixed, and each
//! dispatch's workgroups and what each of its bindings holds (a window of a
//! tensor, of a scratch buffer, a placeholder, the layout uniform's bytes).
//! revseq's own [`Gpu::compile`](crate::Gpu::compile) plans the same launches
//! and records them on a wgpu device; revseq-burn launches a program on burn's
//! own compute client.
//!
//! The WGSL follows one convention, so that an executor that lays out its
//! bindings from the shader (wgpu's automatic layout, cubecl) can bind it:
//! the buffers a kernel uses at `@group(0) @binding(0..k)`, in the order of
//! [`Dispatch::bindings`], every one `read_write` (a pool that packs tensors
//! into one buffer may bind two of them from it), then its uniform at
//! `@binding(k)`. Shader modules may be made with bounds checks off: every
//! access stays inside its binding by the kernel's own arithmetic, whatever the
//! contents of the tensors and lengths. The bounds test (`tests/bounds.rs`)
//! holds revseq to it: the trace build records the index of every access as the
//! kernel computed it, before robust buffer access or naga could clamp it, for
//! every workgroup of every dispatch of thousands of random programs (every
//! family, both tunings, windowed, staged and in place, the staging copy), each
//! checked against the window its binding holds; and every line of every kernel
//! that indexes a binding is checked to be traced with the index it uses. An
//! executor may rely on this: each binding needs exactly the window
//! [`Dispatch::bindings`] gives it, nothing past it is read or written, and a
//! read that the kernel clamps (`arrayLength`) stays inside the binding too.

use std::sync::Arc;

use crate::compile::{launch_plan, Launched};
use crate::error::{Error, TensorRole};
use crate::in_place::{name_the_tensor, ReverseInPlace};
use crate::kernels::{PipelineKey, Walk};
use crate::launch::{Bound, Launch};
use crate::operator::ReverseSubsequences;
use crate::plan::Mode;
use crate::shaders::{Kernel as Entry, Source, WORKGROUP_SIZE};
use crate::variant::Variant;

pub use crate::target::Target;

/// `desc` as a program for `target`: the dispatches
/// [`Gpu::compile`](crate::Gpu::compile) would record, validated as it
/// validates.
///
/// ```
/// use revseq::program::{self, Binding, Target};
/// use revseq::{DataType, ReverseSubsequences, TensorDesc, TensorRole};
/// let target = Target::new(wgpu::Limits::default(), wgpu::DeviceType::DiscreteGpu);
/// let tensor = TensorDesc::new(DataType::Uint8, &[4, 32]);
/// let lengths = TensorDesc::new(DataType::Int32, &[4, 1]);
/// let desc = ReverseSubsequences::new(tensor.clone(), lengths, tensor, 1);
/// let program = program::program(&desc, &target)?;
/// let dispatch = &program.dispatches()[0];
/// assert!(program.kernels()[dispatch.kernel].wgsl.contains("@binding(3) var<uniform>"));
/// assert!(matches!(
///     dispatch.bindings[0],
///     Binding::Tensor { tensor: TensorRole::Input, offset: 0, size: 128 }
/// ));
/// # Ok::<(), revseq::Error>(())
/// ```
pub fn program(desc: &ReverseSubsequences, target: &Target) -> Result<Program, Error> {
    let launched = launch_plan(desc, Mode::OutOfPlace, target)?;
    Ok(Program::of(&launched, Mode::OutOfPlace))
}

/// `desc` in place as a program for `target`: the dispatches
/// [`Gpu::compile_in_place`](crate::Gpu::compile_in_place) would record. The
/// tensor is [`TensorRole::Tensor`], read and written where it lies.
pub fn program_in_place(desc: &ReverseInPlace, target: &Target) -> Result<Program, Error> {
    let operator = desc.operator()?;
    let launched = launch_plan(&operator, Mode::InPlace, target).map_err(name_the_tensor)?;
    Ok(Program::of(&launched, Mode::InPlace))
}

/// The operator as kernels and the dispatches that run them, in order.
#[derive(Clone, Debug)]
pub struct Program {
    kernels: Vec<Arc<Kernel>>,
    dispatches: Vec<Dispatch>,
    scratch: [u64; 2],
    variant: Variant,
}

impl Program {
    /// The kernels the dispatches run ([`Dispatch::kernel`] indexes them).
    pub fn kernels(&self) -> &[Arc<Kernel>] {
        &self.kernels
    }

    /// The dispatches, to run in this order; none for a tensor without
    /// elements.
    pub fn dispatches(&self) -> &[Dispatch] {
        &self.dispatches
    }

    /// Bytes of scratch buffers 0 and 1 ([`Binding::Scratch`]), 0 where the
    /// program has none: a staged piece's input and output.
    pub fn scratch_bytes(&self) -> [u64; 2] {
        self.scratch
    }

    /// The kernel family the plan chose.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    fn of(launched: &Launched, mode: Mode) -> Program {
        let operator = Arc::new(Kernel::operator(&launched.key));
        let copy = launched.scratch.map(|_| {
            Arc::new(Kernel::external(
                &launched.copying.source(),
                &launched.copying.constants(),
                COPY_USES,
            ))
        });
        let roles = match mode {
            Mode::OutOfPlace => [
                TensorRole::Input,
                TensorRole::SequenceLengths,
                TensorRole::Output,
            ],
            Mode::InPlace => [
                TensorRole::Tensor,
                TensorRole::SequenceLengths,
                TensorRole::Tensor,
            ],
        };
        let dispatches = launched
            .launches
            .iter()
            .filter(|launch| launch.workgroups[0] > 0)
            .map(|launch| {
                let (kernel, uses) = match launch.copy {
                    Some(_) => (1, COPY_USES),
                    None => (0, operator_uses(&launched.key)),
                };
                Dispatch {
                    kernel,
                    workgroups: [launch.workgroups[0], launch.workgroups[1], 1],
                    bindings: bindings(launch, uses, roles),
                }
            })
            .collect();
        Program {
            kernels: std::iter::once(operator).chain(copy).collect(),
            dispatches,
            scratch: launched.scratch.unwrap_or_default(),
            variant: launched.key.variant,
        }
    }
}

/// A kernel's WGSL, in the convention above, with its `override` constants
/// fixed as `const` declarations.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The module's text.
    pub wgsl: String,
    /// Its entry point.
    pub entry_point: &'static str,
    /// Invocations per workgroup, in x, y and z.
    pub workgroup_size: [u32; 3],
    /// A digest of `wgsl` (FNV-1a, 64 bits): equal texts, equal digests, for
    /// an executor's pipeline cache.
    pub digest: u64,
}

impl Kernel {
    fn operator(key: &PipelineKey) -> Kernel {
        Kernel::external(&key.source(), &key.constants(), operator_uses(key))
    }

    /// The kernel of `source` with `constants`, declaring the buffers `uses`
    /// names (input, lengths, output) at the first bindings, in that order, and
    /// its uniform after them.
    fn external(source: &Source, constants: &[(&str, f64)], uses: [bool; 3]) -> Kernel {
        let wgsl = external_wgsl(&source.wgsl(), constants, uses);
        let digest = wgsl.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        Kernel {
            wgsl,
            entry_point: Entry::ENTRY_POINT,
            workgroup_size: [WORKGROUP_SIZE, 1, 1],
            digest,
        }
    }
}

/// One dispatch: a kernel, its workgroups, and what each binding holds.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub struct Dispatch {
    /// Which of [`Program::kernels`] it runs.
    pub kernel: usize,
    /// Workgroups in x, y and z.
    pub workgroups: [u32; 3],
    /// `@binding(i)` holds `bindings[i]`: the buffers, then the uniform.
    pub bindings: Vec<Binding>,
}

/// What one binding of a dispatch holds.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Binding {
    /// `size` bytes of a tensor from byte `offset` (a multiple of the target's
    /// storage offset alignment): the tensor is the caller's, `size` at most the
    /// target's binding.
    Tensor {
        /// Which tensor.
        tensor: TensorRole,
        /// From its first byte.
        offset: u64,
        /// Bytes bound.
        size: u64,
    },
    /// `size` bytes of scratch buffer `buffer` (0 or 1, of
    /// [`Program::scratch_bytes`]) from byte `offset`: the executor's own
    /// memory, kept for the program's dispatches.
    Scratch {
        /// Which scratch buffer.
        buffer: usize,
        /// From its first byte.
        offset: u64,
        /// Bytes bound.
        size: u64,
    },
    /// Any buffer of at least `size` bytes: the kernel names the binding, and
    /// never reads it in this dispatch.
    Placeholder {
        /// Bytes it must hold.
        size: u64,
    },
    /// A uniform buffer holding these bytes: the dispatch's layout.
    Params {
        /// The uniform's bytes.
        bytes: Vec<u8>,
    },
}

/// The buffers the staging copy uses: input and output, no lengths.
const COPY_USES: [bool; 3] = [true, false, true];

/// The buffers `key`'s kernel uses (input, lengths, output): all, but for the
/// swaps in place, which reach the tensor through the output binding alone
/// (`columns` names its input in the branch it takes out of place).
fn operator_uses(key: &PipelineKey) -> [bool; 3] {
    let input = !(key.in_place && key.walk == Walk::None && key.variant != Variant::Columns);
    [input, true, true]
}

/// What each binding `launch` uses holds, then its uniform.
fn bindings(launch: &Launch, uses: [bool; 3], roles: [TensorRole; 3]) -> Vec<Binding> {
    let buffers = (0..3).filter(|&i| uses[i]).map(|i| {
        let window = launch.windows[i];
        let (offset, size) = (window.offset, window.size);
        match launch.buffers[i] {
            Bound::ScratchInput => Binding::Scratch {
                buffer: 0,
                offset,
                size,
            },
            Bound::ScratchOutput => Binding::Scratch {
                buffer: 1,
                offset,
                size,
            },
            Bound::Output => Binding::Tensor {
                tensor: roles[2],
                offset,
                size,
            },
            Bound::Placeholder => Binding::Placeholder { size },
            Bound::Caller => Binding::Tensor {
                tensor: roles[i],
                offset,
                size,
            },
        }
    });
    let params = Binding::Params {
        bytes: bytemuck::bytes_of(&launch.params).to_vec(),
    };
    buffers.chain(std::iter::once(params)).collect()
}

/// `wgsl` in the convention above: each `override` a `const` of its value in
/// `constants` (or of its default), the buffers in `uses` (bindings 1, 2 and 3)
/// at the first bindings in that order, `read_write`, the uniform (binding 0)
/// after them, and the buffers not in `uses` past them all (declared, never
/// bound: a layout made from the shader leaves them out).
fn external_wgsl(wgsl: &str, constants: &[(&str, f64)], uses: [bool; 3]) -> String {
    let used = uses.iter().filter(|&&u| u).count() as u32;
    let renumber = |binding: u32| match binding {
        0 => used,
        n if uses[n as usize - 1] => uses[..n as usize - 1].iter().filter(|&&u| u).count() as u32,
        n => 16 + n,
    };
    let mut out = String::with_capacity(wgsl.len());
    for line in wgsl.lines() {
        if let Some(rest) = line.strip_prefix("override ") {
            out.push_str(&constant(rest, constants));
        } else if let Some(rest) = line.strip_prefix("@group(0) @binding(") {
            let (number, rest) = rest.split_once(')').expect("a binding's number");
            let binding = renumber(number.parse().expect("a binding's number"));
            let rest = rest.replace("var<storage, read>", "var<storage, read_write>");
            out.push_str(&format!("@group(0) @binding({binding}){rest}"));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The `const` declaration for `declaration` (an `override`'s text after the
/// keyword: `NAME: TYPE;` or `NAME: TYPE = EXPRESSION;`): its value in
/// `constants` where given, else its default expression.
fn constant(declaration: &str, constants: &[(&str, f64)]) -> String {
    let body = declaration.trim_end().trim_end_matches(';');
    let (name, rest) = body.split_once(':').expect("an override's type");
    let (ty, default) = match rest.split_once('=') {
        Some((ty, default)) => (ty.trim(), Some(default.trim())),
        None => (rest.trim(), None),
    };
    let name = name.trim();
    let value = constants.iter().find(|(n, _)| *n == name).map(|&(_, v)| v);
    let expression = match (value, ty) {
        (Some(v), "u32") => format!("{}u", v as u32),
        (Some(v), "i32") => format!("{}i", v as i32),
        (Some(v), "bool") => (v != 0.0).to_string(),
        (Some(v), ty) => panic!("override {name} of type {ty} = {v}: no literal for it"),
        (None, _) => default
            .unwrap_or_else(|| panic!("override {name} has no value and no default"))
            .to_string(),
    };
    format!("const {name}: {ty} = {expression};")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::copy::Copying;
    use crate::shaders::Storage;
    use crate::tuning::Tuning;

    /// Parses and validates `kernel`'s WGSL, and returns the bindings its entry
    /// point uses, each with whether it is a uniform, and whether every storage
    /// binding is `read_write`.
    fn uses(kernel: &Kernel, int64: bool) -> (Vec<(u32, bool)>, bool) {
        let module = naga::front::wgsl::parse_str(&kernel.wgsl)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string(&kernel.wgsl)));
        let capabilities = match int64 {
            true => naga::valid::Capabilities::SHADER_INT64,
            false => naga::valid::Capabilities::empty(),
        };
        let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
            .validate(&module)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string(&kernel.wgsl)));
        assert!(module.overrides.is_empty(), "an override left");
        let entry = module
            .entry_points
            .iter()
            .position(|e| e.name == kernel.entry_point)
            .expect("the entry point");
        let used = info.get_entry_point(entry);
        let mut bindings = Vec::new();
        let mut writable = true;
        for (handle, global) in module.global_variables.iter() {
            let Some(binding) = &global.binding else {
                continue;
            };
            if used[handle].is_empty() {
                continue;
            }
            let uniform = global.space == naga::AddressSpace::Uniform;
            if let naga::AddressSpace::Storage { access } = global.space {
                writable &= access.contains(naga::StorageAccess::STORE);
            }
            bindings.push((binding.binding, uniform));
        }
        bindings.sort();
        (bindings, writable)
    }

    /// What a layout made from the shader holds: exactly the bindings
    /// `0..=k`, the buffers first, all writable, the uniform last.
    fn assert_convention(kernel: &Kernel, expected_buffers: usize, int64: bool, what: &str) {
        let (bindings, writable) = uses(kernel, int64);
        let expected: Vec<(u32, bool)> = (0..=expected_buffers as u32)
            .map(|b| (b, b == expected_buffers as u32))
            .collect();
        assert_eq!(bindings, expected, "{what}");
        assert!(writable, "{what}: a storage binding not read_write");
    }

    #[test]
    fn every_kernel_binds_what_it_uses_in_order_then_its_uniform() {
        // The first and last key of each source and in-place mode: bindings
        // and the constants' text depend on the kernel, not on the values
        // (`tests/revseq/shaders.rs` specialises every key).
        let mut keys: std::collections::BTreeMap<_, Vec<PipelineKey>> = Default::default();
        for key in PipelineKey::all() {
            keys.entry((key.source(), key.in_place, key.walk))
                .or_default()
                .push(key);
        }
        let mut checked = 0;
        for key in keys.values().flat_map(|k| [k[0], k[k.len() - 1]]) {
            let kernel = Kernel::operator(&key);
            let buffers = operator_uses(&key).iter().filter(|&&u| u).count();
            assert_convention(
                &kernel,
                buffers,
                key.source().needs_int64(),
                &format!("{key:?}"),
            );
            checked += 1;
        }
        for tuning in [Tuning::Cpu, Tuning::Gpu] {
            for storage in [Storage::Words, Storage::Vec4, Storage::U64] {
                let copying = Copying { tuning, storage };
                let kernel = Kernel::external(&copying.source(), &copying.constants(), COPY_USES);
                assert_convention(&kernel, 2, storage == Storage::U64, &format!("{copying:?}"));
            }
        }
        assert!(checked > 50, "{checked} keys");
    }

    #[test]
    fn overrides_become_constants_of_their_values_or_defaults() {
        let constants = [("ELEM_BYTES", 2.0), ("WALK", 1.0), ("SIGNED", 0.0)];
        assert_eq!(
            constant("ELEM_BYTES: u32;", &constants),
            "const ELEM_BYTES: u32 = 2u;"
        );
        assert_eq!(
            constant("WALK: bool;", &constants),
            "const WALK: bool = true;"
        );
        assert_eq!(
            constant("ELEM_WORDS: u32 = max(ELEM_BYTES / 4u, 1u);", &constants),
            "const ELEM_WORDS: u32 = max(ELEM_BYTES / 4u, 1u);"
        );
    }
}
