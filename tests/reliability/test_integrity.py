"""A damaged index is detected on load, named, and never executed.

Every file of ``.codecite/`` is damaged in turn (missing, truncated, a byte
changed, and edited *with* its checksum updated in the manifest, which is what
a careful tamperer would do). Each load fails with ``IndexIntegrityError`` (or
``IndexNotFoundError`` for a missing manifest) naming the file and the fix;
none returns a half-read index, and nothing on disk is unpickled or evaluated.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest
from fixture_facts import SAMPLE_NODES
from reliability_support import FakeEmbedding, cli, reseal_nodes

import codecite
from codecite.errors import IndexIntegrityError, IndexNotFoundError, ManifestError
from codecite.index import READ_ON_DEMAND
from codecite.store import files as store
from codecite.store.seal import sealed_text
from codecite.store.term_counts import NodeTerms

FIX = "run `codecite build --full`"
INDEX_FILES = [
    "nodes.jsonl",
    "lines.npy",
    "reuse/keys.json",
    "reuse/keys.npy",
    "reuse/symbols.txt",
    "reuse/vocab.json",
    "reuse/doc_ids.npy",
    "reuse/ident_ptr.npy",
    "symbols.json",
    "retriever.json",
    "bm25/data.csc.index.npy",
    "bm25/indices.csc.index.npy",
    "bm25/indptr.csc.index.npy",
    "bm25/params.index.json",
    "bm25/vocab.index.json",
    "extras/doc_refs.json",
    "extras/mined_expansion.json",
]


@pytest.fixture
def built(sample_repo: Path) -> Path:
    codecite.build(sample_repo)
    return sample_repo


def _index(root: Path) -> Path:
    return root / ".codecite"


def _manifest(root: Path) -> dict:
    return json.loads((_index(root) / "manifest.json").read_text())


def _write_manifest(root: Path, manifest: dict) -> None:
    """Write an edited manifest, sealed with this user's key: the checks below the seal
    (tests/reliability/test_ownership.py covers an edit without the key) still hold."""
    (_index(root) / "manifest.json").write_bytes(sealed_text(manifest))


def _rechecksum(root: Path, rel: str) -> None:
    """Record the file's new digest in the manifest, as a careful tamperer would."""
    if rel == "nodes.jsonl":
        reseal_nodes(_index(root))
        return
    manifest = _manifest(root)
    manifest["checksums"][rel] = hashlib.sha256((_index(root) / rel).read_bytes()).hexdigest()
    _write_manifest(root, manifest)


def _load_error(root: Path) -> str:
    with pytest.raises(IndexIntegrityError) as err:
        codecite.load(root, check_stale=False)
    return str(err.value)


# -- missing, truncated, edited ------------------------------------------------------------


def test_missing_manifest_says_build(built: Path) -> None:
    (_index(built) / "manifest.json").unlink()
    with pytest.raises(
        IndexNotFoundError,
        match=r"missing manifest.json\); run `codecite "
        r"build`",
    ):
        codecite.load(built)


@pytest.mark.parametrize("rel", INDEX_FILES)
def test_missing_file_is_named(built: Path, rel: str) -> None:
    (_index(built) / rel).unlink()
    assert _load_error(built) == f"index file '{_index(built) / rel}' is missing; {FIX}"


@pytest.mark.parametrize("rel", INDEX_FILES)
@pytest.mark.parametrize("damage", ["truncated", "byte_changed", "emptied"])
def test_damaged_file_fails_its_checksum(built: Path, rel: str, damage: str) -> None:
    path = _index(built) / rel
    data = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "byte_changed":
        path.write_bytes(data[:-2] + bytes([data[-2] ^ 0x01]) + data[-1:])
    else:
        path.write_bytes(b"")
    if rel in READ_ON_DEMAND and not (rel == "nodes.jsonl" and damage != "byte_changed"):
        index = codecite.load(built, check_stale=False)  # checked by size: its reader checks it
        with pytest.raises(IndexIntegrityError) as err:
            index.verify()  # the full check, `codecite stats --verify`
        error = str(err.value)
    else:  # a file the load reads, or nodes.jsonl of another size than its line table says
        error = _load_error(built)
    assert error == (
        f"index file '{path}' does not match its checksum in "
        f"manifest.json (truncated or edited); {FIX}"
    )


