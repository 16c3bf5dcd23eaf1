//! The plan: which kernel variant runs a canonical layout, and how its work is cut
//! into invocations. Decided once, on the host, from the layout alone (and the kind
//! of adapter); the kernels stay simple and the general one handles everything the
//! fast ones do not.

use crate::layout::Layout;

/// What the plan tunes the vector kernels for: how much work one invocation takes.
/// [`Gpu::from_wgpu`](crate::Gpu::from_wgpu) picks it from the adapter's device type;
/// [`Gpu::with_tuning`](crate::Gpu::with_tuning) overrides it. Results are the same
/// either way; only speed differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tuning {
    /// A CPU adapter (lavapipe, SwiftShader, WARP): lanes run in SIMD and each
    /// invocation costs a prologue and every memory instruction a loop over the
    /// lanes, so an invocation takes several vectors or axis positions, reusing what
    /// it loaded.
    Cpu,
    /// A GPU: neighbouring invocations should touch neighbouring memory, so an
    /// invocation takes one vector of a row or run, or a few axis positions.
    Gpu,
}

impl Tuning {
    /// `Cpu` for adapters of [`wgpu::DeviceType::Cpu`], `Gpu` for the rest.
    pub fn for_adapter(info: &wgpu::AdapterInfo) -> Tuning {
        if info.device_type == wgpu::DeviceType::Cpu {
            Tuning::Cpu
        } else {
            Tuning::Gpu
        }
    }
}

