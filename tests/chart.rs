//! The benchmark's chart (`benches/support/chart.rs`) from a small benchmark
//! JSON: valid SVG to an XML parser, one bar per row, the in-place bars and the
//! marks where the JSON has them, and the lines at the copy and the target.
//! Needs no adapter.

#[path = "../benches/support/chart.rs"]
#[expect(
    dead_code,
    reason = "the benchmark's file: drawing from a path is its alone"
)]
mod chart;

use chart::{Chart, TARGET};

const BENCH: &str = r#"{
  "adapter": {"name": "llvmpipe (LLVM 15.0.6, 256 bits)", "backend": "Vulkan", "device_type": "Cpu", "driver": "llvmpipe", "driver_info": "Mesa 22.3.6"},
  "mib": 16, "date": "2026-12-01",
  "copy_kernel_vectors_per_invocation": 8, "copy_kernel_interleaved_over": 8, "copy_kernel_word_bits": 32,
  "rows": [
    {"width": 1, "layout": "innermost", "lengths": "spread", "variant": "rows", "time_per_copy_kernel": 1.23, "time_per_copy_kernel_quartiles": [1.2, 1.3], "candidates": [{"variant": "general", "time_per_copy_kernel": 9.5}]},
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

/// The elements of `doc` whose class starts with `class`.
fn count(doc: &roxmltree::Document, class: &str) -> usize {
    doc.descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.starts_with(class)))
        .count()
}

#[test]
fn a_chart_of_a_small_benchmark_is_valid_svg_with_a_bar_per_row() {
    let bench: serde_json::Value = serde_json::from_str(BENCH).unwrap();
    let peers: serde_json::Value = serde_json::from_str(PEERS).unwrap();
    let svg = Chart::of(&bench, Some(&peers)).svg();
    let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{e}:\n{svg}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    let rows = bench["rows"].as_array().unwrap().len();
    assert_eq!(count(&doc, "bar out-of-place"), rows);
    assert_eq!(count(&doc, "bar in-place-half"), 1);
    assert_eq!(count(&doc, "bar in-place-full"), 1);
    assert_eq!(count(&doc, "mark candidate"), 1);
    assert_eq!(count(&doc, "mark gather"), 2);
    assert_eq!(count(&doc, "mark onnx-runtime"), 1);
    assert_eq!(count(&doc, "spread"), rows + 2);
    // The lines at the copy (1.0×) and the target, the target to its right.
    let line = |class: &str| {
        let node = doc
            .descendants()
            .find(|n| n.attribute("class") == Some(class))
            .unwrap_or_else(|| panic!("no {class} line"));
        node.attribute("x1").unwrap().parse::<f64>().unwrap()
    };
    let (copy, target) = (line("reference copy"), line("reference target"));
    assert!(copy < target, "copy at {copy}, target at {target}");
    assert!(svg.contains(&format!("target {TARGET}×")));
    // A bar's length grows with its ratio: the 1.75× row's past the 1.02× row's.
    let widths: Vec<f64> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("bar out-of-place"))
        .map(|n| n.attribute("width").unwrap().parse().unwrap())
        .collect();
    assert!(widths[2] > widths[1] && widths[0] > widths[1], "{widths:?}");
    // The title names the adapter, the driver, the size and the date.
    let title = doc
        .descendants()
        .find(|n| n.has_tag_name("text"))
        .and_then(|n| n.text())
        .unwrap();
    for part in ["llvmpipe", "Mesa 22.3.6", "16 MiB", "2026-12-01"] {
        assert!(title.contains(part), "{title}");
    }
}
