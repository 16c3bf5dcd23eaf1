//! Large dispatches: workgroups folded past the per-dimension limit, and
//! invocation indices past 2^16, where the kernels' division by multiplying
//! departs from small numbers.

use revseq::{DataType, Tuning, Variant};

use super::{check_on, desc, transposed};
use crate::support::{gpu, gpu_with_limits, per_element, Rng};

#[test]
fn every_variant_folds_dispatches_past_the_workgroup_limit() {
    // 16 workgroups per dimension: more than 4,096 invocations fold into y. The
    // CPU tuning's variants, whose invocations take several vectors: the GPU
    // tuning's one-vector invocations need more than 16² workgroups for these.
    let small = gpu_with_limits(|limits| limits.max_compute_workgroups_per_dimension = 16)
        .with_tuning(Tuning::Cpu);
    let mut rng = Rng::new(26);
    let cases = [
        (transposed(DataType::Float32, 4099, 3), Variant::General),
        (
            desc(DataType::Float32, &[4099, 3], 1, DataType::Uint32, None),
            Variant::Rows,
        ),
        (
            desc(DataType::Uint8, &[4099, 7], 1, DataType::Uint32, None),
            Variant::General,
        ),
        (
            desc(DataType::Float32, &[2100, 64], 1, DataType::Uint32, None),
            Variant::Rows,
        ),
        (
            desc(
                DataType::Float16,
                &[40, 64, 72],
                1,
                DataType::Int64,
                Some(&[1, 0, 0]),
            ),
            Variant::Runs,
        ),
        (
            desc(DataType::Uint8, &[80, 70000], 0, DataType::Uint32, None),
            Variant::Gather,
        ),
        (
            desc(DataType::Uint8, &[600, 9, 512], 1, DataType::Int32, None),
            Variant::Columns,
        ),
    ];
    for (d, variant) in cases {
        let op = small.compile(&d).unwrap();
        let workgroups = op.workgroups();
        assert!(
            workgroups[1] > 1,
            "{variant:?}: {workgroups:?} did not fold"
        );
        // Rows of ceil(groups / y): fewer than y of the x · y launched idle.
        let [x, y] = workgroups.map(f64::from);
        assert!(
            op.dispatch_count() > 1 || op.idle_workgroups() < y / (x * y),
            "{variant:?}: {workgroups:?}, {} idle",
            op.idle_workgroups()
        );
        check_on(&small, &mut rng, &d, variant);
    }
}

#[test]
fn invocation_indices_past_2_16_divide_exactly() {
    // Every kernel divides its invocation index by layout sizes through a multiplier
    // (`src/kernels/divisor.rs`) whose partial products differ from a plain division only
    // once the index passes 2^16. Indices into the hundreds of thousands, by sizes
    // and counts that are not powers of two, under both tunings.
    let mut rng = Rng::new(29);
    let cases = [
        // One invocation per element, by a size of 1,031.
        (transposed(DataType::Float32, 1021, 1031), Variant::General),
        // One invocation per output word, by an output stride of 1,031.
        (transposed(DataType::Uint8, 1021, 1031), Variant::General),
        // 30,011 rows of 20 vectors: 3 segments of 8, or 20 of 1.
        (
            desc(DataType::Float32, &[30011, 80], 1, DataType::Uint32, None),
            Variant::Rows,
        ),
        // 10,007 × 7 runs of 2 vectors, lengths broadcast over the batch.
        (
            desc(
                DataType::Float32,
                &[7, 10007, 8],
                0,
                DataType::Int64,
                Some(&[0, 1, 0]),
            ),
            Variant::Runs,
        ),
        // 37 runs of 3,001 columns (Columns on a CPU); on a GPU, 12 bands of 251
        // columns and 3 blocks of positions.
        (
            desc(
                DataType::Float32,
                &[37, 9, 4 * 3001],
                1,
                DataType::Uint32,
                None,
            ),
            Variant::Gather,
        ),
        // 3 runs of 5 bands of 240 columns, 20 blocks of 4 positions: Gather on both.
        (
            desc(
                DataType::Float32,
                &[3, 80, 4 * 1200],
                1,
                DataType::Int64,
                None,
            ),
            Variant::Gather,
        ),
    ];
    for tuned in [
        gpu().with_tuning(Tuning::Cpu),
        gpu().with_tuning(Tuning::Gpu),
    ] {
        for (d, variant) in &cases {
            let compiled = tuned.compile(d).unwrap();
            let [x, y] = compiled.workgroups();
            assert!(
                u64::from(x) * u64::from(y) * 256 > 1 << 16,
                "{variant:?}: {x} × {y} workgroups stay below 2^16 invocations"
            );
            // Per-element lengths: Columns or Gather as the tuning and axis decide.
            let variant = match variant {
                Variant::Gather => {
                    per_element(d.input.data_type(), d.input.sizes()[d.axis as usize], true)
                }
                other => *other,
            };
            check_on(&tuned, &mut rng, d, variant);
        }
    }
}
