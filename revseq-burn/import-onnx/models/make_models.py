"""Makes the ONNX models revseq-burn-import-onnx imports, and ONNX Runtime's outputs.

    python3 -m venv venv && venv/bin/pip install tensorflow-cpu==2.21.0 tf2onnx==1.17.0 \
        onnx==1.23.2 onnxruntime==1.32.0
    venv/bin/python make_models.py

- tagger.onnx: a bidirectional LSTM tagger over a padded batch, in TensorFlow the way
  `bidirectional_dynamic_rnn(..., sequence_length=...)` builds it: the backward LSTM
  runs on each sequence reversed by its own length (`tf.reverse_sequence`), and its
  outputs are reversed back. Converted by tf2onnx (opset 17); random weights. The
  LSTMs are unrolled (`unroll=True`): a rolled Keras LSTM converts to an ONNX `Loop`.
- keras_bilstm.onnx: a Keras tagger, `Masking` then `Bidirectional(LSTM)` then `Dense`,
  converted by tf2onnx's `from_keras` (opset 17); the backward layer's `tf.reverse`
  becomes a `ReverseSequence`. Unrolled, for the reason above. Same batch.
- test_reversesequence_{batch,time}.onnx: the ONNX backend test models and data, as
  the onnx package's own test-case generator makes them (`sequence_lens` a graph input).
- kinds.onnx: float, int32 and bool inputs, both axis orders, `sequence_lens` an
  initializer (opset 10), made with onnx.helper. kinds_external.onnx is the same
  model with its initializer in kinds_external.data (ONNX external data).
- shape_lengths.onnx: `sequence_lens` is the shape of another input (opset 13).

Each model's inputs and ONNX Runtime's outputs are written beside it as raw
little-endian files: <model>.<name>.<dtype>.
"""
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
B, T, F, H, C = 4, 12, 8, 16, 5
LENGTHS = np.array([12, 7, 3, 9], np.int32)


def tagger():
    import tensorflow as tf
    import tf2onnx

    tf.keras.utils.set_random_seed(7)
    forward = tf.keras.layers.LSTM(H, return_sequences=True, unroll=True)
    backward = tf.keras.layers.LSTM(H, return_sequences=True, unroll=True)
    dense = tf.keras.layers.Dense(C)
    signature = [
        tf.TensorSpec((B, T, F), tf.float32, name="x"),
        tf.TensorSpec((B,), tf.int32, name="lengths"),
    ]

    @tf.function(input_signature=signature)
    def tag(x, lengths):
        f = forward(x)
        r = tf.reverse_sequence(x, lengths, seq_axis=1, batch_axis=0)
        b = tf.reverse_sequence(backward(r), lengths, seq_axis=1, batch_axis=0)
        return dense(tf.concat([f, b], -1))

    model, _ = tf2onnx.convert.from_function(tag, input_signature=signature, opset=17)
    onnx.save(model, os.path.join(HERE, "tagger.onnx"))
    run("tagger", {"x": padded_batch(), "lengths": LENGTHS})


def keras_bilstm():
    import tensorflow as tf
    import tf2onnx

    tf.keras.utils.set_random_seed(7)
    x = tf.keras.Input((T, F), batch_size=B, name="x")
    masked = tf.keras.layers.Masking(0.0)(x)
    lstm = tf.keras.layers.LSTM(H, return_sequences=True, unroll=True)
    y = tf.keras.layers.Bidirectional(lstm)(masked)
    model = tf.keras.Model(x, tf.keras.layers.Dense(C)(y))
    signature = (tf.TensorSpec((B, T, F), tf.float32, name="x"),)
    model, _ = tf2onnx.convert.from_keras(model, input_signature=signature, opset=17)
    onnx.save(model, os.path.join(HERE, "keras_bilstm.onnx"))
    run("keras_bilstm", {"x": padded_batch()})


def padded_batch():
    """[B, T, F] normal values, zero past each sequence's length."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((B, T, F)).astype(np.float32)
    for b, n in enumerate(LENGTHS):
        x[b, n:] = 0.0
    return x


def backend_tests():
    from onnx.backend.test.case.node import collect_testcases

    for case in collect_testcases("ReverseSequence"):
        onnx.save(case.model, os.path.join(HERE, case.name + ".onnx"))
        (inputs, outputs), = case.data_sets
        for kind, values in [("input", inputs), ("output", outputs)]:
            for i, value in enumerate(values):
                write(case.name, f"{kind}_{i}", value)


def kinds():
    lengths = numpy_helper.from_array(np.array([3, 0, 5, 1], np.int64), "lengths")
    inputs, outputs, nodes = [], [], []
    for name, elem, shape, batch, time in [
        ("f", TensorProto.FLOAT, [4, 5, 3], 0, 1),
        ("i", TensorProto.INT32, [5, 4, 2], 1, 0),
        ("b", TensorProto.BOOL, [4, 5], 0, 1),
    ]:
        inputs.append(helper.make_tensor_value_info(name, elem, shape))
        outputs.append(helper.make_tensor_value_info(name + "_out", elem, shape))
        nodes.append(
            helper.make_node(
                "ReverseSequence", [name, "lengths"], [name + "_out"],
                name="reverse_" + name, batch_axis=batch, time_axis=time,
            )
        )
    graph = helper.make_graph(nodes, "kinds", inputs, outputs, initializer=[lengths])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 10)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, "kinds.onnx"))
    onnx.save(
        model, os.path.join(HERE, "kinds_external.onnx"), save_as_external_data=True,
        location="kinds_external.data", size_threshold=0,
    )
    rng = np.random.default_rng(3)
    run("kinds", {
        "f": rng.standard_normal((4, 5, 3)).astype(np.float32),
        "i": rng.integers(-1000, 1000, (5, 4, 2)).astype(np.int32),
        "b": rng.integers(0, 2, (4, 5)).astype(bool),
    })


def shape_lengths():
    """Lengths that burn-onnx keeps on the host: the shape of another input."""
    nodes = [
        helper.make_node("Shape", ["w"], ["lengths"]),
        helper.make_node(
            "ReverseSequence", ["s", "lengths"], ["s_out"], name="reverse_s",
            batch_axis=0, time_axis=1,
        ),
    ]
    inputs = [
        helper.make_tensor_value_info("s", TensorProto.FLOAT, [4, 5]),
        helper.make_tensor_value_info("w", TensorProto.FLOAT, [2, 5, 1, 3]),
    ]
    outputs = [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [4, 5])]
    graph = helper.make_graph(nodes, "shape_lengths", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, "shape_lengths.onnx"))
    rng = np.random.default_rng(5)
    run("shape_lengths", {
        "s": rng.standard_normal((4, 5)).astype(np.float32),
        "w": np.zeros((2, 5, 1, 3), np.float32),
    })


def run(model, feeds):
    session = ort.InferenceSession(os.path.join(HERE, model + ".onnx"))
    for i, (name, value) in enumerate(feeds.items()):
        write(model, name, value)
    for out, value in zip(session.get_outputs(), session.run(None, feeds)):
        write(model, out.name.replace(":", "_"), value)


def write(model, name, value):
    label = {"float32": "f32", "int32": "i32", "int64": "i64", "bool": "u8", "bfloat16": "bf16"}
    path = os.path.join(HERE, f"{model}.{name}.{label[value.dtype.name]}")
    if value.dtype.name == "bfloat16":
        value = value.view(np.uint16)
    value.astype(value.dtype.newbyteorder("<")).tofile(path)


if __name__ == "__main__":
    tagger()
    keras_bilstm()
    backend_tests()
    kinds()
    shape_lengths()
