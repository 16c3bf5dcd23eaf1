//! A program's kernel ([`Kernel`]): a family's WGSL
//! with its `override`s fixed as constants and its bindings renumbered in the
//! convention the program's docs give any executor.

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
}

impl Kernel {
    /// The operator's kernel of `key`, declaring the buffers its family uses.
    pub(crate) fn operator(key: &PipelineKey) -> Kernel {
        Kernel::external(&key.source(), &key.constants(), crate::kernels::uses(key))
    }

    /// The staging copy's kernel as `copying` moves segments.
    pub(crate) fn copy(copying: &Copying) -> Kernel {
        Kernel::external(&copying.source(), &copying.constants(), COPY_USES)
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
            entry_point: KernelFile::ENTRY_POINT,
            workgroup_size: [WORKGROUP_SIZE, 1, 1],
            digest,
        }
    }
}

/// [`Program::kernels`](crate::program::Program::kernels)' index of the operator's kernel.
pub(crate) const OPERATOR: usize = 0;

/// [`Program::kernels`](crate::program::Program::kernels)' index of the staging copy, where the program stages.
pub(crate) const COPY: usize = 1;

/// The buffers the staging copy uses: input and output, no lengths.
pub(crate) const COPY_USES: [bool; 3] = [true, false, true];

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
                let kernel = Kernel::copy(&copying);
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
