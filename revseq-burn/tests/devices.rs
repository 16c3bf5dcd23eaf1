//! revseq-burn for a user of several devices and threads: a device's first use
//! from several threads at once, several devices (burn's default, autodiff over
//! it, burn's CPU backend, an application's own `wgpu::Device`) from several
//! threads at once with tensors moved between them, lengths on the plain device
//! of an autodiff input, and the size error on a runtime whose page an
//! application lowered. `.ci/test` also runs these with every core kept busy.

use std::io::Write;
use std::sync::{Arc, Barrier};

use burn::tensor::{Device, DeviceKind, Int, Tensor, TensorData};
use revseq::{reference, wgpu};
use revseq_burn::{reverse_sequence, Error, KernelPath};

/// The default adapter, asked of wgpu itself so that no burn device is
/// brought up by asking. Without one the tests fail, saying how to get one.
fn adapter() -> wgpu::Adapter {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        pollster::block_on(instance.request_adapter(&Default::default())).unwrap_or_else(|e| {
            panic!(
                "revseq-burn tests need a wgpu adapter and found none: {e}\n\
                 On Debian or Ubuntu: apt-get update && apt-get install -y mesa-vulkan-drivers"
            )
        });
    let _ = writeln!(
        std::io::stderr(),
        "revseq-burn device tests on adapter {:?} ({:?})",
        adapter.get_info().name,
        adapter.get_info().backend
    );
    adapter
}

/// burn's runtime on the application's own device of the default adapter, its
/// limits the adapter's with `lower` applied: a runtime of its own.
fn own_device(lower: impl FnOnce(&mut wgpu::Limits)) -> Device {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))
        .expect("a wgpu adapter: apt-get install -y mesa-vulkan-drivers");
    let mut limits = adapter.limits();
    lower(&mut limits);
    // The adapter's features, as burn requires of a device it is handed: its
    // runtime takes the adapter's features for the device's (64-bit integers
    // among them), and so do revseq's plans there.
    let features = adapter.features() - wgpu::Features::MAPPABLE_PRIMARY_BUFFERS;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("revseq-burn tests, the application's own device"),
        required_features: features,
        required_limits: limits,
        ..Default::default()
    }))
    .expect("a device of the default adapter");
    let backend = adapter.get_info().backend;
    let setup = burn::tensor::wgpu::WgpuSetup {
        instance,
        adapter,
        device,
        queue,
        backend,
    };
    Device::wgpu_options()
        .setup(setup)
        .init()
        .expect("burn registers the application's device")
}

/// Reverses a `[3, time]` f32 tensor on `device` by `lens` along 1, and checks
/// the bytes against revseq's host reference.
fn reverse_and_check(device: &Device, time: usize, lens: [i64; 3], seed: f32) {
    let host: Vec<f32> = (0..3 * time).map(|i| i as f32 * 0.5 + seed).collect();
    let x = Tensor::<2>::from_data(TensorData::new(host.clone(), [3, time]), device);
    let lengths = Tensor::<1, Int>::from_data(TensorData::new(lens.to_vec(), [3]), device);
    let y = reverse_sequence(x, lengths, 0, 1).unwrap_or_else(|e| panic!("{device:?}: {e}"));
    let expected = reference::reverse_sequence(&host, &[3, time], &lens, 0, 1).unwrap();
    assert_eq!(
        y.into_data().try_to_vec::<f32>().unwrap(),
        expected,
        "{device:?}"
    );
}

