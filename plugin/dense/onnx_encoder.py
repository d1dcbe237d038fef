"""all-MiniLM-L6-v2's encoder as an ONNX graph, run by onnxruntime on CPU.

No ONNX file of the model ships anywhere codecite can reach offline, so the graph
is written here, operator for operator the network ``codecite.dense.minilm``
computes in numpy: embeddings (word + position + token type) and LayerNorm, then
per layer one product for query, key and value, scaled dot-product attention with
the padding bias, the output projection, residual and LayerNorm, the exact-erf
GELU feed-forward, residual and LayerNorm. It returns the hidden states; pooling
and normalisation stay in ``MiniLM.encode``, shared with the numpy path.

The graph is a few kilobytes of protobuf written by ``_Proto`` below (the ``onnx``
package would take longer to import than the session takes to build), and the
weights are not in it: each is declared as an initializer whose data is external
and handed to the session from memory (``SessionOptions.add_external_initializers``).
onnxruntime fuses what it recognises and runs every product on its own thread
pool; docs/dense.md has the speed, and the fidelity against the numpy path and
sentence-transformers.
"""

from __future__ import annotations

import importlib.util
import struct
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

IR_VERSION = 9  # the ONNX IR of opset 20
OPSET = 20  # Gelu (approximate="none") and LayerNormalization are standard ops from here
FLOAT, INT64 = 1, 7  # TensorProto.DataType
EXTERNAL = 1  # TensorProto.DataLocation


def available() -> bool:
    """True when ``onnxruntime`` is installed."""
    return importlib.util.find_spec("onnxruntime") is not None


