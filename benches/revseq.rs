//! Throughput of reverse_subsequences beside two copies of the same bytes timed in
//! the same run: the fastest plain WGSL copy kernel (`benches/copy.wgsl`) and
//! `copy_buffer_to_buffer`. Every row's output is checked against the CPU reference
//! before it is timed, and names the kernel variant that ran.
//!
//! `cargo bench --bench revseq -- [--mib N] [--seconds S] [--json PATH] [--sweep]`
//! - `--mib N`: tensor size in MiB (default 16 on a CPU adapter, 256 on a GPU,
//!   whose L2 cache holds tensors of tens of MiB);
//! - `--seconds S`: seconds of timing per row (default 0.6);
//! - `--json PATH`: also write every row, with the adapter, as JSON, and its
//!   chart beside it (`PATH` with `.svg`; `--svg PATH` puts it elsewhere);
//! - `--chart JSON [--peers JSON] --svg PATH`: run nothing, draw the chart of a
//!   kept benchmark JSON (and the peers' rows, `gpu-kit/peers.py`) at `PATH`;
//! - `--sweep`: instead of the table, 4-byte `innermost`, `onnx-time-major` and
//!   `outermost` from 1 MiB up to the largest tensor the adapter takes, bound 128 MiB
//!   at a time, each timed beside the same layout at 64 MiB in one dispatch; then the
//!   other layouts, `long-lanes` (three lanes, each longer than a binding) and
//!   `ragged-outermost` (`outermost` as `[1, 64, odd]`) at the largest size;
//! - `--largest-mib N`: the sweep's largest tensor, below the adapter's limit;
//! - `--layout NAME`, `--width BYTES` (each repeatable): only these rows;
//! - `--in-place`: instead of the table, each row in place
//!   (`benches/support/in_place.rs`), with lengths uniform in `[0, n]` and all
//!   `n`, timed beside the copy kernel and the out-of-place operator (past one
//!   binding, the variant reads `family×pieces`; a layout whose lanes pass one
//!   binding prints why it is refused); `--with-in-place`: the table, then that,
//!   one JSON;
//! - `--candidates`: beside each row's variant (marked `*`), every other kernel
//!   family that can serve it, forced through the laboratory, verified and timed
//!   in the same rounds (`benches/support/candidates.rs`); in place too; and,
//!   out of place, the plan autotune picks (`Gpu::with_autotune`) and its
//!   compile's milliseconds (the table's own rows are the static choice);
//! - `--recovery`: `--candidates`, and for each row a device whose static
//!   choice is forced to the row's slowest family compiles it with autotune
//!   on: the row recovers where autotune picks the fastest family or one
//!   within 10% of it (a count after the table);
//! - `--padded`: the ONNX layouts also with the lengths of a sorted padded batch
//!   (three quarters of the lanes full, the rest falling to a quarter), after the
//!   table (outside its geometric mean) and as a third row in place;
//! - `--host`: instead of the table, what a call costs the host (µs per call
//!   of `program()`, a warm `compile()` and `record()`, on a tiny and a medium
//!   tensor; `benches/support/host.rs`), for `--seconds` (at least 3) of rounds;

#[path = "support/bench.rs"]
mod bench;
#[path = "support/candidates.rs"]
mod candidates;
#[path = "support/chart.rs"]
mod chart;
#[path = "support/cli.rs"]
mod cli;
#[path = "support/host.rs"]
mod host;
#[path = "support/in_place.rs"]
mod in_place;
#[path = "support/layouts.rs"]
mod layouts;
#[path = "support/packed.rs"]
mod packed;
#[path = "support/rows.rs"]
mod rows;
#[path = "support/windows.rs"]
mod windows;
#[path = "support/yardstick.rs"]
mod yardstick;

use bench::{geomean, Bench};
use cli::{args, mib};
use layouts::Lengths;
use rows::{print_header, table, write_json, Recovery};
use windows::{sweep, windowed_rows};