#[test]
fn a_device_first_used_from_several_threads_at_once() {
    // A kind no other test here uses: burn brings its runtime up lazily, on
    // whichever of the threads gets there first.
    let kind = match adapter().get_info().device_type {
        wgpu::DeviceType::Cpu => DeviceKind::Cpu,
        _ => DeviceKind::DiscreteGpu(0),
    };
    let device = Device::wgpu(kind);
    let before = revseq_burn::lab::kernel_runs()[0];
    let start = Arc::new(Barrier::new(6));
    let workers: Vec<_> = (0..6)
        .map(|t| {
            let (device, start) = (device.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                for round in 0..3 {
                    reverse_and_check(&device, 17 + t, [17 + t as i64, 3, 0], round as f32);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    assert_eq!(revseq_burn::path(&device), KernelPath::Kernels);
    assert!(revseq_burn::lab::kernel_runs()[0] >= before + 18);
}

#[test]
fn several_devices_from_several_threads_at_once() {
    let own = own_device(|_| {});
    let devices = [
        Device::default(),
        Device::default().autodiff(),
        Device::flex(),
        own.clone(),
    ];
    assert_eq!(revseq_burn::path(&own), KernelPath::Kernels);
    let start = Arc::new(Barrier::new(2 * devices.len()));
    let workers: Vec<_> = (0..2 * devices.len())
        .map(|t| {
            let (device, next) = (
                devices[t % devices.len()].clone(),
                devices[(t + 1) % devices.len()].clone(),
            );
            let start = start.clone();
            std::thread::spawn(move || {
                start.wait();
                for round in 0..3 {
                    reverse_and_check(&device, 9 + round, [4, 9, 2], t as f32);
                    // Reversed on one device, moved, and reversed back on the next.
                    let host: Vec<f32> = (0..24).map(|i| (i * (t + 1)) as f32).collect();
                    let x = Tensor::<2>::from_data(TensorData::new(host.clone(), [3, 8]), &device);
                    let lens = |d: &Device| Tensor::<1, Int>::from_ints([8, 5, 1], d);
                    let y = reverse_sequence(x, lens(&device), 0, 1).unwrap();
                    let back = reverse_sequence(y.to_device(&next), lens(&next), 0, 1).unwrap();
                    assert_eq!(back.into_data().try_to_vec::<f32>().unwrap(), host);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
}

#[test]
fn lengths_on_the_plain_device_of_an_autodiff_input_are_accepted() {
    // burn's device equality does not tell a device from its autodiff: the
    // lengths carry no gradient, and the call is exact, its gradient too.
    for plain in [Device::default(), Device::flex()] {
        let autodiff = plain.clone().autodiff();
        assert_eq!(autodiff, plain, "burn's equality");
        let host: Vec<f32> = (0..12).map(|i| i as f32).collect();
        let x =
            Tensor::<2>::from_data(TensorData::new(host.clone(), [2, 6]), &autodiff).require_grad();
        let lens = Tensor::<1, Int>::from_ints([4, 6], &plain);
        let y = reverse_sequence(x.clone(), lens, 0, 1).unwrap();
        let expected = reference::reverse_sequence(&host, &[2, 6], &[4i64, 6], 0, 1).unwrap();
        assert_eq!(y.clone().into_data().try_to_vec::<f32>().unwrap(), expected);
        let weights: Vec<f32> = (0..12).map(|i| (i * i) as f32).collect();
        let w = Tensor::<2>::from_data(TensorData::new(weights.clone(), [2, 6]), &autodiff);
        let grads = (y * w).sum().backward();
        let grad = x
            .grad(&grads)
            .unwrap()
            .into_data()
            .try_to_vec::<f32>()
            .unwrap();
        let reversed = reference::reverse_sequence(&weights, &[2, 6], &[4i64, 6], 0, 1).unwrap();
        assert_eq!(grad, reversed, "{plain:?}");
    }
    // Another device is refused, naming both.
    let x = Tensor::<1>::from_floats([1., 2.], &Device::default());
    let err = reverse_sequence(
        x.reshape([1, 2]),
        Tensor::<1, Int>::from_ints([2], &Device::flex()),
        0,
        1,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            Error::DeviceMismatch {
                tensor: "sequence_lens",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn past_a_lowered_page_the_error_names_burns_limit() {
    // An application's device with 1 MiB bindings: burn's runtime allocates at
    // most 1 MiB there, and a view of more gets the error that says so.
    let page = 1 << 20;
    let device = own_device(|limits| limits.max_storage_buffer_binding_size = page);
    assert_eq!(revseq_burn::path(&device), KernelPath::Kernels);
    let lens =
        |n: usize| Tensor::<1, Int>::from_data(TensorData::new(vec![1024i64; n], [n]), &device);
    // Exactly one page: runs, in one binding.
    reverse_and_check(&device, 256 * 1024 / 3, [5, 0, 87381], 0.0);
    let x = Tensor::<2>::ones([1, 1024], &device).expand([512, 1024]);
    let err = reverse_sequence(x, lens(512), 0, 1).unwrap_err();
    assert!(
        matches!(err, Error::TensorTooLarge { tensor: "input", bytes: 2_097_152, limit } if limit == page),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "input: 2097152 bytes, more than the 1048576 bytes burn's wgpu runtime allocates at \
         once (its memory page: the device's max_storage_buffer_binding_size, or its \
         max_buffer_size where smaller)"
    );
}
