//! The benchmark's chart: each row's time ÷ the copy kernel's in the same
//! rounds (the median, with the rounds' quartiles as whiskers), grouped by
//! element width and layout, on a log axis with lines at 1.0× (the copy) and at
//! the 1.11× target; where the run has them, the row in place (lengths uniform,
//! fill about 50%, and `L = n`), every other family that can serve the row, and
//! the peers (`benches/gpu-kit/peers.py`), each against its own copy. Drawn from
//! the benchmark's JSON, so that a kept JSON draws again, as SVG written here:
//! no plotting dependency.

use std::fmt::Write as _;

use serde_json::Value;

/// The target every row is held to on a GPU: 90% of the copy kernel's speed.
pub(crate) const TARGET: f64 = 1.11;

/// What one mark of a row stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Series {
    /// The operator out of place, as the tuning plans it: one bar per row.
    OutOfPlace,
    /// In place, lengths uniform in `[0, n]` (about half the elements move).
    InPlaceHalf,
    /// In place, every length `n`.
    InPlaceFull,
    /// Another family that can serve the row, forced, in the same rounds.
    Candidate,
    /// `torch.gather` with a prebuilt index ÷ a `torch` copy, on the same GPU.
    Gather,
    /// ONNX Runtime's CUDA kernel ÷ a `torch` copy, on the same GPU.
    OnnxRuntime,
}

impl Series {
    /// Bars are drawn as bars, the rest as marks on the row's first bar.
    fn is_bar(self) -> bool {
        matches!(
            self,
            Series::OutOfPlace | Series::InPlaceHalf | Series::InPlaceFull
        )
    }

    fn class(self) -> &'static str {
        match self {
            Series::OutOfPlace => "bar out-of-place",
            Series::InPlaceHalf => "bar in-place-half",
            Series::InPlaceFull => "bar in-place-full",
            Series::Candidate => "mark candidate",
            Series::Gather => "mark gather",
            Series::OnnxRuntime => "mark onnx-runtime",
        }
    }

    fn colour(self) -> &'static str {
        match self {
            Series::OutOfPlace => "#3465a4",
            Series::InPlaceHalf => "#73d216",
            Series::InPlaceFull => "#4e9a06",
            Series::Candidate => "#555753",
            Series::Gather => "#f57900",
            Series::OnnxRuntime => "#75507b",
        }
    }

    fn legend(self) -> &'static str {
        match self {
            Series::OutOfPlace => "revseq, out of place",
            Series::InPlaceHalf => "in place, lengths uniform in [0, n]",
            Series::InPlaceFull => "in place, every length n",
            Series::Candidate => "another family, forced",
            Series::Gather => "torch.gather ÷ torch copy",
            Series::OnnxRuntime => "ONNX Runtime's CUDA kernel ÷ torch copy",
        }
    }

    const ALL: [Series; 6] = [
        Series::OutOfPlace,
        Series::InPlaceHalf,
        Series::InPlaceFull,
        Series::Candidate,
        Series::Gather,
        Series::OnnxRuntime,
    ];
}

/// One mark: a ratio to the copy, with the rounds' quartiles where known and
/// what ran.
#[derive(Clone, Debug)]
pub(crate) struct Mark {
    pub(crate) series: Series,
    pub(crate) ratio: f64,
    pub(crate) quartiles: Option<[f64; 2]>,
    pub(crate) note: String,
}

/// One benchmark row: its width and layout, and its marks.
#[derive(Clone, Debug)]
pub(crate) struct ChartRow {
    pub(crate) width: u64,
    pub(crate) layout: String,
    pub(crate) marks: Vec<Mark>,
}

/// A chart: its title lines and rows.
#[derive(Clone, Debug)]
pub(crate) struct Chart {
    pub(crate) title: String,
    pub(crate) subtitle: String,
    pub(crate) rows: Vec<ChartRow>,
}