/// A kernel family. [`Variant::General`] runs every descriptor; the others are fast
/// paths for layouts whose innermost canonical dimension is contiguous in input and
/// output, a whole number of 16-byte vectors long, with every other stride keeping
/// those vectors aligned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// Any layout: one invocation per output element (4-, 8-, 16-byte elements) or
    /// per 32-bit output word (1-, 2-byte elements).
    General,
    /// The reversed axis is the innermost dimension: 16-byte vectors of a row, each
    /// built from a sliding window over the mirrored part of the row.
    Rows,
    /// The reversed axis is outside the innermost dimension and the length is the
    /// same along it: whole runs move from their mirrored position.
    Runs,
    /// The reversed axis is outside the innermost dimension and the length changes
    /// along it: each output vector is gathered element by element.
    Gather,
    /// As [`Variant::Gather`], on a CPU adapter, along at most 64 positions, on
    /// 16-byte vectors of elements narrower than one: each invocation holds a whole
    /// column of the axis in registers, loads and stores each vector once and
    /// reverses every element's prefix with a network of selects.
    Columns,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 5] = [
        Variant::General,
        Variant::Rows,
        Variant::Runs,
        Variant::Gather,
        Variant::Columns,
    ];

    /// The name the benchmark and test logs print.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::General => "general",
            Variant::Rows => "rows",
            Variant::Runs => "runs",
            Variant::Gather => "gather",
            Variant::Columns => "columns",
        }
    }

    /// The most steps per invocation on an adapter of this kind: vectors of a row or
    /// run (`Rows`, `Runs`) or positions along the axis (`Gather`). A CPU adapter
    /// runs lanes in SIMD and pays per memory instruction and per invocation, so
    /// several steps per invocation amortise the index math and let `Rows` reuse
    /// each load; a GPU wants neighbouring invocations on neighbouring vectors, so
    /// one vector there. `Gather` loads a column's lengths once for all its
    /// positions, and its neighbours stay on neighbouring columns, so it walks a few
    /// positions everywhere; more on a CPU for 1- and 2-byte elements, whose
    /// vectors hold 16 or 8 lengths. On lavapipe, 4 vectors for `Rows`, 16 for
    /// rows of 1- to 4-byte elements, 32 or 64 for wider ones, and 8 positions, 16
    /// or the whole axis for a wide `Gather`, measured slower, not faster; `Rows`
    /// of 8- and 16-byte elements take 16 vectors where rows are packed
    /// ([`ROWS_PACKED_STEPS`]). `Runs` interleaved over RUN_LANES invocations took
    /// 4% less time with 16 vectors each than with 8 (the ONNX layouts, 11
    /// alternating rounds of ten rows: faster in 67 of 110, median 1.27× → 1.21×
    /// the copy kernel), paying each invocation's length load over twice the
    /// vectors; 32 measured the same as 16.
    pub(crate) const fn max_steps(self, cpu: bool, element_bytes: u32, vector_bytes: u32) -> u32 {
        match (self, cpu) {
            (Variant::General, _) => 1,
            // The whole axis, up to COLUMN_ROWS positions.
            (Variant::Columns, _) => COLUMN_ROWS,
            (Variant::Gather, true) if element_bytes < 4 => 8,
            (Variant::Gather, _) => 4,
            // As many bytes per invocation on words as on 16-byte vectors. `Runs`
            // takes twice as many where a run fills RUN_LANES invocations of them.
            (Variant::Runs, true) => 2 * CPU_BYTES / vector_bytes,
            (Variant::Rows, true) if vector_bytes == 16 && element_bytes >= 8 => ROWS_PACKED_STEPS,
            (_, true) => CPU_BYTES / vector_bytes,
            (_, false) => 1,
        }
    }

    /// The vector sizes the plan may choose for elements of `element_bytes`: 16
    /// bytes, and also 4 (16-byte elements are always whole vectors); none (0) for
    /// `General`.
    pub(crate) const fn vector_sizes(self, element_bytes: u32) -> &'static [u32] {
        match self {
            Variant::General => &[0],
            Variant::Columns if element_bytes < 16 => &[16],
            Variant::Columns => &[],
            _ if element_bytes < 16 => &[16, 4],
            _ => &[16],
        }
    }

    /// The word sizes, in bits, the plan may load and store vectors of `vector_bytes`
    /// as for elements of `element_bytes`: 32, and also 64 where that measured
    /// faster. lavapipe loads and stores a vector one component at a time for each
    /// lane, so a vector as two 64-bit words costs about half the memory
    /// instructions of four 32-bit ones; `Rows` of 1- to 4-byte elements, which
    /// compute on 32-bit words, split and join them in registers (`load_vec`,
    /// `store_vec` in `bind_vec2_u64.wgsl`), and `Columns` computes on the 64-bit
    /// words whole (`Vector`). Measured on lavapipe against the same kernel on
    /// 32-bit words, alternating builds: the ONNX layouts took 0.77× the time
    /// (`Runs`, every width, three rounds, faster in 28 of 30 rows); 8- and 16-byte
    /// `innermost` and `strided` 0.80× (`Rows`, three rounds, 12 of 12), 1-, 2- and
    /// 4-byte ones 0.62× (two rounds, 12 of 12); 1- and 2-byte `middle` and
    /// `outermost` 0.66× (`Columns`, three rounds, 12 of 12); 4- and 8-byte ones
    /// 0.88× while `Columns` split its words (two runs of two rounds, 16 of 16), and
    /// 0.77× of that on whole words (three rounds, 12 of 12); 16-byte `middle` and
    /// `outermost` 0.68× (`Gather`, three rounds, 6 of 6). `Gather` of narrower
    /// elements loads one 32-bit word an element either way and keeps 32; so do
    /// kernels on 32-bit words, which a 64-bit word would not divide.
    pub(crate) const fn word_sizes(self, element_bytes: u32, vector_bytes: u32) -> &'static [u32] {
        match self {
            Variant::Runs if vector_bytes == 16 => &[32, 64],
            Variant::Rows if vector_bytes == 16 => &[32, 64],
            Variant::Columns => &[32, 64],
            Variant::Gather if vector_bytes == 16 && element_bytes >= 8 => &[32, 64],
            _ => &[32],
        }
    }

    /// Every step count the plan may choose for elements of `element_bytes` in
    /// vectors of `vector_bytes`: the powers of two up to the most.
    pub(crate) fn step_counts(
        self,
        element_bytes: u32,
        vector_bytes: u32,
    ) -> impl Iterator<Item = u32> {
        let vector_bytes = vector_bytes.max(1);
        let most = self
            .max_steps(true, element_bytes, vector_bytes)
            .max(self.max_steps(false, element_bytes, vector_bytes));
        // `Columns` holds at least a block of 8 rows.
        let least: u32 = if self == Variant::Columns { 8 } else { 1 };
        (least.ilog2()..=most.ilog2()).map(|p| 1 << p)
    }
}

