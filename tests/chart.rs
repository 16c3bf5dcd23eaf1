//! The benchmark's chart (`benches/support/chart.rs`, drawn by plotters) from
//! a small benchmark JSON, read as a reader reads it: the title, a label and a
//! bar of the legend's colour for each row, the in-place and autotune bars and
//! the marks where the JSON has them, the lines at the copy and the target
//! where the axis puts 1× and 1.11×, and labels large enough to read and
//! apart. Needs no adapter.

#![cfg(not(target_arch = "wasm32"))]

#[path = "../benches/support/chart.rs"]
#[expect(
    dead_code,
    reason = "the benchmark's file: drawing from a path is its alone"
)]
mod chart;

use chart::{Chart, Series, TARGET};
use plotters::style::RGBColor;

const BENCH: &str = r#"{
  "adapter": {"name": "llvmpipe (LLVM 15.0.6, 256 bits)", "backend": "Vulkan", "device_type": "Cpu", "driver": "llvmpipe", "driver_info": "Mesa 22.3.6"},
  "mib": 16, "date": "2026-12-01",
  "copy_kernel_vectors_per_invocation": 8, "copy_kernel_interleaved_over": 8, "copy_kernel_word_bits": 32,
  "rows": [
    {"width": 1, "layout": "innermost", "lengths": "spread", "variant": "rows", "time_per_copy_kernel": 1.23, "time_per_copy_kernel_quartiles": [1.2, 1.3], "candidates": [{"variant": "general", "time_per_copy_kernel": 9.5}], "tuned": {"candidate": [{"variant": "rows", "time_per_copy_kernel": 1.21}], "compile_ms": 3.1}},
    {"width": 4, "layout": "onnx-time-major", "lengths": "spread", "variant": "runs", "time_per_copy_kernel": 1.02, "time_per_copy_kernel_quartiles": [1.0, 1.05], "candidates": []},
    {"width": 16, "layout": "middle", "lengths": "spread", "variant": "gather", "time_per_copy_kernel": 1.75, "time_per_copy_kernel_quartiles": [1.7, 1.8], "candidates": []}
  ],
  "windowed": [],
  "in_place": [
    {"width": 4, "layout": "onnx-time-major", "lengths": "U[0,n]", "fill": 0.5, "variant": "runs", "time_per_copy_kernel": 0.52, "time_per_copy_kernel_quartiles": [0.5, 0.55]},
    {"width": 4, "layout": "onnx-time-major", "lengths": "n", "fill": 1.0, "variant": "runs", "time_per_copy_kernel": 0.98, "time_per_copy_kernel_quartiles": [0.95, 1.0]}
  ]
}"#;

const PEERS: &str = r#"{"device": "NVIDIA H200", "mib": 16, "rows": [
  {"width": 4, "layout": "onnx-time-major", "gather_vs_copy": 2.3, "ort_vs_copy": 2.2},
  {"width": 1, "layout": "innermost", "gather_vs_copy": 3.1}
]}"#;

/// A text of the chart: what it says, where, and how large.
#[derive(Debug)]
struct Label {
    text: String,
    x: f64,
    y: f64,
    size: f64,
}

fn number(node: roxmltree::Node, attribute: &str) -> f64 {
    node.attribute(attribute)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{attribute} of {node:?}"))
}

fn labels(doc: &roxmltree::Document) -> Vec<Label> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| Label {
            text: n.text().unwrap_or("").trim().to_string(),
            x: number(n, "x"),
            y: number(n, "y"),
            size: number(n, "font-size"),
        })
        .collect()
}

/// The filled rectangles of `colour`: `[x, y, width, height]`.
fn rects(doc: &roxmltree::Document, colour: &str) -> Vec<[f64; 4]> {
    doc.descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some(colour))
        .map(|n| ["x", "y", "width", "height"].map(|a| number(n, a)))
        .collect()
}

/// The vertical strokes of `colour`: their x, and the length they cover.
fn verticals(doc: &roxmltree::Document, colour: &str) -> Vec<(f64, f64)> {
    doc.descendants()
        .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(colour))
        .filter_map(|n| {
            let points: Vec<(f64, f64)> = n
                .attribute("points")?
                .split_whitespace()
                .filter_map(|p| {
                    let (x, y) = p.split_once(',')?;
                    Some((x.parse().ok()?, y.parse().ok()?))
                })
                .collect();
            let [(x0, y0), (x1, y1)] = points[..] else {
                return None;
            };
            (x0 == x1).then_some((x0, (y1 - y0).abs()))
        })
        .collect()
}