def test_damaged_record_is_refused_when_read(built: Path) -> None:
    path = _index(built) / "nodes.jsonl"
    data = path.read_bytes()
    second = data.index(b"\n") + 1
    at = data.index(b'"text": "', second) + len('"text": "')
    path.write_bytes(data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :])  # same size
    index = codecite.load(built, check_stale=False)
    index.nodes[0]  # an intact record reads
    with pytest.raises(IndexIntegrityError) as err:
        index.nodes[1]
    assert str(err.value) == (
        f"index file '{path}' line 2 does not match its digest in lines.npy "
        f"(damaged or edited); {FIX}"
    )


def test_truncated_manifest(built: Path) -> None:
    path = _index(built) / "manifest.json"
    path.write_text(path.read_text()[:200])
    with pytest.raises(
        ManifestError,
        match=r"manifest.json' \(manifest.json\) is not valid "
        r"JSON .*run `codecite build --full`",
    ):
        codecite.load(built)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            {"format_version": 99},
            "has format version 99, newer than this codecite reads "
            f"({store.FORMAT_VERSION}); upgrade codecite "
            "(`pip install -U codecite`)",
        ),
        ({"format_version": 0}, f"has old format version 0; {FIX}"),
        ({"format_version": "3"}, "has format version 3, newer than"),
        ({"node_count": 3}, f"has {SAMPLE_NODES} nodes, the manifest says 3; {FIX}"),
        ({"node_count": str(SAMPLE_NODES)}, "field 'node_count' is missing or not a int (edited?)"),
        ({"checksums": "x"}, "field 'checksums' is missing or not a dict (edited?)"),
        (
            {"checksums": {"nodes.jsonl": 1, "reuse/keys.json": "", "symbols.json": ""}},
            "malformed checksums or files (edited?)",
        ),
        ({"files": []}, "field 'files' is missing or not a dict"),
    ],
)
def test_hand_edited_manifest(built: Path, edit: dict, message: str) -> None:
    manifest = {**_manifest(built), **edit}
    _write_manifest(built, manifest)
    assert message in _load_error(built)


def test_manifest_without_a_checksum_cannot_hide_an_edit(built: Path) -> None:
    manifest = _manifest(built)
    del manifest["checksums"]["nodes.jsonl"]
    _write_manifest(built, manifest)
    assert "records no checksum for nodes.jsonl (edited?)" in _load_error(built)


def test_manifest_that_is_not_a_manifest(built: Path) -> None:
    (_index(built) / "manifest.json").write_text("[1, 2, 3]")
    assert "is not a codecite manifest" in _load_error(built)


# -- edited with the checksum updated: the content checks still hold ---------------------


@pytest.mark.parametrize(
    ("rel", "content", "message"),
    [
        ("nodes.jsonl", "{not json\n", "line 1 is not valid JSON (truncated or edited?)"),
        ("nodes.jsonl", '{"id": 1}\n', "line 1: field 'id' is 1, not a string (edited?)"),
        (
            "nodes.jsonl",
            '{"id": 1, "text": "x", "metadata": {}}\n',
            "line 1: field 'id' is 1, not a string (edited?)",
        ),
        ("nodes.jsonl", "[" * 100_000 + "\n", "line 1 is not valid JSON"),
        ("bm25/vocab.index.json", "[1, 2", "bm25' cannot be read (JSONDecodeError"),
        ("bm25/params.index.json", '{"k1": 1.5}', "bm25' cannot be read"),
        ("bm25/indptr.csc.index.npy", "not an array", "bm25' cannot be read"),
        ("retriever.json", '{"settings": 5}', "cannot be read"),
        ("extras/doc_refs.json", '{"sections": [1], "symbols": "x"}', "cannot be read"),
    ],
)
def test_consistent_edit_is_still_refused(
    built: Path, rel: str, content: str, message: str
) -> None:
    path = _index(built) / rel
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
    if rel == "nodes.jsonl":  # replace the first record, keep the count
        content = content + "".join(lines[1:])
    path.write_text(content)
    _rechecksum(built, rel)
    if rel == "nodes.jsonl":  # records are read as asked for: the full check finds it
        with pytest.raises(IndexIntegrityError) as err:
            codecite.load(built, check_stale=False).verify()
        error = str(err.value)
    else:
        error = _load_error(built)
    assert message in error and FIX in error


def test_symbol_table_is_checked_when_first_used(built: Path) -> None:
    path = _index(built) / "symbols.json"
    path.write_text('["not", "a", "table"]')
    _rechecksum(built, "symbols.json")
    index = codecite.load(built, check_stale=False)  # the symbol table loads lazily
    with pytest.raises(
        IndexIntegrityError,
        match=r"symbols.json' cannot be read .*"
        r"run `codecite build --full`",
    ):
        index.symbol_table  # noqa: B018
    path.write_text('{"modules": {}}')  # edited, checksum not updated
    with pytest.raises(IndexIntegrityError, match=r"symbols.json' does not match its checksum"):
        codecite.load(built, check_stale=False).symbol_table  # noqa: B018


