//! A program's kernel ([`Kernel`]): a family's WGSL with its `override`s
//! fixed as constants and its bindings renumbered in the convention the
//! program's docs give any executor, made once for what it is made of and
//! shared by every program that runs it.

use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use crate::bounded::Bounded;
use crate::kernels::copy::Copying;
use crate::kernels::shaders::{KernelFile, Source, WORKGROUP_SIZE};
use crate::kernels::PipelineKey;

/// A kernel's WGSL, in the convention of [`program`](crate::program), with its `override` constants
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
    /// A name for the objects an executor builds of it: its family's file
    /// (`revseq::rows/rows`).
    pub label: String,
    /// Which of the input, the lengths and the output it uses: the buffers a
    /// dispatch of it binds first, those used, in that order.
    pub uses: [bool; 3],
    /// What it is made of.
    pub(crate) of: KernelOf,
}

/// What a kernel is made of: the operator's pipeline key, or how the staging
/// copy moves segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum KernelOf {
    Operator(PipelineKey),
    Copy(Copying),
}

impl KernelOf {
    /// The kernel, made on the first ask and shared after
    /// ([`KEPT_KERNELS`] are kept).
    pub(crate) fn kernel(self) -> Arc<Kernel> {
        let made = || MADE.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(kernel) = made().get(&self) {
            return kernel.clone();
        }
        // Made without the lock: two threads may both make a new one, and
        // the first kept wins.
        let kernel = Arc::new(self.make());
        made().insert(self, kernel).clone()
    }

    /// Its WGSL before the convention: the family's files, composed.
    pub(crate) fn source(self) -> Source {
        match self {
            KernelOf::Operator(key) => key.source(),
            KernelOf::Copy(copying) => copying.source(),
        }
    }

    /// Values for the `override` constants of its source.
    pub(crate) fn constants(self) -> Vec<(&'static str, f64)> {
        match self {
            KernelOf::Operator(key) => key.constants(),
            KernelOf::Copy(copying) => copying.constants(),
        }
    }

    /// The buffers it uses (input, lengths, output): those it binds first, in
    /// that order.
    pub(crate) fn uses(self) -> [bool; 3] {
        match self {
            KernelOf::Operator(key) => crate::kernels::uses(&key),
            KernelOf::Copy(_) => COPY_USES,
        }
    }

    /// A name for the objects an executor builds of it: its family's file
    /// (`revseq::rows/rows`).
    pub(crate) fn label(self) -> String {
        self.source().label()
    }

    fn make(self) -> Kernel {
        let wgsl = external_wgsl(&self.source().wgsl(), Some(&self.constants()), self.uses());
        Kernel {
            digest: digest(&wgsl),
            wgsl,
            entry_point: KernelFile::ENTRY_POINT,
            workgroup_size: [WORKGROUP_SIZE, 1, 1],
            label: self.label(),
            uses: self.uses(),
            of: self,
        }
    }
}

impl Kernel {
    /// The trace build of this kernel, in the same convention, tracing every
    /// `every`-th workgroup into the records at [`TRACE_BINDING`]
    /// (`src/lab/trace.rs`).
    #[cfg(all(feature = "lab", not(target_arch = "wasm32")))]
    pub(crate) fn traced_wgsl(&self, every: u32) -> String {
        let mut constants = self.of.constants();
        constants.push(("TRACE_EVERY", f64::from(every.max(1))));
        external_wgsl(
            &self.of.source().traced_wgsl(),
            Some(&constants),
            self.of.uses(),
        )
    }
}

/// The laboratory's door onto every kernel a program can give, as programs
/// give it: what the shader test translates for each backend.
#[cfg(feature = "lab")]
impl Kernel {
    /// The operator's kernel for `key`.
    pub fn of_key(key: PipelineKey) -> Kernel {
        KernelOf::Operator(key).make()
    }

    /// Every staging copy kernel: each tuning, each storage it moves.
    pub fn copies() -> Vec<Kernel> {
        use crate::kernels::shaders::Storage;
        use crate::kernels::tuning::Tuning;
        let copying = |tuning, storage| KernelOf::Copy(Copying { tuning, storage }).make();
        [Tuning::Cpu, Tuning::Gpu]
            .into_iter()
            .flat_map(|tuning| {
                [Storage::Words, Storage::Vec4, Storage::U64]
                    .map(|storage| copying(tuning, storage))
            })
            .collect()
    }

    /// Whether it needs 64-bit integers of the device.
    pub fn needs_int64(&self) -> bool {
        self.of.source().needs_int64()
    }
}

/// Kernels [`KernelOf::kernel`] keeps: more than a process meets in practice
/// (a few a layout, data and length type), so that a new program for a
/// descriptor seen before makes no text.
const KEPT_KERNELS: usize = 256;

static MADE: LazyLock<Mutex<Bounded<KernelOf, Arc<Kernel>>>> =
    LazyLock::new(|| Mutex::new(Bounded::new(KEPT_KERNELS)));