/// The widest band of columns whose blocks of positions `Gather` walks before the
/// next band, in vectors: 4 KiB of each row, whose input rows stay in a CPU's L2
/// cache for axes of a few hundred positions. On lavapipe, bands of 8 and 16
/// columns (a band's input in L1) and of 1024 were slower, 32 and 64 no faster:
/// what costs is the first, unprefetchable touch of each line at a mirrored row,
/// not the cache a band lives in.
const GATHER_BAND_VECS: u32 = 256;

/// The most positions of the axis `Columns` takes: each invocation holds its
/// column's whole axis, in 8, 16, 32 or 64 rows (its steps).
pub(crate) const COLUMN_ROWS: u32 = 64;

/// Invocations of `Runs` on a CPU adapter that interleave their vectors: lavapipe's
/// SIMD width (8 lanes of 32 bits), whose lanes, run in step, then touch
/// consecutive vectors, one sequential stream rather than one per lane, as the
/// benchmark's fastest copy kernel does. On lavapipe the ONNX layouts went from
/// 1.33× to 1.30× the copy kernel's time (medians over three runs of six rows, at
/// 8 vectors an invocation). `Rows` keeps each invocation's vectors consecutive:
/// each step reuses the vector the previous one loaded. Rows of 16-byte elements
/// reuse nothing (an element is a vector), yet interleaved they measured slower on
/// lavapipe: 1.39× → 1.50× the copy kernel's time for `innermost`, 1.63× → 1.84×
/// for `strided` (medians of six alternating rounds); measured again later, 12%
/// slower for `innermost` (six alternating rounds, slower in every one). Nor does a
/// subgroup shuffle rescue it: interleaved rows that pass each loaded vector to the
/// next lane as its window's upper half (one load and one shuffle a vector, where a
/// shuffled copy kernel ran as fast as a plain one) took 1.72-1.82× the copy kernel
/// against 1.52-1.54× for 4-byte `innermost`, 1.69-2.01× against 1.47-1.56× for
/// 16-byte (two alternating rounds).
pub(crate) const RUN_LANES: u32 = 8;

/// Bytes an invocation of a vector variant takes on a CPU adapter, in the usual
/// case: 8 vectors of 16 bytes ([`Variant::max_steps`] says where it takes more).
const CPU_BYTES: u32 = 8 * 16;

/// Vectors a `Rows` invocation takes on a CPU adapter for 8- and 16-byte elements
/// where rows are packed (each row starts where the previous one ends, in input
/// and output), against 8 elsewhere. On lavapipe, packed rows (`innermost`) took
/// 0.95× the time of 8 vectors for 8-byte elements and 0.96× for 16-byte ones (four
/// alternating rounds, faster in 8 of 8), and rows with gaps of 2 and 4 elements
/// (input, output) 0.95× and 1.0×; but the benchmark's `strided` rows, with gaps
/// of 16 and 32 elements, took 1.08× and 1.11× (8 of 8 slower), so rows with gaps
/// keep 8. On 32-bit words (lavapipe through GL), packed 8-byte rows took 0.95×
/// too and 16-byte ones 0.99× (two rounds).
pub(crate) const ROWS_PACKED_STEPS: u32 = 16;

/// The subgroup size `shaders/row_length_subgroup.wgsl` is written for (lavapipe's
/// on 256-bit vectors); its broadcasts name lanes 0 to 7.
pub(crate) const SHARED_SUBGROUP: u32 = 8;