@pytest.mark.parametrize(
    "rel", ["reuse/vocab.json", "reuse/keys.json", "nodes.jsonl", "symbols.json"]
)
def test_tampered_reuse_tables_are_not_reused_by_an_incremental_build(
    built: Path, rel: str
) -> None:
    path = _index(built) / rel
    path.write_bytes(path.read_bytes().replace(b'"', b'"bogus', 1))  # checksum not updated
    (built / "geokit" / "phase.py").write_text('def changed():\n    """Changed."""\n')
    codecite.build(built)
    incremental = path.read_bytes()
    codecite.build(built, full=True)
    assert incremental == path.read_bytes() and b"bogus" not in incremental


# -- no pickle, no eval ---------------------------------------------------------------------


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (os.system, (f"touch '{self.marker}'",))


def _plant_pickle(path: Path, marker: Path) -> None:
    array = np.empty(1, dtype=object)
    array[0] = _Payload(marker)
    with path.open("wb") as fh:
        np.save(fh, array, allow_pickle=True)


def test_pickled_bm25_array_is_refused_not_executed(built: Path, tmp_path: Path) -> None:
    marker = tmp_path / "payload-ran"
    _plant_pickle(_index(built) / "bm25" / "data.csc.index.npy", marker)
    _rechecksum(built, "bm25/data.csc.index.npy")
    error = _load_error(built)
    assert (
        "bm25' cannot be read (ValueError: Object arrays cannot be loaded when allow_pickle=False)"
        in error
        and FIX in error
    )
    assert not marker.exists()
    out = cli("stats", "-C", str(built))
    assert out.returncode == 1 and "Traceback" not in out.stderr and not marker.exists()
    assert out.stderr.startswith("codecite stats: ") and FIX in out.stderr


def test_pickled_vectors_are_refused_not_executed(sample_repo: Path, tmp_path: Path) -> None:
    codecite.build(sample_repo, embed=FakeEmbedding(model_name="fake"))
    assert (_index(sample_repo) / "vectors.npy").is_file()
    (_index(sample_repo) / "vectors.npy").write_bytes(b"\x93NUMPY truncated")
    assert "vectors.npy' does not match its checksum" in _load_error(sample_repo)
    marker = tmp_path / "payload-ran"
    _plant_pickle(_index(sample_repo) / "vectors.npy", marker)
    _rechecksum(sample_repo, "vectors.npy")
    index = codecite.load(sample_repo, check_stale=False)  # vectors load on first dense use
    try:
        ctx = index.query("phase tensor", dense=True, embed_model=FakeEmbedding(model_name="fake"))
    except IndexIntegrityError as exc:
        assert "vectors" in str(exc) and "allow_pickle=False" in str(exc)
    else:  # the documented fallback: lexical ranking, visibly degraded
        assert ctx.nodes and "allow_pickle=False" in str(ctx.degraded)
    assert not marker.exists()


# -- size limits on every parsed file ----------------------------------------------------


def test_every_index_file_has_a_size_limit(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "MAX_BULK_BYTES", 1000)  # nodes.jsonl, arrays
    error = _load_error(built)
    assert "over the limit of 1000" in error and FIX in error
    with pytest.raises(IndexIntegrityError, match=r"nodes.jsonl' is .* over the limit"):
        store.read_jsonl(_index(built) / "nodes.jsonl")
    with pytest.raises(IndexIntegrityError, match=r"doc_ids.npy' is .* over the limit"):
        NodeTerms.load(_index(built))
    monkeypatch.setattr(store, "MAX_BULK_BYTES", 1 << 40)
    monkeypatch.setattr(store, "MAX_JSON_BYTES", 300)  # manifest, symbols, bm25 vocab, ...
    with pytest.raises(ManifestError, match=r"manifest.json' is .* over the limit of 300"):
        codecite.load(built)


def test_damaged_feedback_names_its_own_fix(built: Path) -> None:
    (_index(built) / "feedback.json").write_text('{"geokit.phase.skew": 3')
    error = _load_error(built)
    assert (
        "feedback.json' is damaged or not a feedback table; remove it (its votes are lost)" in error
    )
    (_index(built) / "feedback.json").write_text("[]")
    assert "feedback.json' is damaged" in _load_error(built)