fn main() {
    let args = args();
    if let Some(json) = &args.chart {
        let svg = args.svg_path().expect("--chart JSON --svg PATH");
        chart::draw(json, args.peers.as_deref(), &svg);
        return;
    }
    let mut bench = Bench::new();
    bench.storage_only = args.storage_only;
    if args.candidates {
        bench.forced = candidates::forced_devices(&bench.gpu);
        bench.tuned = Some(bench.gpu.with_autotune(true));
        bench.recovery = args.recovery;
    }
    let info = bench.gpu.adapter_info();
    println!(
        "adapter: {} ({:?}, {:?}, {} {})",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    );
    if args.host {
        host::host(&bench, args.seconds.max(3.0));
        return;
    }
    if args.sweep {
        if !sweep(&bench, &args) {
            eprintln!("some rows differ from the reference");
            std::process::exit(1);
        }
        return;
    }
    let bytes = mib(&args, &info) << 20;
    println!(
        "{} MiB tensors, timed by {}",
        bytes >> 20,
        if bench.clock.on_device() {
            "the device's timestamps"
        } else {
            "the host's clock around each submit"
        }
    );
    // The yardstick sets every ratio, so it is chosen over five times a row's time:
    // over 0.6 s the choice moved from run to run on lavapipe (4 vectors per
    // invocation, 4 or 8 interleaved over 8, in three runs), as the machine's load
    // drifted under the seven candidates.
    let copy = bench.fastest_copy(bytes, 5.0 * args.seconds);
    println!(
        "GB/s = tensor bytes / time (10^9 B/s); kernel = that copy kernel, buffer = copy_buffer_to_buffer, \
         both moving the same bytes in the same run (GB/s: medians over rounds of 25 ms batches); t/kernel, t/buffer = the median over rounds of the operator's time ÷ the copy's in the same round; off = rounds whose copy kernel ran more than 25% off its median; words = bits per word the operator loads and stores\n"
    );
    if args.in_place {
        let (verified, rows) = in_place::in_place_table(&bench, &args, bytes, copy);
        if let Some(path) = &args.json {
            let svg = args.svg_path();
            let copy = bench.copy_kernels[copy].0;
            write_json(
                path,
                svg.as_deref(),
                &info,
                bytes >> 20,
                copy,
                &[],
                &[],
                &rows,
            );
        }
        if !verified {
            eprintln!("some rows differ from the reference");
            std::process::exit(1);
        }
        return;
    }
    print_header();
    let rows = table(&bench, &args, bytes, copy);
    let windowed = windowed_rows(&bench, &args, bytes);
    let spread = || rows.iter().filter(|r| r.lengths == Lengths::Spread);
    println!(
        "\ngeometric mean of the operator's time ÷ the copy kernel's: {:.2}×, ÷ copy_buffer_to_buffer's: {:.2}×",
        geomean(spread().map(|r| r.per_copy_kernel)),
        geomean(spread().map(|r| r.per_copy_buffer))
    );
    let (in_place_verified, in_place_rows) = match args.with_in_place {
        true => {
            println!("\nin place:");
            in_place::in_place_table(&bench, &args, bytes, copy)
        }
        false => (true, Vec::new()),
    };
    if let Some(path) = &args.json {
        let copy = bench.copy_kernels[copy].0;
        let svg = args.svg_path();
        let mib = bytes >> 20;
        write_json(
            path,
            svg.as_deref(),
            &info,
            mib,
            copy,
            &rows,
            &windowed,
            &in_place_rows,
        );
    }
    if args.recovery {
        let tried: Vec<&Recovery> = rows.iter().filter_map(|r| r.recovery.as_ref()).collect();
        let recovered = tried.iter().filter(|r| r.recovered()).count();
        println!(
            "\nautotune from the slowest family: the fastest family or within 10% of it on {recovered} of {} rows with more than one family",
            tried.len()
        );
    }
    let candidates_verified = rows.iter().flat_map(|r| &r.candidates).all(|c| c.verified);
    if rows.iter().any(|r| !r.verified)
        || windowed.iter().any(|r| !r.verified)
        || !candidates_verified
        || !in_place_verified
    {
        eprintln!("some rows differ from the reference");
        std::process::exit(1);
    }
}
