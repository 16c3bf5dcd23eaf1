//! The benchmark's command line.

use revseq::DataType;

use crate::layouts::WIDTHS;

pub(crate) struct Args {
    /// `--mib`, where given.
    pub(crate) mib: Option<u64>,
    pub(crate) seconds: f64,
    pub(crate) json: Option<String>,
    /// `--svg`: the chart's path; by default beside `--json`'s, as `.svg`.
    pub(crate) svg: Option<String>,
    /// `--chart JSON`: draw that benchmark JSON's chart and run nothing.
    pub(crate) chart: Option<String>,
    /// `--peers JSON`: the peers' rows (`gpu-kit/peers.py`) on the chart.
    pub(crate) peers: Option<String>,
    pub(crate) sweep: bool,
    /// `--largest-mib`: the sweep's largest tensor, where less than the adapter's.
    pub(crate) largest_mib: Option<u64>,
    /// `--largest-only`: the sweep times each layout at its largest size alone.
    pub(crate) largest_only: bool,
    /// `--storage-only`: see `Bench::storage_only`.
    pub(crate) storage_only: bool,
    /// `--host`: what a call costs the host (`benches/support/host.rs`).
    pub(crate) host: bool,
    /// `--in-place`: the operator in place (`benches/support/in_place.rs`).
    pub(crate) in_place: bool,
    /// `--with-in-place`: the table, then the operator in place, one JSON.
    pub(crate) with_in_place: bool,
    /// `--candidates`: every family that can serve a row, timed beside the
    /// tuning's choice (`benches/support/candidates.rs`).
    pub(crate) candidates: bool,
    /// `--recovery`: `--candidates`, and autotune from a static choice forced
    /// to each row's slowest family (`benches/support/rows.rs`).
    pub(crate) recovery: bool,
    /// `--padded`: the ONNX layouts also with the lengths of sorted padded
    /// batches ([`Lengths::Padded`](crate::layouts::Lengths)).
    pub(crate) padded: bool,
    pub(crate) layouts: Vec<String>,
    pub(crate) widths: Vec<u32>,
}

impl Args {
    /// Whether `--layout` names `layout`, or names none.
    pub(crate) fn wants_layout(&self, layout: &str) -> bool {
        self.layouts.is_empty() || self.layouts.iter().any(|l| l == layout)
    }

    /// The element types of the widths `--width` names, or of all of them.
    pub(crate) fn widths(&self) -> impl Iterator<Item = DataType> + '_ {
        WIDTHS
            .into_iter()
            .filter(|d| self.widths.is_empty() || self.widths.contains(&d.size_in_bytes()))
    }
}

pub(crate) fn args() -> Args {
    let mut args = Args {
        mib: None,
        seconds: 0.6,
        json: None,
        svg: None,
        chart: None,
        peers: None,
        sweep: false,
        largest_mib: None,
        largest_only: false,
        storage_only: false,
        host: false,
        in_place: false,
        with_in_place: false,
        candidates: false,
        recovery: false,
        padded: false,
        layouts: Vec::new(),
        widths: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        // `cargo bench` adds `--bench`; anything else unknown is ignored likewise.
        match arg.as_str() {
            "--mib" => args.mib = Some(it.next().and_then(|v| v.parse().ok()).expect("--mib N")),
            "--seconds" => {
                args.seconds = it.next().and_then(|v| v.parse().ok()).expect("--seconds S")
            }
            "--json" => args.json = Some(it.next().expect("--json PATH")),
            "--svg" => args.svg = Some(it.next().expect("--svg PATH")),
            "--chart" => args.chart = Some(it.next().expect("--chart JSON")),
            "--peers" => args.peers = Some(it.next().expect("--peers JSON")),
            "--sweep" => args.sweep = true,
            "--largest-mib" => {
                args.largest_mib = it.next().and_then(|v| v.parse().ok());
                assert!(args.largest_mib.is_some(), "--largest-mib N");
            }
            "--largest-only" => args.largest_only = true,
            "--storage-only" => args.storage_only = true,
            "--host" => args.host = true,
            "--in-place" => args.in_place = true,
            "--with-in-place" => args.with_in_place = true,
            "--candidates" => args.candidates = true,
            "--recovery" => {
                args.candidates = true;
                args.recovery = true;
            }
            "--padded" => args.padded = true,
            "--layout" => args.layouts.push(it.next().expect("--layout NAME")),
            "--width" => args.widths.push(
                it.next()
                    .and_then(|v| v.parse().ok())
                    .expect("--width BYTES"),
            ),
            _ => {}
        }
    }
    args
}

impl Args {
    /// Where the chart goes: `--svg`, else beside `--json` as `.svg`.
    pub(crate) fn svg_path(&self) -> Option<String> {
        self.svg.clone().or_else(|| {
            let json = self.json.as_ref()?;
            let stem = json.strip_suffix(".json").unwrap_or(json);
            Some(format!("{stem}.svg"))
        })
    }
}

/// MiB a tensor takes: `--mib`, else 16 on a CPU adapter and 256 on a GPU, so that
/// a GPU's timings measure its memory, not its L2 cache (50 MB on an H100).
pub(crate) fn mib(args: &Args, info: &wgpu::AdapterInfo) -> u64 {
    args.mib
        .unwrap_or(if info.device_type == wgpu::DeviceType::Cpu {
            16
        } else {
            256
        })
}