/// A variant and the counts its kernel needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) variant: Variant,
    pub(crate) steps: u32,
    /// Bytes per vector: 16, or 4 on words; 0 for `General`.
    pub(crate) vector_bytes: u32,
    /// Vectors in one row or run of the innermost dimension (vector variants).
    pub(crate) vecs: u32,
    /// Invocations per row or run (`Rows`, `Runs`), blocks of `steps` along the
    /// axis (`Gather`) or columns (vectors) per run (`Columns`).
    pub(crate) segments: u32,
    /// Columns (vectors or words) per band, and bands per run (`Gather`).
    pub(crate) band: u32,
    pub(crate) bands: u32,
    /// Invocations that interleave their vectors (`Runs`): RUN_LANES on a CPU
    /// adapter when a run fills them, else 1. Invocation i of a group of `lanes`
    /// takes every `lanes`-th vector from the group's i-th.
    pub(crate) lanes: u32,
    /// Whether each `Gather` invocation on 16-byte vectors loads a word of the next
    /// band's input ahead of its gathers: on a CPU adapter, whose gathers of 4-byte
    /// and wider elements otherwise mostly wait on memory (see `touch_ahead` in
    /// `shaders/reverse_gather.wgsl`). Those of 1- and 2-byte elements, 16 or 8
    /// gathers a vector, are bound by instructions instead: the load made them
    /// 5-25% slower on lavapipe.
    pub(crate) touch_ahead: bool,
    /// Invocations with work: at most one per output element or per output word of
    /// one window, so below 2^32.
    pub(crate) invocations: u32,
}

impl Plan {
    /// Whether each `Rows` invocation holds a whole row: rows of at most `steps`
    /// 16-byte vectors.
    pub(crate) fn whole_rows(&self) -> bool {
        self.variant == Variant::Rows && self.vector_bytes == 16 && self.vecs <= self.steps
    }

    /// Whether every `Rows` invocation has `steps` vectors of its row to write: the
    /// steps divide a row's 16-byte vectors, so that no step needs a bound.
    pub(crate) fn full_segments(&self) -> bool {
        self.variant == Variant::Rows
            && self.vector_bytes == 16
            && self.vecs.is_multiple_of(self.steps)
    }

    /// Invocations that share one load of their row's or run's length (`Rows`
    /// and `Runs` on 16-byte vectors,
    /// [`PipelineKey::share_lengths`](crate::shaders::PipelineKey)): on an
    /// adapter whose subgroups are SHARED_SUBGROUP invocations, the largest power
    /// of two that divides the invocations of a row or run, up to a subgroup, so
    /// that each aligned group of that many lies in one row; 1 where that is 1 or
    /// on any other adapter.
    pub(crate) fn share_lengths(&self, subgroup_lanes: u32) -> u32 {
        if matches!(self.variant, Variant::Rows | Variant::Runs)
            && self.vector_bytes == 16
            && subgroup_lanes == SHARED_SUBGROUP
            && self.segments > 0
        {
            (1 << self.segments.trailing_zeros()).min(SHARED_SUBGROUP)
        } else {
            1
        }
    }

    /// The `General` plan: one invocation per output element (4 bytes and wider) or
    /// per 32-bit word of the `output_bytes` the output binding spans.
    pub(crate) fn general(layout: &Layout, element_bytes: u32, output_bytes: u64) -> Plan {
        Plan {
            variant: Variant::General,
            steps: 1,
            vector_bytes: 0,
            vecs: 0,
            segments: 0,
            band: 0,
            bands: 0,
            lanes: 1,
            touch_ahead: false,
            invocations: if element_bytes < 4 {
                output_bytes.div_ceil(4)
            } else {
                layout.element_count()
            } as u32,
        }
    }

