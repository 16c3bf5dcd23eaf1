//! Autotune (`Gpu::with_autotune`): the plan it runs is one some family
//! serves and exact, out of place and in place; its choice is kept for the
//! descriptor's class; it is off by default on a CPU adapter.

use std::collections::BTreeSet;

use revseq::{DataType, Gpu, ReverseInPlace, ReverseSubsequences, Variant};

use crate::in_place::{check_on, random_strided};
use crate::support::{assert_matches_reference_on, gpu, Rng};
use crate::variants::desc;

/// Whether `variant` serves `desc` out of place: what the plan takes when
/// forced to it.
fn serves(variant: Variant, desc: &ReverseSubsequences) -> bool {
    let forced = gpu().with_variant(Some(variant));
    forced.compile(desc).unwrap().variant() == variant
}

fn out_of_place(d: &ReverseInPlace) -> ReverseSubsequences {
    ReverseSubsequences::new(
        d.tensor.clone(),
        d.sequence_lengths.clone(),
        d.tensor.clone(),
        d.axis,
    )
}

#[test]
fn tuned_plans_are_exact_in_either_mode_and_kept_by_class() {
    let tuned = gpu().with_autotune(true).with_autotune_floor(0);
    assert!(tuned.autotunes() || cfg!(target_arch = "wasm32"));
    let mut rng = Rng::new(89);
    let mut variants = BTreeSet::new();
    let cases = 16;
    for case in 0..cases {
        let d = random_strided(&mut rng, case, [1, 4], 9, 3);
        let operator = out_of_place(&d);
        let compiled = tuned.compile(&operator).unwrap();
        let variant = compiled.variant();
        assert!(serves(variant, &operator), "{variant:?} for {operator:?}");
        variants.insert(variant);
        // Kept: the same class compiles to the same plan without timing again.
        let classes = tuned.tuned_classes();
        assert_eq!(tuned.compile(&operator).unwrap().variant(), variant);
        assert_eq!(tuned.tuned_classes(), classes);
        let input = rng.bytes(operator.input.min_size_in_bytes() as usize);
        let lengths = rng.bytes(operator.sequence_lengths.min_size_in_bytes() as usize);
        assert_matches_reference_on(&tuned, &operator, &input, &lengths);
        check_on(&tuned, &mut rng, &d, case % 3 == 0);
    }
    // At most a class a descriptor and mode; the families it ran.
    let classes = tuned.tuned_classes();
    assert!(classes > 0 && classes <= 2 * cases, "{classes} classes");
    eprintln!("autotune: {classes} classes for {cases} descriptors in two modes, ran {variants:?}");
}

#[test]
fn autotune_is_the_callers_to_change_and_off_by_default_on_a_cpu_adapter() {
    let default = match std::env::var("REVSEQ_AUTOTUNE").as_deref() {
        Ok("on" | "1" | "true") => true,
        Ok("off" | "0" | "false") => false,
        _ => gpu().adapter_info().device_type != wgpu::DeviceType::Cpu,
    };
    assert_eq!(gpu().autotunes(), default);
    let off = gpu().with_autotune(false);
    assert!(!off.autotunes());
    let d = random_strided(&mut Rng::new(3), 2, [2, 2], 6, 2);
    off.compile(&out_of_place(&d)).unwrap();
    assert_eq!(
        off.tuned_classes(),
        0,
        "nothing timed where autotune is off"
    );
    let on = Gpu::with_autotune(&off, true).with_autotune_floor(0);
    on.compile(&out_of_place(&d)).unwrap();
    assert_eq!(on.tuned_classes(), 1);
}

#[test]
fn choices_saved_as_text_are_taken_by_a_later_device_and_stale_ones_ignored() {
    // Rows, which a fast path serves.
    let operator = desc(DataType::Float32, &[6, 32], 1, DataType::Uint32, None);
    let d = ReverseInPlace::new(
        operator.input.clone(),
        operator.sequence_lengths.clone(),
        operator.axis,
    );
    let first = gpu().with_autotune(true).with_autotune_floor(0);
    let tuned = first.compile(&operator).unwrap().variant();
    first.compile_in_place(&d).unwrap();
    let text = first.autotune_choices();
    assert!(text.starts_with("revseq autotune "), "{text}");
    let is_choice = |line: &&str| line.split(' ').next().is_some_and(|d| d.len() == 16);
    assert_eq!(text.lines().filter(is_choice).count(), 2, "{text}");

    // A later device takes them: made to choose another family than the one
    // timing chose, it runs that family.
    let other = match tuned {
        Variant::General => Variant::Rows,
        _ => Variant::General,
    };
    let edited: String = text
        .lines()
        .map(|line| match line.split(' ').collect::<Vec<_>>()[..] {
            [digest, _, _] if digest.len() == 16 => format!("{digest} gpu {}\n", other.name()),
            _ => format!("{line}\n"),
        })
        .collect();
    let later = gpu().with_autotune(true).with_autotune_floor(0);
    assert_eq!(later.load_autotune_choices(&edited), 2, "{edited}");
    assert_eq!(later.compile(&operator).unwrap().variant(), other);
    assert_eq!(later.compile_in_place(&d).unwrap().variant(), other);
    let input = Rng::new(5).bytes(operator.input.min_size_in_bytes() as usize);
    let lengths = Rng::new(6).bytes(operator.sequence_lengths.min_size_in_bytes() as usize);
    assert_matches_reference_on(&later, &operator, &input, &lengths);
    // Saved again, the loaded choices stay.
    assert_eq!(later.autotune_choices(), edited);

    // Another version's, or not choices at all: ignored, nothing taken.
    let stale = edited.replacen("\nrevseq ", "\nrevseq 0.0.0-", 1);
    let fresh = gpu().with_autotune(true).with_autotune_floor(0);
    assert_eq!(fresh.load_autotune_choices(&stale), 0);
    assert_eq!(fresh.load_autotune_choices("not a cache"), 0);
    let corrupt = edited.replace(&format!(" gpu {}", other.name()), " gpu sideways");
    assert_eq!(fresh.load_autotune_choices(&corrupt), 0);
    assert_eq!(
        fresh.autotune_choices().lines().count(),
        4,
        "the header alone"
    );
}

