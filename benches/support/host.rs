//! `--host`: what a call costs the host, where the device's work is a few
//! microseconds: planning a program (`program::program`, its kernels, in
//! place too), a warm `compile` (its pipelines cached) and `record` into an
//! encoder, on a tiny and a medium ONNX batch-major tensor. Each round times
//! every call in turn, a batch of about 5 ms each; the table gives the median
//! µs per call over the rounds.

use std::rc::Rc;
use std::time::{Duration, Instant};

use revseq::program::{self, Target};
use revseq::{DataType, ReverseInPlace, ReverseSubsequences, TensorDesc};

use crate::bench::{median, wait, Bench};

/// The shapes timed: `[batch, time, features]`, reversed along time.
const SHAPES: [(&str, [u32; 3]); 2] = [("tiny", [4, 16, 8]), ("medium", [32, 64, 128])];

/// `[batch, time, features]` f32 with one length per batch entry (ONNX's
/// `[batch]` lengths, broadcast through strides), reversed along time.
fn descriptor([batch, time, features]: [u32; 3]) -> ReverseSubsequences {
    let tensor = TensorDesc::new(DataType::Float32, &[batch, time, features]);
    let lengths = TensorDesc::new(DataType::Int64, &[batch, 1, features]).with_strides(&[1, 0, 0]);
    ReverseSubsequences::new(tensor.clone(), lengths, tensor, 1)
}

/// One call the table times, made ready for one shape: it runs the call
/// `count` times and returns the seconds the calls took (setup left out).
type Timed<'a> = Box<dyn Fn(u32) -> f64 + 'a>;

/// The calls, by name, on `desc` for `bench`'s device.
fn calls<'a>(bench: &'a Bench, desc: &ReverseSubsequences) -> Vec<(&'static str, Timed<'a>)> {
    let gpu = &bench.gpu;
    let target: Target = gpu.target();
    let in_place = ReverseInPlace::new(
        desc.output.clone(),
        desc.sequence_lengths.clone(),
        desc.axis,
    );
    let op = Rc::new(gpu.compile(desc).expect("compile"));
    let op_in_place = Rc::new(gpu.compile_in_place(&in_place).expect("compile in place"));
    let bytes = |t: &TensorDesc| vec![0u8; t.min_size_in_bytes().next_multiple_of(4) as usize];
    let input = bench.storage(&bytes(&desc.input));
    let lengths = bench.storage(&bytes(&desc.sequence_lengths));
    let output = bench.storage(&bytes(&desc.output));
    let timed = |f: Box<dyn Fn() + 'a>| -> Timed<'a> {
        Box::new(move |count| {
            let start = Instant::now();
            for _ in 0..count {
                f();
            }
            start.elapsed().as_secs_f64()
        })
    };
    let (d, t) = (desc.clone(), target.clone());
    let program = timed(Box::new(move || {
        std::hint::black_box(program::program(&d, &t).expect("program"));
    }));
    let (d, t) = (desc.clone(), target.clone());
    let with_kernels = timed(Box::new(move || {
        let program = program::program(&d, &t).expect("program");
        std::hint::black_box(program.kernels());
    }));
    let (p, t) = (in_place.clone(), target);
    let in_place_kernels = timed(Box::new(move || {
        let program = program::program_in_place(&p, &t).expect("program in place");
        std::hint::black_box(program.kernels());
    }));
    let d = desc.clone();
    let compile = timed(Box::new(move || {
        std::hint::black_box(gpu.compile(&d).expect("compile"));
    }));
    // `record` into one encoder a batch, submitted and waited on after the clock.
    let device = gpu.device();
    let recorded = move |in_place: bool| -> Timed<'a> {
        let (op, op_in_place) = (op.clone(), op_in_place.clone());
        let (input, lengths, output) = (input.clone(), lengths.clone(), output.clone());
        Box::new(move |count| {
            let mut encoder = device.create_command_encoder(&Default::default());
            let start = Instant::now();
            for _ in 0..count {
                let recorded = match in_place {
                    false => op.record(
                        &mut encoder,
                        input.as_entire_buffer_binding(),
                        lengths.as_entire_buffer_binding(),
                        output.as_entire_buffer_binding(),
                    ),
                    true => op_in_place.record(
                        &mut encoder,
                        output.as_entire_buffer_binding(),
                        lengths.as_entire_buffer_binding(),
                    ),
                };
                recorded.expect("record");
            }
            let seconds = start.elapsed().as_secs_f64();
            gpu.queue().submit([encoder.finish()]);
            wait(device);
            seconds
        })
    };
    vec![
        ("program()", program),
        ("program() + kernels()", with_kernels),
        ("program_in_place() + kernels()", in_place_kernels),
        ("compile(), warm", compile),
        ("record()", recorded(false)),
        ("record() in place", recorded(true)),
    ]
}

/// Times every call on both shapes for `seconds` of rounds and prints the
/// table of medians.
pub(crate) fn host(bench: &Bench, seconds: f64) {
    let descs: Vec<ReverseSubsequences> = SHAPES.iter().map(|(_, s)| descriptor(*s)).collect();
    let shapes: Vec<Vec<(&str, Timed)>> = descs.iter().map(|d| calls(bench, d)).collect();
    // Calls a batch: about 5 ms of each, from a first batch of 10.
    let batches: Vec<Vec<u32>> = shapes
        .iter()
        .map(|calls| {
            calls
                .iter()
                .map(|(_, call)| {
                    let per_call = call(10) / 10.0;
                    ((0.005 / per_call) as u32).clamp(10, 20_000)
                })
                .collect()
        })
        .collect();
    let mut times = vec![vec![Vec::new(); shapes[0].len()]; shapes.len()];
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    while Instant::now() < deadline || times[0][0].len() < 7 {
        for (s, calls) in shapes.iter().enumerate() {
            for (c, (_, call)) in calls.iter().enumerate() {
                let count = batches[s][c];
                times[s][c].push(call(count) / f64::from(count) * 1e6);
            }
        }
    }
    let rounds = times[0][0].len();
    println!("host µs per call, median of {rounds} rounds (f32 [batch, time, features] reversed along time, [batch] lengths):");
    print!("  {:<32}", "call");
    for ((name, shape), _) in SHAPES.iter().zip(&descs) {
        print!(" {:>18}", format!("{name} {shape:?}"));
    }
    println!();
    for (c, (name, _)) in shapes[0].iter().enumerate() {
        print!("  {name:<32}");
        for shape_times in &times {
            print!(" {:>15.2} µs", median(shape_times[c].clone()));
        }
        println!();
    }
}
