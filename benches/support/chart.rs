//! The benchmark's chart: each row's time ÷ the copy kernel's in the same
//! rounds (the median, with the rounds' quartiles as whiskers), grouped by
//! element width and layout, on a log axis with lines at 1.0× (the copy) and at
//! the 1.11× target; where the run has them, the row in place (lengths uniform,
//! fill about 50%, and `L = n`), autotune's plan (`--candidates`), every other
//! family that can serve the row, and the peers (`benches/gpu-kit/peers.py`),
//! each against its own copy. Drawn from
//! the benchmark's JSON, so that a kept JSON draws again, as SVG drawn by
//! plotters.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde_json::Value;

/// The target every row is held to on a GPU: 90% of the copy kernel's speed.
pub(crate) const TARGET: f64 = 1.11;

/// What one mark of a row stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Series {
    /// The operator out of place, as the tuning plans it: one bar per row.
    OutOfPlace,
    /// Autotune's plan out of place (`--candidates`), in the same rounds.
    Tuned,
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
    pub(crate) fn is_bar(self) -> bool {
        matches!(
            self,
            Series::OutOfPlace | Series::Tuned | Series::InPlaceHalf | Series::InPlaceFull
        )
    }

    pub(crate) fn colour(self) -> RGBColor {
        match self {
            Series::OutOfPlace => RGBColor(0x34, 0x65, 0xa4),
            Series::Tuned => RGBColor(0x72, 0x9f, 0xcf),
            Series::InPlaceHalf => RGBColor(0x73, 0xd2, 0x16),
            Series::InPlaceFull => RGBColor(0x4e, 0x9a, 0x06),
            Series::Candidate => RGBColor(0x55, 0x57, 0x53),
            Series::Gather => RGBColor(0xf5, 0x79, 0x00),
            Series::OnnxRuntime => RGBColor(0x75, 0x50, 0x7b),
        }
    }

    pub(crate) fn legend(self) -> &'static str {
        match self {
            Series::OutOfPlace => "revseq, out of place",
            Series::Tuned => "autotune's plan, out of place",
            Series::InPlaceHalf => "in place, lengths uniform in [0, n]",
            Series::InPlaceFull => "in place, every length n",
            Series::Candidate => "another family, forced",
            Series::Gather => "torch.gather ÷ torch copy",
            Series::OnnxRuntime => "ONNX Runtime's CUDA kernel ÷ torch copy",
        }
    }

    pub(crate) const ALL: [Series; 7] = [
        Series::OutOfPlace,
        Series::Tuned,
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
            let tuned = &row["tuned"]["candidate"][0];
            if let Some(ratio) = number(tuned, "time_per_copy_kernel") {
                marks.push(Mark {
                    series: Series::Tuned,
                    ratio,
                    quartiles: None,
                    note: text(tuned, "variant").to_string(),
                });
            }
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

    /// The chart as an SVG document, drawn by plotters: a horizontal bar a
    /// bar series of each row, its whisker the rounds' quartiles, the other
    /// series as marks on the row's first bar, a log axis in powers of two,
    /// and the lines at the copy and the target.
    pub(crate) fn svg(&self) -> String {
        const WIDTH: u32 = 1000;
        const LABELS: u32 = 300;
        const SLOT: u32 = 13;
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
        // From the power of two at or below the least ratio.
        let floor = 2f64.powi(least.log2().floor() as i32);
        let ceiling = (most * 1.2).max(2.0);
        let present: Vec<Series> = Series::ALL
            .into_iter()
            .filter(|&s| {
                self.rows
                    .iter()
                    .any(|r| r.marks.iter().any(|m| m.series == s))
            })
            .collect();
        // Slots, top down: each row's bars and a gap, then room for the
        // legend below the last row, where no bar reaches.
        let rows_slots: usize = self.rows.iter().map(|r| bars(r) + 1).sum();
        // The legend: a line of about 20 pixels an entry, the copy and the
        // target among them.
        let legend = ((present.len() + 2) * 20 + 24).div_ceil(SLOT as usize);
        let slots = rows_slots + legend;
        let height = 60 + SLOT * slots as u32 + 40;

        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
            let drawn = self.draw_on(&root, [floor, ceiling], slots as f64, &present, LABELS);
            drawn.expect("plotters draws into a string");
            root.present().expect("plotters writes into a string");
        }
        svg
    }

    /// Draws the chart on `root`: `[floor, ceiling]` the axis, `slots` the
    /// bar slots from the top, `present` the series to name in the legend,
    /// `labels` the width of the rows' labels.
    fn draw_on(
        &self,
        root: &DrawingArea<SVGBackend<'_>, Shift>,
        [floor, ceiling]: [f64; 2],
        slots: f64,
        present: &[Series],
        labels: u32,
    ) -> Result<(), Box<dyn std::error::Error + '_>> {
        root.fill(&WHITE)?;
        root.draw(&Text::new(
            self.title.clone(),
            (10, 8),
            ("sans-serif", 18).into_font().style(FontStyle::Bold),
        ))?;
        root.draw(&Text::new(
            self.subtitle.clone(),
            (10, 32),
            ("sans-serif", 14),
        ))?;
        let mut chart = ChartBuilder::on(root)
            .margin_top(56)
            .margin_right(30)
            .x_label_area_size(36)
            .y_label_area_size(labels)
            .build_cartesian_2d((floor..ceiling).log_scale().base(2.0), 0.0..slots)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .max_light_lines(0)
            .y_labels(0)
            .x_desc("time ÷ the copy kernel's (log scale)")
            .x_label_formatter(&|v| format!("{v}×"))
            .label_style(("sans-serif", 14))
            .draw()?;
        // Slot `i` from the top spans `slots - i - 1 .. slots - i`.
        let top = |slot: usize| slots - slot as f64;
        let mut slot = 0;
        let mut last_width = None;
        for row in &self.rows {
            let start = slot;
            if last_width.is_some_and(|w| w != row.width) {
                let y = top(slot) + 0.5;
                chart.draw_series(LineSeries::new(
                    [(floor, y), (ceiling, y)],
                    RGBColor(0x88, 0x8a, 0x85).stroke_width(1),
                ))?;
            }
            last_width = Some(row.width);
            let first = row.marks.first().map_or("", |m| m.note.as_str());
            let at = chart.backend_coord(&(floor, top(slot) - 0.5));
            root.draw(&Text::new(
                format!("{} B {} ({first})", row.width, row.layout),
                (at.0 - 8, at.1),
                TextStyle::from(("sans-serif", 14).into_font())
                    .pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
            let first_bar = top(slot) - 0.5;
            for mark in row
                .marks
                .iter()
                .filter(|m| m.series.is_bar())
                .filter(finite)
            {
                let (y0, y1) = (top(slot) - 0.9, top(slot) - 0.1);
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(floor, y0), (mark.ratio, y1)],
                    mark.series.colour().filled(),
                )))?;
                if let Some([q1, q3]) = mark.quartiles {
                    chart.draw_series(std::iter::once(ErrorBar::new_horizontal(
                        top(slot) - 0.5,
                        q1,
                        mark.ratio,
                        q3,
                        BLACK.stroke_width(1),
                        6,
                    )))?;
                }
                slot += 1;
            }
            slot = start + bars(row) + 1;
            for mark in row
                .marks
                .iter()
                .filter(|m| !m.series.is_bar())
                .filter(finite)
            {
                let style = mark.series.colour().filled();
                let point = (mark.ratio, first_bar);
                match mark.series {
                    Series::Candidate => {
                        chart.draw_series(std::iter::once(TriangleMarker::new(point, 5, style)))?
                    }
                    Series::Gather => {
                        chart.draw_series(std::iter::once(Circle::new(point, 4, style)))?
                    }
                    _ => chart.draw_series(std::iter::once(Cross::new(
                        point,
                        5,
                        style.stroke_width(2),
                    )))?,
                };
            }
        }
        // The copy and the target, with their labels at the top.
        for (ratio, label, dashed) in [
            (1.0, "copy kernel 1.0×".to_string(), false),
            (TARGET, format!("target {TARGET}×"), true),
        ] {
            let line = [(ratio, 0.0), (ratio, slots)];
            let style = RED.stroke_width(1);
            match dashed {
                false => chart.draw_series(LineSeries::new(line, style))?,
                true => chart.draw_series(DashedLineSeries::new(line, 4, 3, style))?,
            }
            .label(label)
            .legend(move |(x, y)| {
                let (dash, gap) = if dashed { (4, 3) } else { (14, 0) };
                DashedPathElement::new([(x, y), (x + 14, y)], dash, gap, RED.stroke_width(1))
            });
        }
        for &series in present {
            let style = series.colour().filled();
            chart
                .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())?
                .label(series.legend())
                .legend(
                    move |(x, y)| -> DynElement<'static, SVGBackend<'_>, (i32, i32)> {
                        match series {
                            Series::Candidate => {
                                TriangleMarker::new((x + 5, y), 5, style).into_dyn()
                            }
                            Series::Gather => Circle::new((x + 5, y), 4, style).into_dyn(),
                            Series::OnnxRuntime => {
                                Cross::new((x + 5, y), 5, style.stroke_width(2)).into_dyn()
                            }
                            _ => Rectangle::new([(x, y - 5), (x + 10, y + 5)], style).into_dyn(),
                        }
                    },
                );
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE)
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()?;
        Ok(())
    }
}

/// The bar slots a row takes.
fn bars(row: &ChartRow) -> usize {
    row.marks
        .iter()
        .filter(|m| m.series.is_bar())
        .count()
        .max(1)
}

/// Whether a mark has a ratio to draw.
fn finite(mark: &&Mark) -> bool {
    mark.ratio.is_finite() && mark.ratio > 0.0
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
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    now[..10].to_string()
}