#[test]
fn descriptors_past_the_tuning_bound_are_tuned_on_a_smaller_one_of_their_layout() {
    let bound = 64 << 10;
    let tuned = gpu()
        .with_autotune(true)
        .with_autotune_floor(0)
        .with_autotune_bytes(bound);
    assert_eq!(tuned.autotune_bytes(), bound);
    assert_eq!(gpu().autotune_bytes(), revseq::MAX_TUNING_BYTES);
    let mut rng = Rng::new(90);
    let mut operators = vec![
        // Packed, the axis in the middle; one dimension alone, the axis.
        desc(DataType::Float32, &[64, 33, 24], 1, DataType::Uint32, None),
        desc(DataType::Uint8, &[300_000], 0, DataType::Int64, None),
    ];
    // Strided: gaps between the elements.
    for case in 0..4 {
        let d = random_strided(&mut rng, case, [2, 3], 60, 2);
        if d.tensor.min_size_in_bytes() > bound {
            operators.push(out_of_place(&d));
        }
    }
    assert!(operators.len() > 2, "random descriptors past the bound");
    for (case, operator) in operators.iter().enumerate() {
        // A device of its own: its choices start empty.
        let tuned = tuned.with_autotune(true);
        let compiled = tuned.compile(operator).unwrap();
        assert_eq!(tuned.tuned_classes(), 1, "{operator:?}");
        assert!(serves(compiled.variant(), operator), "{operator:?}");
        let input = rng.bytes(operator.input.min_size_in_bytes() as usize);
        let lengths = rng.bytes(operator.sequence_lengths.min_size_in_bytes() as usize);
        assert_matches_reference_on(&tuned, operator, &input, &lengths);
        let d = ReverseInPlace::new(
            operator.input.clone(),
            operator.sequence_lengths.clone(),
            operator.axis,
        );
        if d.validate().is_ok() {
            check_on(&tuned, &mut rng, &d, case % 2 == 0);
            assert_eq!(tuned.tuned_classes(), 2, "{d:?}");
        }
    }
}

#[test]
fn autotune_times_by_the_devices_timestamps_where_it_has_them_else_by_the_host() {
    // `Gpu::new` asks for timestamps where the adapter has them.
    let adapter = pollster::block_on(revseq::adapter_from_env()).unwrap();
    let timestamps = wgpu::Features::TIMESTAMP_QUERY;
    assert_eq!(
        gpu().device().features().contains(timestamps),
        adapter.features().contains(timestamps)
    );
    // A device without them tunes by the host's clock, to the same exact plans.
    let (device, queue) = pollster::block_on(adapter.request_device(&Default::default())).unwrap();
    assert!(!device.features().contains(timestamps));
    let plain = Gpu::from_wgpu(device, queue)
        .with_autotune(true)
        .with_autotune_floor(0);
    let mut rng = Rng::new(91);
    for case in 0..4 {
        let d = random_strided(&mut rng, case, [1, 4], 9, 3);
        let operator = out_of_place(&d);
        let variant = plain.compile(&operator).unwrap().variant();
        assert!(serves(variant, &operator), "{variant:?} for {operator:?}");
        let input = rng.bytes(operator.input.min_size_in_bytes() as usize);
        let lengths = rng.bytes(operator.sequence_lengths.min_size_in_bytes() as usize);
        assert_matches_reference_on(&plain, &operator, &input, &lengths);
    }
    assert!(plain.tuned_classes() > 0);
}