fn number(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn quartiles(v: &Value) -> Option<[f64; 2]> {
    let q = v.get("time_per_copy_kernel_quartiles")?.as_array()?;
    Some([q.first()?.as_f64()?, q.get(1)?.as_f64()?])
}

impl Chart {
    /// The chart of a benchmark JSON (`rows.rs`'s `write_json`), with the peers'
    /// JSON beside it where given.
    pub(crate) fn of(bench: &Value, peers: Option<&Value>) -> Chart {
        let adapter = &bench["adapter"];
        let mut rows: Vec<ChartRow> = Vec::new();
        let empty = Vec::new();
        let list = |v: &Value, key: &str| v.get(key).and_then(Value::as_array).cloned();
        for row in list(bench, "rows").unwrap_or_default() {
            let padded = text(&row, "lengths") == "padded";
            let layout = match padded {
                true => format!("{} (padded)", text(&row, "layout")),
                false => text(&row, "layout").to_string(),
            };
            let mut marks = vec![Mark {
                series: Series::OutOfPlace,
                ratio: number(&row, "time_per_copy_kernel").unwrap_or(f64::NAN),
                quartiles: quartiles(&row),
                note: text(&row, "variant").to_string(),
            }];
            for c in row["candidates"].as_array().unwrap_or(&empty) {
                marks.push(Mark {
                    series: Series::Candidate,
                    ratio: number(c, "time_per_copy_kernel").unwrap_or(f64::NAN),
                    quartiles: None,
                    note: text(c, "variant").to_string(),
                });
            }
            rows.push(ChartRow {
                width: row["width"].as_u64().unwrap_or(0),
                layout,
                marks,
            });
        }
        for row in list(bench, "in_place").unwrap_or_default() {
            let series = match text(&row, "lengths") {
                // `layouts.rs`' `Lengths::name`.
                "U[0,n]" => Series::InPlaceHalf,
                "n" => Series::InPlaceFull,
                _ => continue,
            };
            let (width, layout) = (row["width"].as_u64().unwrap_or(0), text(&row, "layout"));
            let mark = Mark {
                series,
                ratio: number(&row, "time_per_copy_kernel").unwrap_or(f64::NAN),
                quartiles: quartiles(&row),
                note: format!(
                    "{}, fill {:.2}",
                    text(&row, "variant"),
                    number(&row, "fill").unwrap_or(f64::NAN)
                ),
            };
            match rows
                .iter_mut()
                .find(|r| r.width == width && r.layout == layout)
            {
                Some(r) => r.marks.push(mark),
                None => rows.push(ChartRow {
                    width,
                    layout: layout.to_string(),
                    marks: vec![mark],
                }),
            }
        }
        for peer in peers.and_then(|p| list(p, "rows")).unwrap_or_default() {
            let (width, layout) = (peer["width"].as_u64().unwrap_or(0), text(&peer, "layout"));
            let Some(row) = rows
                .iter_mut()
                .find(|r| r.width == width && r.layout == layout)
            else {
                continue;
            };
            for (key, series, note) in [
                ("gather_vs_copy", Series::Gather, "torch.gather"),
                ("ort_vs_copy", Series::OnnxRuntime, "ONNX Runtime"),
            ] {
                if let Some(ratio) = number(&peer, key) {
                    row.marks.push(Mark {
                        series,
                        ratio,
                        quartiles: None,
                        note: note.to_string(),
                    });
                }
            }
        }
        rows.sort_by_key(|r| r.width);
        let driver = format!(
            "{} {}",
            text(adapter, "driver"),
            text(adapter, "driver_info")
        );
        let title = format!(
            "revseq on {} ({}, {}), {} MiB tensors, {}",
            text(adapter, "name"),
            text(adapter, "backend"),
            driver.trim(),
            bench["mib"].as_u64().unwrap_or(0),
            text(bench, "date")
        );
        Chart {
            title,
            subtitle: "time ÷ the copy kernel's in the same rounds (median over rounds; \
                       whiskers, where the run kept them: the rounds' quartiles); lower is faster"
                .to_string(),
            rows,
        }
    }

    /// The chart as an SVG document.
    pub(crate) fn svg(&self) -> String {
        const LEFT: f64 = 300.0;
        const PLOT: f64 = 620.0;
        const TOP: f64 = 96.0;
        const BAR: f64 = 7.0;
        let finite = |m: &&Mark| m.ratio.is_finite() && m.ratio > 0.0;
        // Each mark's reach: its ratio, and its quartiles where kept.
        let spans: Vec<[f64; 2]> = self
            .rows
            .iter()
            .flat_map(|r| r.marks.iter().filter(finite))
            .map(|m| {
                let [q1, q3] = m.quartiles.unwrap_or([m.ratio, m.ratio]);
                [q1.min(m.ratio), q3.max(m.ratio)]
            })
            .collect();
        let most = spans.iter().map(|s| s[1]).fold(2.0, f64::max);
        let least = spans.iter().map(|s| s[0]).fold(0.5, f64::min);
        // The axis from the power of two at or below the least ratio.
        let floor = 2f64.powi(least.log2().floor() as i32);
        let (lo, hi) = (floor.ln(), (most * 1.2).max(2.0).ln());
        let x = |ratio: f64| LEFT + (ratio.max(floor).ln() - lo) / (hi - lo) * PLOT;
        let bars = |r: &ChartRow| r.marks.iter().filter(|m| m.series.is_bar()).count().max(1);
        let band = |r: &ChartRow| bars(r) as f64 * (BAR + 2.0) + 8.0;
        let height = TOP + self.rows.iter().map(band).sum::<f64>() + 40.0;
        let width = LEFT + PLOT + 40.0;
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
             viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"sans-serif\" font-size=\"11\">"
        );
        let _ = writeln!(
            svg,
            "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"10\" y=\"18\" \
             font-size=\"14\" font-weight=\"bold\">{}</text>\n<text x=\"10\" y=\"36\">{}</text>",
            escape(&self.title),
            escape(&self.subtitle)
        );
        // The legend: only what the chart has.
        let mut at = 10.0;
        for series in Series::ALL {
            if !self
                .rows
                .iter()
                .any(|r| r.marks.iter().any(|m| m.series == series))
            {
                continue;
            }
            let _ = writeln!(
                svg,
                "<rect x=\"{at:.0}\" y=\"48\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{:.0}\" y=\"57\">{}</text>",
                series.colour(),
                at + 14.0,
                escape(series.legend())
            );
            at += 24.0 + 6.2 * series.legend().chars().count() as f64;
        }
        // The axis: ticks at powers of two, the copy and the target.
        let bottom = height - 34.0;
        let mut tick = floor;
        while tick <= most * 1.2 {
            let tx = x(tick);
            let _ = writeln!(
                svg,
                "<line x1=\"{tx:.1}\" y1=\"{TOP:.0}\" x2=\"{tx:.1}\" y2=\"{bottom:.1}\" stroke=\"#d3d7cf\"/>\
                 <text x=\"{tx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{tick}×</text>",
                bottom + 14.0
            );
            tick *= 2.0;
        }
        for (ratio, class, dash, label) in [
            (1.0, "reference copy", "", "copy kernel 1.0×"),
            (
                TARGET,
                "reference target",
                " stroke-dasharray=\"4 3\"",
                "target 1.11×",
            ),
        ] {
            let rx = x(ratio);
            let _ = writeln!(
                svg,
                "<line class=\"{class}\" x1=\"{rx:.1}\" y1=\"{:.0}\" x2=\"{rx:.1}\" y2=\"{bottom:.1}\" \
                 stroke=\"#cc0000\"{dash}/><text x=\"{:.1}\" y=\"{:.0}\" fill=\"#cc0000\">{label}</text>",
                TOP - 16.0,
                rx + 3.0,
                TOP - 18.0 + if ratio == 1.0 { 0.0 } else { 10.0 },
            );
        }
        let mut y = TOP;
        let mut last_width = None;
        for row in &self.rows {
            if last_width != Some(row.width) && last_width.is_some() {
                let _ = writeln!(
                    svg,
                    "<line x1=\"10\" y1=\"{y:.1}\" x2=\"{:.0}\" y2=\"{y:.1}\" stroke=\"#888a85\"/>",
                    LEFT + PLOT
                );
            }
            last_width = Some(row.width);
            let first = row.marks.first().map_or("", |m| m.note.as_str());
            let _ = writeln!(
                svg,
                "<text x=\"{:.0}\" y=\"{:.1}\" text-anchor=\"end\">{} B {} ({})</text>",
                LEFT - 6.0,
                y + BAR + 4.0,
                row.width,
                escape(&row.layout),
                escape(first)
            );
            let mut bar_y = y + 4.0;
            let first_bar_y = bar_y;
            for mark in row
                .marks
                .iter()
                .filter(|m| m.series.is_bar())
                .filter(finite)
            {
                let w = (x(mark.ratio) - LEFT).max(1.0);
                let _ = writeln!(
                    svg,
                    "<rect class=\"{}\" x=\"{LEFT:.0}\" y=\"{bar_y:.1}\" width=\"{w:.1}\" height=\"{BAR:.0}\" \
                     fill=\"{}\"><title>{} {}: {:.2}× ({})</title></rect>",
                    mark.series.class(),
                    mark.series.colour(),
                    row.width,
                    escape(&row.layout),
                    mark.ratio,
                    escape(&mark.note)
                );
                if let Some([q1, q3]) = mark.quartiles {
                    let my = bar_y + BAR / 2.0;
                    let _ = writeln!(
                        svg,
                        "<line class=\"spread\" x1=\"{:.1}\" y1=\"{my:.1}\" x2=\"{:.1}\" y2=\"{my:.1}\" stroke=\"black\"/>",
                        x(q1),
                        x(q3)
                    );
                }
                bar_y += BAR + 2.0;
            }
            for mark in row
                .marks
                .iter()
                .filter(|m| !m.series.is_bar())
                .filter(finite)
            {
                let (mx, my) = (x(mark.ratio), first_bar_y + BAR / 2.0);
                let _ = writeln!(
                    svg,
                    "<path class=\"{}\" d=\"M{:.1} {:.1} l4 4 l-4 4 l-4 -4 z\" fill=\"{}\" stroke=\"white\" \
                     stroke-width=\"0.5\"><title>{}: {:.2}×</title></path>",
                    mark.series.class(),
                    mx,
                    my - 4.0,
                    mark.series.colour(),
                    escape(&mark.note),
                    mark.ratio
                );
            }
            y += band(row);
        }
        svg.push_str("</svg>\n");
        svg
    }
}

/// `s` as XML text.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Reads the benchmark JSON at `bench` (and the peers' at `peers`) and writes
/// its chart to `svg`.
pub(crate) fn draw(bench: &str, peers: Option<&str>, svg: &str) {
    let read = |path: &str| -> Value {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let peers = peers.map(read);
    let chart = Chart::of(&read(bench), peers.as_ref());
    std::fs::write(svg, chart.svg()).unwrap_or_else(|e| panic!("writing {svg}: {e}"));
    println!("chart: {svg} ({} rows)", chart.rows.len());
}

/// Today's date in UTC, as the chart's title gives it: `2026-12-01`.
pub(crate) fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