/// FNV-1a, 64 bits, of `text`.
fn digest(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// [`Program::kernels`](crate::program::Program::kernels)' index of the operator's kernel.
pub(crate) const OPERATOR: usize = 0;

/// [`Program::kernels`](crate::program::Program::kernels)' index of the staging copy, where the program stages.
pub(crate) const COPY: usize = 1;

/// The buffers the staging copy uses: input and output, no lengths.
pub(crate) const COPY_USES: [bool; 3] = [true, false, true];

/// Where the trace build's records bind: past every buffer a kernel uses or
/// declares unused (17 to 19).
#[cfg(all(feature = "lab", not(target_arch = "wasm32")))]
pub(crate) const TRACE_BINDING: u32 = 16;

/// `wgsl` in the convention above: each `override` a `const` of its value in
/// `constants` (or of its default; left an `override` where `constants` is
/// `None`, for the laboratory's own kernels), the buffers in `uses` (bindings 1, 2 and 3)
/// at the first bindings in that order, `read_write`, the uniform (binding 0)
/// after them, and the buffers not in `uses` past them all (declared, never
/// bound: a layout made from the shader leaves them out); the trace build's
/// records (binding 4) at 16.
pub(crate) fn external_wgsl(
    wgsl: &str,
    constants: Option<&[(&str, f64)]>,
    uses: [bool; 3],
) -> String {
    let used = uses.iter().filter(|&&u| u).count() as u32;
    let renumber = |binding: u32| match binding {
        0 => used,
        4.. => 16,
        n if uses[n as usize - 1] => uses[..n as usize - 1].iter().filter(|&&u| u).count() as u32,
        n => 16 + n,
    };
    let mut out = String::with_capacity(wgsl.len());
    for line in wgsl.lines() {
        if let Some((rest, constants)) = line.strip_prefix("override ").zip(constants) {
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
    use crate::kernels::shaders::Storage;
    use crate::kernels::tuning::Tuning;

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
        // (`tests/shaders.rs` specialises every key).
        let mut keys: std::collections::BTreeMap<_, Vec<PipelineKey>> = Default::default();
        for key in PipelineKey::all() {
            keys.entry((key.source(), key.in_place, key.walk))
                .or_default()
                .push(key);
        }
        let mut checked = 0;
        for key in keys.values().flat_map(|k| [k[0], k[k.len() - 1]]) {
            let kernel = KernelOf::Operator(key).make();
            let buffers = crate::kernels::uses(&key).iter().filter(|&&u| u).count();
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
                let kernel = KernelOf::Copy(copying).make();
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

    /// Whether the cache holds `kernel` itself.
    fn still_kept(kernel: &Arc<Kernel>) -> bool {
        let made = MADE.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = made.iter().any(|(_, kept)| Arc::ptr_eq(kept, kernel));
        kept
    }

    /// How many kernels are kept, and the bytes of their text.
    fn kept() -> (usize, usize) {
        let made = MADE.lock().unwrap_or_else(PoisonError::into_inner);
        let bytes = made.values().map(|k| k.wgsl.len()).sum();
        (made.len(), bytes)
    }

    /// Programs of thousands of shapes share the kernels of their keys, each
    /// made once: a program for a shape seen before, or another shape of the
    /// same key, makes no text.
    #[test]
    fn programs_of_many_shapes_share_kernels_made_once() {
        use crate::program::{program, Target};
        use crate::{DataType, ReverseSubsequences, TensorDesc};
        let target = Target::new(wgpu::Limits::default(), wgpu::DeviceType::DiscreteGpu);
        let mut seen: std::collections::HashMap<u64, Arc<Kernel>> = Default::default();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n) as u32 + 1
        };
        for _ in 0..3000 {
            // An RNN batch: [batch, time, features], [batch] lengths.
            let sizes = [next(64), next(512), next(1024)];
            let data_type = [DataType::Float32, DataType::Float16][next(2) as usize - 1];
            let tensor = TensorDesc::new(data_type, &sizes);
            let lengths =
                TensorDesc::new(DataType::Int64, &[sizes[0], 1, sizes[2]]).with_strides(&[1, 0, 0]);
            let desc = ReverseSubsequences::new(tensor.clone(), lengths, tensor, 1);
            for kernel in program(&desc, &target).unwrap().kernels() {
                let first = seen.entry(kernel.digest).or_insert_with(|| kernel.clone());
                // Other tests fill the cache meanwhile: a kernel is made again
                // only once the first one made has left it (it never returns),
                // so one the cache still holds is the one every program got.
                assert!(
                    Arc::ptr_eq(first, kernel) || !still_kept(first),
                    "a kernel made twice while kept: {:?}",
                    kernel.of
                );
                *first = kernel.clone();
            }
        }
        assert!(
            seen.len() < 64,
            "{} kernels for one layout class",
            seen.len()
        );
        assert!(kept().0 <= KEPT_KERNELS);
    }

    /// However many keys a process meets, the kept kernels stay within their
    /// bound, their text with them.
    #[test]
    fn kept_kernels_stay_within_their_bound() {
        let mut most = 0;
        for (n, key) in PipelineKey::all()
            .step_by(37)
            .take(3 * KEPT_KERNELS)
            .enumerate()
        {
            drop(KernelOf::Operator(key).kernel());
            let (count, bytes) = kept();
            assert!(count <= KEPT_KERNELS, "{count} kernels kept");
            if n == KEPT_KERNELS {
                most = bytes;
            }
            // Kernels differ in length: the text kept stays near what a full
            // cache held.
            assert!(
                n <= KEPT_KERNELS || bytes < 2 * most,
                "{bytes} bytes kept, {most} at first"
            );
        }
    }
}