#[test]
fn a_device_lost_while_tuning_gives_device_lost_and_keeps_no_choice() {
    // Timed by the device's timestamps, where it has them, and by the host;
    // past the bound on odd cases, so tuned on a smaller descriptor.
    let device = |case: usize| {
        let gpu = match case % 2 {
            0 => Gpu::new().unwrap(),
            _ => crate::support::gpu_with_limits(|_| {}),
        };
        gpu.with_autotune(true)
            .with_autotune_floor(0)
            .with_autotune_bytes(256 << 10)
    };
    let operator = |case: usize| {
        let rows = [64, 8192][case % 2];
        desc(DataType::Float32, &[rows, 24, 8], 1, DataType::Uint32, None)
    };
    // How long each case tunes undisturbed: the loss strikes within it, or
    // just after. The shortest of three fresh devices' tunings: the first
    // also compiles the candidates' shaders cold, which the cases after it
    // find in the driver's cache, and would draw delays mostly past the end.
    let took: Vec<u64> = (0..2)
        .map(|case| {
            let tuning = || {
                let start = std::time::Instant::now();
                device(case).compile(&operator(case)).unwrap();
                start.elapsed().as_micros() as u64
            };
            (0..3).map(|_| tuning()).min().unwrap_or(0).max(1)
        })
        .collect();
    let mut rng = Rng::new(92);
    let (mut lost, mut tuned) = (0, 0);
    for case in 0..12 {
        let (gpu, operator) = (device(case), operator(case));
        let delay = std::time::Duration::from_micros(rng.below(took[case % 2] * 5 / 4));
        let result = std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(delay);
                gpu.device().destroy();
            });
            gpu.compile(&operator).map(|compiled| compiled.variant())
        });
        match result {
            Ok(variant) => {
                assert!(serves(variant, &operator), "{variant:?}");
                assert_eq!(gpu.tuned_classes(), 1);
                tuned += 1;
            }
            Err(revseq::Error::DeviceLost { .. }) => {
                assert_eq!(gpu.tuned_classes(), 0, "a choice kept from a lost device");
                lost += 1;
            }
            Err(other) => panic!("case {case}: {other}"),
        }
    }
    eprintln!("tuning struck by a loss: {lost} lost, {tuned} finished first");
    assert!(lost > 0, "no loss struck while tuning");
}

#[test]
fn threads_compiling_a_new_class_at_once_tune_it_once() {
    let tuned = gpu().with_autotune(true).with_autotune_floor(0);
    let operator = desc(DataType::Float16, &[48, 40, 6], 1, DataType::Uint32, None);
    let variants: Vec<Variant> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..8)
            .map(|_| scope.spawn(|| tuned.compile(&operator).unwrap().variant()))
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    // The first to arrive timed the candidates; the others waited for it and
    // took its choice.
    assert_eq!(tuned.tunings(), 1, "{variants:?}");
    assert_eq!(tuned.tuned_classes(), 1);
    assert!(variants.iter().all(|v| *v == variants[0]), "{variants:?}");
    assert!(serves(variants[0], &operator), "{variants:?}");
}

#[test]
fn descriptors_below_the_floor_keep_the_static_choice_untimed() {
    let tuned = gpu().with_autotune(true);
    let untuned = gpu().with_autotune(false);
    let small = desc(DataType::Float32, &[64, 24, 8], 1, DataType::Uint32, None);
    assert!(small.output.min_size_in_bytes() < revseq::MIN_TUNED_BYTES);
    let variant = tuned.compile(&small).unwrap().variant();
    assert_eq!(variant, untuned.compile(&small).unwrap().variant());
    // Decided, kept, and nothing built past the static plan's kernels.
    assert_eq!(tuned.tuned_classes(), 1);
    assert_eq!(tuned.tunings(), 1);
    assert_eq!(tuned.cached_pipelines(), untuned.cached_pipelines());
}

#[test]
fn a_thread_holding_the_device_lock_never_waits_for_a_tuning() {
    // On GL a tuning takes the device's lock (`DeviceLock`), which a caller's
    // thread may hold while it compiles: that compile must not wait for the
    // tuning, or neither ends. Elsewhere the lock locks nothing.
    let tuned = gpu().with_autotune(true).with_autotune_floor(0);
    let operator = desc(DataType::Uint16, &[40, 56, 6], 1, DataType::Int32, None);
    let lock = tuned.device_lock();
    for _ in 0..4 {
        let tuned = tuned.with_autotune(true);
        let variants: Vec<Variant> = std::thread::scope(|scope| {
            let tuning = scope.spawn(|| tuned.compile(&operator).unwrap().variant());
            let holding = scope.spawn(|| lock.hold(|| tuned.compile(&operator).unwrap().variant()));
            [tuning.join().unwrap(), holding.join().unwrap()].into()
        });
        assert!(
            variants.iter().all(|v| serves(*v, &operator)),
            "{variants:?}"
        );
        assert_eq!(tuned.tunings(), 1, "{variants:?}");
    }
    let input = Rng::new(7).bytes(operator.input.min_size_in_bytes() as usize);
    let lengths = Rng::new(8).bytes(operator.sequence_lengths.min_size_in_bytes() as usize);
    assert_matches_reference_on(&tuned, &operator, &input, &lengths);
}