class OnnxEncoder:
    """Hidden states of a padded batch, by an onnxruntime session over ``weights``.

    ``weights`` are ``MiniLM``'s: dense layers stored as ``W.T`` (``x @ W``) and each
    layer's query, key and value concatenated as ``...attention.self.qkv``.
    """

    def __init__(
        self,
        weights: Mapping[str, np.ndarray],
        heads: int,
        layers: int,
        eps: float,
    ) -> None:
        import onnxruntime as ort

        graph, external = encoder_graph(weights, heads, layers, eps)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 0  # onnxruntime's default: every core
        options.log_severity_level = 3  # errors only: no warnings on a terminal
        names = list(external)
        values = [ort.OrtValue.ortvalue_from_numpy(external[n]) for n in names]
        options.add_external_initializers(names, values)
        self.session = ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])

    def __call__(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``ids`` and ``mask`` are batch x tokens; returns batch x tokens x hidden."""
        tokens = ids.shape[1]
        # padded positions get no attention (the bias transformers adds is the dtype's min)
        bias = np.where(mask[:, None, None, :] > 0, 0.0, np.finfo(np.float32).min)
        feed = {
            "ids": np.ascontiguousarray(ids, dtype=np.int64),
            "positions": np.arange(tokens, dtype=np.int64),
            "bias": bias.astype(np.float32),
        }
        out: np.ndarray = self.session.run(["hidden"], feed)[0]
        return out


def encoder_graph(
    w: Mapping[str, np.ndarray], heads: int, layers: int, eps: float
) -> tuple[bytes, dict[str, np.ndarray]]:
    """The serialised ONNX model (weights left out) and the weights it names."""
    external: dict[str, np.ndarray] = {}
    nodes: list[bytes] = []
    constants: list[bytes] = []

    def weight(name: str, value: np.ndarray | None = None) -> str:
        data = w[name] if value is None else value
        external[name] = np.ascontiguousarray(data, dtype=np.float32)
        return name

    def constant(name: str, value: np.ndarray) -> str:
        constants.append(_tensor(name, value))
        return name

    def op(kind: str, inputs: list[str], **attributes: Any) -> str:
        out = f"v{len(nodes)}"
        nodes.append(_node(kind, inputs, out, attributes))
        return out

    def dense(x: str, name: str) -> str:
        return op("Add", [op("MatMul", [x, weight(f"{name}.weight")]), weight(f"{name}.bias")])

    def norm(x: str, name: str) -> str:
        scale, shift = weight(f"{name}.weight"), weight(f"{name}.bias")
        return op("LayerNormalization", [x, scale, shift], axis=-1, epsilon=eps)

    size = int(w["embeddings.word_embeddings.weight"].shape[1])
    width = size // heads
    token_type = weight("token_type", w["embeddings.token_type_embeddings.weight"][0])
    words = op("Gather", [weight("embeddings.word_embeddings.weight"), "ids"])
    places = op("Gather", [weight("embeddings.position_embeddings.weight"), "positions"])
    x = norm(op("Add", [op("Add", [words, places]), token_type]), "embeddings.LayerNorm")
    split = constant("qkv_shape", np.array([0, 0, 3, heads, width], dtype=np.int64))
    joined = constant("hidden_shape", np.array([0, 0, size], dtype=np.int64))
    scale = constant("scale", np.array(1.0 / np.sqrt(width), dtype=np.float32))
    part = [constant(f"part{i}", np.array(i, dtype=np.int64)) for i in range(3)]
    for i in range(layers):
        at = f"encoder.layer.{i}"
        qkv = op("Reshape", [dense(x, f"{at}.attention.self.qkv"), split])
        qkv = op("Transpose", [qkv], perm=[2, 0, 3, 1, 4])  # 3 x batch x heads x tokens x width
        q = op("Mul", [op("Gather", [qkv, part[0]], axis=0), scale])
        k_t = op("Transpose", [op("Gather", [qkv, part[1]], axis=0)], perm=[0, 1, 3, 2])
        v = op("Gather", [qkv, part[2]], axis=0)
        probs = op("Softmax", [op("Add", [op("MatMul", [q, k_t]), "bias"])], axis=-1)
        context = op("Transpose", [op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        context = op("Reshape", [context, joined])
        attended = op("Add", [dense(context, f"{at}.attention.output.dense"), x])
        x = norm(attended, f"{at}.attention.output.LayerNorm")
        hidden = op("Gelu", [dense(x, f"{at}.intermediate.dense")], approximate="none")
        x = norm(op("Add", [dense(hidden, f"{at}.output.dense"), x]), f"{at}.output.LayerNorm")
    nodes.append(_node("Identity", [x], "hidden", {}))
    graph = _Proto()
    for node in nodes:
        graph.message(1, node)
    graph.string(2, "all-MiniLM-L6-v2")
    for tensor in [*constants, *(_external(n, a) for n, a in external.items())]:
        graph.message(5, tensor)
    graph.message(11, _value("ids", INT64, ["batch", "tokens"]))
    graph.message(11, _value("positions", INT64, ["tokens"]))
    graph.message(11, _value("bias", FLOAT, ["batch", 1, 1, "tokens"]))
    graph.message(12, _value("hidden", FLOAT, ["batch", "tokens", size]))
    model = _Proto().varint(1, IR_VERSION).string(2, "codecite").message(7, graph.bytes())
    model.message(8, _Proto().string(1, "").varint(2, OPSET).bytes())
    return model.bytes(), external


# -- a protobuf writer for the few ONNX messages above (field numbers of onnx.proto) --------


class _Proto:
    """One protobuf message, field by field, in the wire format."""

    def __init__(self) -> None:
        self.out = bytearray()

    def _key(self, field: int, wire: int) -> None:
        self._raw_varint(field << 3 | wire)

    def _raw_varint(self, value: int) -> None:
        value &= (1 << 64) - 1  # a negative int64 is its two's complement, ten bytes
        while True:
            byte = value & 0x7F
            value >>= 7
            self.out.append(byte | (0x80 if value else 0))
            if not value:
                return

    def varint(self, field: int, value: int) -> _Proto:
        self._key(field, 0)
        self._raw_varint(value)
        return self

    def varints(self, field: int, values: Iterable[int]) -> _Proto:
        for value in values:
            self.varint(field, value)
        return self

    def float32(self, field: int, value: float) -> _Proto:
        self._key(field, 5)
        self.out += struct.pack("<f", value)
        return self

    def message(self, field: int, data: bytes) -> _Proto:
        self._key(field, 2)
        self._raw_varint(len(data))
        self.out += data
        return self

    def string(self, field: int, text: str) -> _Proto:
        return self.message(field, text.encode("utf-8"))

    def bytes(self) -> bytes:
        return bytes(self.out)


def _node(kind: str, inputs: list[str], output: str, attributes: Mapping[str, Any]) -> bytes:
    node = _Proto()
    for name in inputs:
        node.string(1, name)
    node.string(2, output).string(4, kind)
    for name, value in attributes.items():
        attribute = _Proto().string(1, name)
        if isinstance(value, float):
            attribute.float32(2, value).varint(20, 1)  # AttributeType FLOAT
        elif isinstance(value, int):
            attribute.varint(3, value).varint(20, 2)  # INT
        elif isinstance(value, str):
            attribute.string(4, value).varint(20, 3)  # STRING
        else:
            attribute.varints(8, value).varint(20, 7)  # INTS
        node.message(5, attribute.bytes())
    return node.bytes()


def _tensor(name: str, value: np.ndarray) -> bytes:
    """A small constant, its data in the graph (little-endian raw bytes)."""
    kind = INT64 if value.dtype == np.int64 else FLOAT
    data = value.astype("<i8" if kind == INT64 else "<f4").tobytes()
    tensor = _Proto().varints(1, value.shape).varint(2, kind).string(8, name)
    return tensor.message(9, data).bytes()


def _external(name: str, array: np.ndarray) -> bytes:
    """A weight declared with its shape and type, its data supplied from memory."""
    tensor = _Proto().varints(1, array.shape).varint(2, FLOAT).string(8, name)
    where = {"location": f"weights/{name}", "offset": "0", "length": str(array.nbytes)}
    for key, value in where.items():  # a reference only: the session is handed the data
        tensor.message(13, _Proto().string(1, key).string(2, value).bytes())
    return tensor.varint(14, EXTERNAL).bytes()


def _value(name: str, kind: int, dims: list[int | str]) -> bytes:
    shape = _Proto()
    for dim in dims:
        entry = _Proto().string(2, dim) if isinstance(dim, str) else _Proto().varint(1, dim)
        shape.message(1, entry.bytes())
    tensor = _Proto().varint(1, kind).message(2, shape.bytes())
    return _Proto().string(1, name).message(2, _Proto().message(1, tensor.bytes()).bytes()).bytes()