    /// The plan for `layout` of `element_bytes`-byte elements; `output_bytes` is the
    /// size of the output binding it writes through.
    pub(crate) fn new(
        layout: &Layout,
        element_bytes: u32,
        output_bytes: u64,
        tuning: Tuning,
    ) -> Plan {
        let cpu = tuning == Tuning::Cpu;
        let general = Plan::general(layout, element_bytes, output_bytes);
        let rank = layout.rank();
        let inner = layout.dims[rank - 1];
        let variant = if layout.axis == rank - 1 {
            Variant::Rows
        } else if inner.lengths == 0 {
            Variant::Runs
        } else {
            Variant::Gather
        };
        // 16-byte vectors where the layout allows, else words.
        let Some(vector) = variant
            .vector_sizes(element_bytes)
            .iter()
            .find_map(|&size| VectorLayout::of(layout, element_bytes, size))
        else {
            return general;
        };
        let elements = layout.element_count();
        let n = layout.dims[layout.axis].size;
        // `Gather` loads each element of a vector on its own, where `Columns` loads
        // and stores each vector once, in row order. A 16-byte element is a whole
        // vector, which `Gather` loads once too: there `Columns` measured no faster
        // on lavapipe (on 64-bit words whole, `middle` 1.51-1.57× the copy kernel
        // against 1.50-1.56×, `outermost` 1.44-1.46× against 1.47-1.56×, three
        // alternating rounds), and its network would reverse four copies of each
        // element's length.
        let variant = if variant == Variant::Gather
            && cpu
            && n <= COLUMN_ROWS
            && Variant::Columns
                .vector_sizes(element_bytes)
                .contains(&vector.bytes)
        {
            Variant::Columns
        } else {
            variant
        };
        let runs = elements / u64::from(inner.size);
        let most = variant.max_steps(cpu, element_bytes, vector.bytes);
        // Steps past the end of a row, run or axis would idle: no more than it holds.
        let (steps, segments, band, bands, lanes, invocations) = match variant {
            Variant::Gather => {
                // Blocks of `steps` axis positions of every column, in equal bands
                // of at most GATHER_BAND_VECS columns (so that a run just past a
                // multiple of it leaves no band mostly idle).
                let steps = most.min(n.next_power_of_two());
                let blocks = n.div_ceil(steps);
                let bands = vector.vecs.div_ceil(GATHER_BAND_VECS);
                let band = vector.vecs.div_ceil(bands);
                let columns = runs / u64::from(n) * u64::from(bands * band);
                (steps, blocks, band, bands, 1, columns * u64::from(blocks))
            }
            Variant::Columns => {
                // One invocation per column: a vector of a run and the whole axis.
                let steps = n.next_power_of_two().max(8);
                (
                    steps,
                    vector.vecs,
                    0,
                    0,
                    1,
                    runs / u64::from(n) * u64::from(vector.vecs),
                )
            }
            Variant::Runs if cpu => {
                // RUN_LANES invocations interleave the most steps where a run fills
                // them, else half as many; a run too short for that takes
                // consecutive vectors, as `Rows` does.
                let (steps, lanes) = [most, most / 2]
                    .into_iter()
                    .find(|&steps| vector.vecs >= RUN_LANES * steps)
                    .map_or(
                        ((most / 2).min(vector.vecs.next_power_of_two()), 1),
                        |steps| (steps, RUN_LANES),
                    );
                let segments = vector.vecs.div_ceil(steps * lanes) * lanes;
                (steps, segments, 0, 0, lanes, runs * u64::from(segments))
            }
            _ => {
                // Rows with gaps between them take as many bytes an invocation as
                // rows of narrower elements (ROWS_PACKED_STEPS).
                let most = if variant == Variant::Rows && !layout.packed_rows() {
                    most.min(CPU_BYTES / vector.bytes)
                } else {
                    most
                };
                let steps = most.min(vector.vecs.next_power_of_two());
                let segments = vector.vecs.div_ceil(steps);
                (steps, segments, 0, 0, 1, runs * u64::from(segments))
            }
        };
        Plan {
            variant,
            steps,
            vector_bytes: vector.bytes,
            vecs: vector.vecs,
            segments,
            band,
            bands,
            lanes,
            touch_ahead: variant == Variant::Gather
                && cpu
                && vector.bytes == 16
                && element_bytes >= 4,
            invocations: invocations as u32,
        }
    }

    /// Bits per component of the kernel's loads and stores of the tensors: 64 where
    /// [`Variant::word_sizes`] allows it, on a CPU adapter whose device has
    /// `SHADER_INT64` (`int64`), else 32. On a GPU a 16-byte vector is one access
    /// either way, and none was measured there.
    pub(crate) fn word_bits(&self, tuning: Tuning, int64: bool, element_bytes: u32) -> u32 {
        let sizes = self.variant.word_sizes(element_bytes, self.vector_bytes);
        if sizes.contains(&64) && int64 && tuning == Tuning::Cpu {
            64
        } else {
            32
        }
    }
}

