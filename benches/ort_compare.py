"""ONNX Runtime's CPU ReverseSequence beside this crate's operator, on the benchmark's
ONNX-shaped rows, one after the other on the same machine.

    pip install onnxruntime onnx numpy
    python3 benches/ort_compare.py [--mib 16] [--seconds 1] [--rounds 3]

Runs `cargo bench --bench revseq` for the rows `innermost` ([B, T], batch axis 0),
`outermost` ([T, B], time axis 0), `onnx-batch-major` ([B, T, I]) and
`onnx-time-major` ([T, B, I]), then times ONNX Runtime on the same shapes with INT64
lengths in 0..=T; `--rounds` times, alternating, so that a machine whose load drifts
weighs on both. Prints the medians over the rounds in milliseconds per run, and the
range of the ratio across rounds.
"""

import argparse
import json
import subprocess
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

WIDTHS = {1: np.uint8, 2: np.float16, 4: np.float32, 8: np.float64}
ONNX_TYPES = {np.uint8: TensorProto.UINT8, np.float16: TensorProto.FLOAT16,
              np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE}
# benchmark layout -> (batch_axis, time_axis) of the same shape
LAYOUTS = {"innermost": (0, 1), "outermost": (1, 0),
           "onnx-batch-major": (0, 1), "onnx-time-major": (1, 0)}


def session(dtype, batch_axis, time_axis):
    x = helper.make_tensor_value_info("x", ONNX_TYPES[dtype], None)
    lens = helper.make_tensor_value_info("lens", TensorProto.INT64, None)
    y = helper.make_tensor_value_info("y", ONNX_TYPES[dtype], None)
    node = helper.make_node("ReverseSequence", ["x", "lens"], ["y"],
                            batch_axis=batch_axis, time_axis=time_axis)
    graph = helper.make_graph([node], "reverse_sequence", [x, lens], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 10)])
    model.ir_version = 8
    options = ort.SessionOptions()
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def time_ort(sizes, dtype, batch_axis, time_axis, seconds):
    rng = np.random.default_rng(1)
    x = rng.integers(0, 255, size=sizes).astype(dtype)
    t = sizes[time_axis]
    lens = rng.integers(0, t + 1, size=sizes[batch_axis]).astype(np.int64)
    sess = session(dtype, batch_axis, time_axis)
    sess.run(None, {"x": x, "lens": lens})
    times = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or len(times) < 5:
        start = time.perf_counter()
        sess.run(None, {"x": x, "lens": lens})
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def time_revseq(args):
    """One run of the benchmark's ONNX-shaped rows: its JSON."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = ["cargo", "bench", "--bench", "revseq", "--", "--mib", str(args.mib),
                   "--seconds", str(args.seconds), "--json", out.name]
        for layout in LAYOUTS:
            command += ["--layout", layout]
        for width in WIDTHS:
            command += ["--width", str(width)]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        return json.load(open(out.name))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mib", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    # Per row (width, layout): its description, and seconds per run for each round.
    rows, revseq_s, ort_s = {}, {}, {}
    for _ in range(args.rounds):
        ours = time_revseq(args)
        for row in ours["rows"]:
            if not row["verified"]:
                raise SystemExit(f"row not verified: {row}")
            key = (row["width"], row["layout"])
            rows[key] = row
            bytes_ = np.prod(row["sizes"]) * row["width"]
            revseq_s.setdefault(key, []).append(bytes_ / (row["op_gbps"] * 1e9))
            batch_axis, time_axis = LAYOUTS[row["layout"]]
            ort_s.setdefault(key, []).append(
                time_ort(row["sizes"], WIDTHS[row["width"]], batch_axis, time_axis,
                         args.seconds))
    print(f"adapter: {ours['adapter']['name']} ({ours['adapter']['backend']}); "
          f"onnxruntime {ort.__version__}, CPU execution provider; {args.rounds} rounds")
    print(f"{'width':>5} {'layout':<17} {'sizes':>18} {'variant':<8} {'revseq ms':>10} "
          f"{'onnxruntime ms':>15} {'ort ÷ revseq':>12}  {'per round':>11}")
    for key, row in rows.items():
        ratios = [o / r for o, r in zip(ort_s[key], revseq_s[key])]
        ours_ms, ort_ms = np.median(revseq_s[key]) * 1e3, np.median(ort_s[key]) * 1e3
        print(f"{row['width']:>4}B {row['layout']:<17} {str(row['sizes']):>18} "
              f"{row['variant']:<8} {ours_ms:>10.2f} {ort_ms:>15.2f} "
              f"{ort_ms / ours_ms:>11.2f}×  {min(ratios):.2f}–{max(ratios):.2f}×")


if __name__ == "__main__":
    main()