#[test]
fn a_reader_sees_a_bar_per_row_the_reference_lines_and_readable_labels() {
    let bench: serde_json::Value = serde_json::from_str(BENCH).unwrap();
    let peers: serde_json::Value = serde_json::from_str(PEERS).unwrap();
    let svg = Chart::of(&bench, Some(&peers)).svg();
    let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{e}:\n{svg}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let labels = labels(&doc);
    let find = |text: &str| {
        labels
            .iter()
            .find(|l| l.text == text)
            .unwrap_or_else(|| panic!("no label {text:?} in {labels:#?}"))
    };

    // The title names the adapter, the driver, the size and the date.
    let title = &labels[0];
    for part in ["llvmpipe", "Mesa 22.3.6", "16 MiB", "2026-12-01"] {
        assert!(title.text.contains(part), "{title:?}");
    }
    // Readable: every text at least 11 pixels high.
    for label in &labels {
        assert!(label.size >= 11.0, "{label:?}");
    }

    // A label for each row, top down in the JSON's order of widths, apart.
    let rows = bench["rows"].as_array().unwrap();
    let row_labels: Vec<&Label> = [
        "1 B innermost (rows)",
        "4 B onnx-time-major (runs)",
        "16 B middle (gather)",
    ]
    .map(find)
    .into();
    assert_eq!(row_labels.len(), rows.len());
    for pair in row_labels.windows(2) {
        assert!(pair[1].y - pair[0].y >= 2.0 * pair[0].size, "{pair:?}");
    }
    // The legend names each series the JSON has, and the two lines, each
    // entry apart from the others.
    let target_label = format!("target {TARGET}×");
    let legend = [
        "revseq, out of place",
        "autotune's plan, out of place",
        "in place, lengths uniform in [0, n]",
        "in place, every length n",
        "another family, forced",
        "torch.gather ÷ torch copy",
        "ONNX Runtime's CUDA kernel ÷ torch copy",
        "copy kernel 1.0×",
        &target_label,
    ]
    .map(find);
    for (i, a) in legend.iter().enumerate() {
        for b in &legend[i + 1..] {
            assert!((a.y - b.y).abs() >= a.size, "{a:?} and {b:?}");
        }
    }

    // A bar of the legend's colour at each row's label: one per row, plus the
    // legend's swatch; its length grows with the ratio.
    let colour = |series: Series| {
        let RGBColor(r, g, b) = series.colour();
        format!("#{r:02X}{g:02X}{b:02X}")
    };
    let bars = rects(&doc, &colour(Series::OutOfPlace));
    assert_eq!(bars.len(), rows.len() + 1, "{bars:?}");
    let bar_at = |label: &Label| {
        *bars
            .iter()
            .find(|[_, y, _, h]| (y + h / 2.0 - label.y).abs() < label.size)
            .unwrap_or_else(|| panic!("no bar at {label:?}"))
    };
    let widths = row_labels.iter().map(|l| bar_at(l)[2]).collect::<Vec<_>>();
    // 1.23×, 1.02×, 1.75×.
    assert!(widths[2] > widths[0] && widths[0] > widths[1], "{widths:?}");
    for (series, count) in [
        (Series::Tuned, 1),
        (Series::InPlaceHalf, 1),
        (Series::InPlaceFull, 1),
    ] {
        assert_eq!(rects(&doc, &colour(series)).len(), count + 1, "{series:?}");
    }

    // The copy's line where the axis says 1×, the target's where it puts
    // 1.11×: log2(1.11) of the way to 2×.
    let red = verticals(&doc, "#FF0000");
    let (one, two) = (find("1×").x, find("2×").x);
    let reach = |x: f64| {
        red.iter()
            .filter(|(at, _)| (at - x).abs() <= 1.0)
            .map(|(_, l)| l)
            .sum::<f64>()
    };
    let plot = bars[0][1]..bars.last().unwrap()[1];
    assert!(
        reach(one) > plot.end - plot.start,
        "the copy's line at {one}: {red:?}"
    );
    let target = one + TARGET.log2() * (two - one);
    assert!(
        reach(target) > (plot.end - plot.start) / 2.0,
        "the target's line at {target}: {red:?}"
    );
}