/// What the vector variants need of a layout.
struct VectorLayout {
    /// Bytes per vector.
    bytes: u32,
    /// Vectors per row or run of the innermost dimension.
    vecs: u32,
}

impl VectorLayout {
    /// `Some` when the innermost dimension is contiguous in input and output, a whole
    /// number of `vector_bytes` vectors long, and every other stride keeps its rows
    /// aligned to them.
    fn of(layout: &Layout, element_bytes: u32, vector_bytes: u32) -> Option<VectorLayout> {
        let inner = *layout.dims.last()?;
        let bytes = |elements: u64| elements * u64::from(element_bytes);
        let aligned = |elements: u64| bytes(elements) % u64::from(vector_bytes) == 0;
        let fits = layout.element_count() > 0
            && inner.output == 1
            && inner.input == 1
            && aligned(inner.size.into())
            && layout.dims[..layout.rank() - 1]
                .iter()
                .all(|d| aligned(d.output) && aligned(d.input));
        fits.then_some(VectorLayout {
            bytes: vector_bytes,
            vecs: (bytes(inner.size.into()) / u64::from(vector_bytes)) as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DataType, ReverseSubsequences, TensorDesc};

    fn plan(data_type: DataType, sizes: &[u32], axis: u32, cpu: bool) -> Plan {
        let tensor = TensorDesc::new(data_type, sizes);
        plan_of(tensor.clone(), tensor, axis, cpu)
    }

    fn plan_of(input: TensorDesc, output: TensorDesc, axis: u32, cpu: bool) -> Plan {
        let tuning = if cpu { Tuning::Cpu } else { Tuning::Gpu };
        let data_type = input.data_type();
        let mut length_sizes = input.sizes().to_vec();
        length_sizes[axis as usize] = 1;
        let desc = ReverseSubsequences::new(
            input,
            TensorDesc::new(DataType::Uint32, &length_sizes),
            output,
            axis,
        );
        desc.validate().unwrap();
        Plan::new(
            &Layout::canonical(&desc),
            data_type.size_in_bytes(),
            desc.output.min_size_in_bytes(),
            tuning,
        )
    }

    #[test]
    fn the_variant_depends_on_the_layout_and_the_steps_on_the_adapter() {
        for (sizes, axis, variant) in [
            (&[100, 64][..], 1, Variant::Rows),
            (&[80, 100], 0, Variant::Gather),
            (&[100, 63], 1, Variant::Rows),
            (&[100, 3], 0, Variant::Gather),
            (&[100, 1], 1, Variant::General),
        ] {
            let cpu = plan(DataType::Float32, sizes, axis, true);
            let gpu = plan(DataType::Float32, sizes, axis, false);
            assert_eq!((cpu.variant, gpu.variant), (variant, variant));
        }
        // 64 four-byte elements are 16 vectors a row: 8 per invocation on a CPU,
        // one per invocation, neighbours on neighbours, on a GPU.
        let cpu = plan(DataType::Float32, &[100, 64], 1, true);
        let gpu = plan(DataType::Float32, &[100, 64], 1, false);
        assert_eq!((cpu.steps, cpu.segments, cpu.invocations), (8, 2, 200));
        assert_eq!((gpu.steps, gpu.segments, gpu.invocations), (1, 16, 1600));
        // Every invocation's segment is full there; rows of 20 vectors leave the last
        // segment of each row 4.
        assert!(cpu.full_segments() && gpu.full_segments());
        assert!(!plan(DataType::Float32, &[100, 80], 1, true).full_segments());
        // Packed rows of 8- and 16-byte elements take 16 vectors an invocation on
        // a CPU; rows with gaps between them, and narrower elements, 8.
        for (data_type, packed_steps) in [(DataType::Float64, 16), (DataType::Uint8, 8)] {
            let steps = |input: u32, output: u32, cpu| {
                let rows =
                    |stride| TensorDesc::new(data_type, &[100, 256]).with_strides(&[stride, 1]);
                plan_of(rows(input), rows(output), 1, cpu).steps
            };
            assert_eq!(steps(256, 256, true), packed_steps);
            assert_eq!(steps(256, 256, false), 1);
            assert_eq!(steps(256 + 16, 256 + 32, true), 8);
            assert_eq!(steps(256, 256 + 16, true), 8);
        }
        // A row of 3 vectors gets 4 steps, not 8 that would idle.
        let short = plan(DataType::Uint8, &[10, 48], 1, true);
        assert_eq!((short.steps, short.invocations), (4, 10));
        // Gather walks blocks of positions of each column: 25 vectors a run, one
        // band of them, 80 positions in 20 blocks of 4.
        let gather = plan(DataType::Float32, &[80, 100], 0, true);
        assert_eq!((gather.steps, gather.vecs, gather.band), (4, 25, 25));
        assert_eq!((gather.segments, gather.invocations), (20, 20 * 25));
        // 1-byte elements walk blocks of 8 on a CPU (along more positions than
        // `Columns` holds), 4 on a GPU.
        let gather = plan(DataType::Uint8, &[80, 160], 0, true);
        assert_eq!((gather.steps, gather.segments, gather.vecs), (8, 10, 10));
        assert_eq!(gather.invocations, 10 * 10);
        let gather = plan(DataType::Uint8, &[80, 160], 0, false);
        assert_eq!((gather.steps, gather.segments), (4, 20));
        // Only a CPU's gathers of 4-byte and wider elements on 16-byte vectors load
        // ahead; nothing else does.
        assert!(plan(DataType::Float32, &[80, 100], 0, true).touch_ahead);
        assert!(plan(DataType::Float64, &[80, 100], 0, true).touch_ahead);
        assert!(!plan(DataType::Float32, &[80, 100], 0, false).touch_ahead);
        assert!(!plan(DataType::Uint8, &[80, 160], 0, true).touch_ahead);
        assert!(!plan(DataType::Float32, &[80, 101], 0, true).touch_ahead);
        assert!(!plan(DataType::Float32, &[100, 64], 1, true).touch_ahead);
        // 515 vectors a run: three bands of 172, not two of 256 and a third of 3;
        // the last band has one idle column. An axis of 67 takes 17 blocks of 4.
        let gather = plan(DataType::Float32, &[67, 515 * 4], 0, true);
        assert_eq!((gather.steps, gather.segments, gather.band), (4, 17, 172));
        assert_eq!(gather.invocations, 17 * 3 * 172);
        let gather = plan(DataType::Float32, &[3, 67, 515 * 4], 1, true);
        assert_eq!(gather.invocations, 3 * 17 * 3 * 172);
    }

    #[test]
    fn columns_hold_short_axes_on_a_cpu() {
        // Vectors along at most 64 positions, on a CPU: the axis in 8, 16, 32 or 64
        // rows.
        for (n, steps) in [(2, 8), (8, 8), (9, 16), (17, 32), (33, 64), (64, 64)] {
            for data_type in [DataType::Uint8, DataType::Float16, DataType::Float64] {
                let p = plan(data_type, &[n, 160], 0, true);
                assert_eq!(
                    (p.variant, p.steps, p.touch_ahead),
                    (Variant::Columns, steps, false)
                );
            }
        }
        // An invocation per vector of a run; the runs are every other dimension.
        let p = plan(DataType::Float16, &[3, 40, 80], 1, true);
        assert_eq!((p.vecs, p.segments, p.invocations), (10, 10, 3 * 10));
        let p = plan(DataType::Uint8, &[5, 16 * 70], 0, true);
        assert_eq!((p.vecs, p.segments, p.invocations), (70, 70, 70));
        // Not past 64 positions, for 16-byte elements, on a GPU, or on words.
        for (data_type, sizes, cpu) in [
            (DataType::Uint8, [65, 160], true),
            (DataType::Complex128, [64, 10], true),
            (DataType::Float32, [65, 100], true),
            (DataType::Uint8, [64, 160], false),
            (DataType::Uint8, [64, 20], true),
        ] {
            assert_eq!(plan(data_type, &sizes, 0, cpu).variant, Variant::Gather);
        }
    }

    #[test]
    fn runs_interleave_their_vectors_on_a_cpu_when_a_run_fills_the_lanes() {
        // ONNX [batch, time, 4 * vecs] f32 with [batch] lengths broadcast.
        let runs = |vecs: u32, cpu: bool| {
            let sizes = [3, 5, 4 * vecs];
            let desc = ReverseSubsequences::new(
                TensorDesc::new(DataType::Float32, &sizes),
                TensorDesc::new(DataType::Int64, &[3, 1, 4 * vecs]).with_strides(&[1, 0, 0]),
                TensorDesc::new(DataType::Float32, &sizes),
                1,
            );
            desc.validate().unwrap();
            let tuning = if cpu { Tuning::Cpu } else { Tuning::Gpu };
            Plan::new(
                &Layout::canonical(&desc),
                4,
                desc.output.min_size_in_bytes(),
                tuning,
            )
        };
        // 300 vectors a run: groups of 8 invocations, 16 vectors each, cover 128;
        // three groups a run, the last partly idle.
        let cpu = runs(300, true);
        assert_eq!(cpu.variant, Variant::Runs);
        assert_eq!((cpu.steps, cpu.lanes, cpu.segments), (16, RUN_LANES, 24));
        assert_eq!(cpu.invocations, 15 * 24);
        // 100 vectors: a group of 16 each would idle; 8 each cover 64.
        let mid = runs(100, true);
        assert_eq!((mid.steps, mid.lanes, mid.segments), (8, RUN_LANES, 16));
        assert_eq!(mid.invocations, 15 * 16);
        // A run shorter than a group's 64 vectors keeps each invocation's consecutive.
        let short = runs(40, true);
        assert_eq!((short.steps, short.lanes, short.segments), (8, 1, 5));
        let tiny = runs(3, true);
        assert_eq!((tiny.steps, tiny.lanes, tiny.segments), (4, 1, 1));
        // A GPU takes one vector per invocation, neighbours on neighbours.
        let gpu = runs(100, false);
        assert_eq!((gpu.steps, gpu.lanes, gpu.segments), (1, 1, 100));
        // 64-bit words for runs of 16-byte vectors on a CPU whose device has them.
        assert_eq!(cpu.word_bits(Tuning::Cpu, true, 4), 64);
        assert_eq!(cpu.word_bits(Tuning::Cpu, false, 4), 32);
        assert_eq!(gpu.word_bits(Tuning::Gpu, true, 4), 32);
        // Rows too on 16-byte vectors, of every width, but not on 32-bit words.
        for (dtype, bytes) in [
            (DataType::Uint8, 1),
            (DataType::Float32, 4),
            (DataType::Float64, 8),
        ] {
            let rows = plan(dtype, &[100, 64], 1, true);
            assert_eq!((rows.variant, rows.vector_bytes), (Variant::Rows, 16));
            assert_eq!(rows.word_bits(Tuning::Cpu, true, bytes), 64);
        }
        let words = plan(DataType::Float32, &[100, 3], 1, true);
        assert_eq!((words.variant, words.vector_bytes), (Variant::Rows, 4));
        assert_eq!(words.word_bits(Tuning::Cpu, true, 4), 32);
        // Columns of every width.
        for (dtype, bytes) in [
            (DataType::Uint8, 1),
            (DataType::Float16, 2),
            (DataType::Float32, 4),
            (DataType::Float64, 8),
        ] {
            let columns = plan(dtype, &[64, 128], 0, true);
            assert_eq!(columns.variant, Variant::Columns);
            assert_eq!(columns.word_bits(Tuning::Cpu, true, bytes), 64);
            assert_eq!(columns.word_bits(Tuning::Cpu, false, bytes), 32);
        }
        // Gathers of 8- and 16-byte elements, not of narrower ones.
        for (dtype, bytes, bits) in [
            (DataType::Float32, 4, 32),
            (DataType::Float64, 8, 64),
            (DataType::Complex128, 16, 64),
        ] {
            let gather = plan(dtype, &[100, 64], 0, true);
            assert_eq!((gather.variant, gather.vector_bytes), (Variant::Gather, 16));
            assert_eq!(gather.word_bits(Tuning::Cpu, true, bytes), bits);
        }
    }
}
