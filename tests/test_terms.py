"""The reuse tables: term rows, their assembly from old and new files, BM25 from counts."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codecite.errors import IndexIntegrityError
from codecite.retrievers.lexical import (
    _stable_order,
    bm25_arrays,
    bm25_from_arrays,
    build_bm25,
    load_bm25,
    save_bm25_arrays,
)
from codecite.retrievers.mined import Rows, mine_expansion, mine_rows
from codecite.store.reuse import Keys, OldRows, mining_rows
from codecite.store.term_counts import NewRows, NodeTerms, assemble

WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "load", "survey", "x1", "_priv"])
NODE = st.lists(WORDS, max_size=12)
FILES = st.lists(st.lists(NODE, max_size=4), min_size=1, max_size=6)


def _new(nodes: list[list[str]]) -> NewRows:
    return NewRows(nodes, [n[:3] for n in nodes], [sorted(set(n[-2:])) for n in nodes])


def _arrays(terms: NodeTerms) -> list[np.ndarray]:
    return [
        getattr(terms, name)
        for name in (
            "doc_ptr",
            "doc_ids",
            "doc_tf",
            "prose_ptr",
            "prose_ids",
            "ident_ptr",
            "ident_ids",
        )
    ]


def _same(a: NodeTerms, b: NodeTerms) -> bool:
    return a.vocab == b.vocab and all(
        x.dtype == y.dtype and np.array_equal(x, y)
        for x, y in zip(_arrays(a), _arrays(b), strict=True)
    )


@settings(max_examples=60, deadline=None)
@given(FILES, st.data())
def test_reusing_old_rows_equals_counting_everything_afresh(files: list, data) -> None:
    old = assemble([_new(f) for f in files], None)
    starts = np.cumsum([0] + [len(f) for f in files])
    changed = data.draw(st.sets(st.integers(0, len(files) - 1)))
    edited = [
        data.draw(st.lists(NODE, max_size=4)) if i in changed else f for i, f in enumerate(files)
    ]
    dropped = data.draw(st.integers(-1, len(files) - 1))
    parts, fresh = [], []
    for i, nodes in enumerate(edited):
        if i == dropped:
            continue
        parts.append(_new(nodes) if i in changed else OldRows(int(starts[i]), int(starts[i + 1])))
        fresh.append(_new(nodes))
    assert _same(assemble(parts, old), assemble(fresh, None))


def test_vocabulary_is_sorted_and_drops_terms_no_row_uses() -> None:
    old = assemble([_new([["beta", "alpha", "beta"]]), _new([["gone"]])], None)
    assert old.vocab == ["alpha", "beta", "gone"]
    assert old.doc_tf.tolist() == [2, 1, 1]  # beta twice, alpha once, in first-seen order
    new = assemble([OldRows(0, 1)], old)
    assert new.vocab == ["alpha", "beta"] and new.size == 1


def test_bm25_from_counts_is_bm25s_exactly() -> None:
    rng = random.Random(7)
    words = [f"w{i}" for i in range(200)]
    docs = [
        [rng.choice(words[: rng.randint(3, 200)]) for _ in range(rng.randint(0, 40))]
        for _ in range(300)
    ]
    docs[5] = []
    ref = build_bm25(docs, k1=1.2, b=0.7)
    terms = assemble([NewRows(docs, [[] for _ in docs], [[] for _ in docs])], None)
    mine = bm25_from_arrays(
        bm25_arrays(terms.vocab, terms.doc_ptr, terms.doc_ids, terms.doc_tf, k1=1.2, b=0.7)
    )
    assert set(mine.vocab_dict) == set(ref.vocab_dict)
    assert mine.vocab_dict[""] == ref.vocab_dict[""] == len(terms.vocab)
    for token in terms.vocab:
        assert np.array_equal(
            mine.get_scores_from_ids([mine.vocab_dict[token]]),
            ref.get_scores_from_ids([ref.vocab_dict[token]]),
        ), token


def test_bm25_arrays_saved_load_with_bm25s(tmp_path: Path) -> None:
    docs = [["load", "survey", "load"], ["phase", "tensor"], ["survey", "line"]]
    terms = assemble([NewRows(docs, [[] for _ in docs], [[] for _ in docs])], None)
    arrays = bm25_arrays(terms.vocab, terms.doc_ptr, terms.doc_ids, terms.doc_tf)
    save_bm25_arrays(arrays, tmp_path)
    loaded = load_bm25(tmp_path)  # bm25s's own loader
    scores = loaded.get_scores_from_ids([loaded.vocab_dict["survey"]])
    assert scores[0] > 0 and scores[1] == 0 and scores[2] > 0
    assert scores[2] > scores[0]  # the shorter node, same term frequency


def test_node_terms_round_trip_and_refuse_inconsistent_arrays(tmp_path: Path) -> None:
    terms = assemble([_new([["alpha", "beta"], ["gamma"]])], None)
    terms.save(tmp_path)
    assert _same(NodeTerms.load(tmp_path), terms)
    np.save(tmp_path / "reuse" / "doc_ids.npy", np.array([0, 1, 99], dtype=np.int32))
    with pytest.raises(IndexIntegrityError, match=r"inconsistent arrays .*codecite build --full"):
        NodeTerms.load(tmp_path)


def test_mining_rows_take_documented_code_nodes_only() -> None:
    code = ("python_symbol", "pkg.io.load_survey")
    words, idents = mining_rows(
        *code, True, ["load_survey", "load", "survey", "read", "a", "line", "read"]
    )
    # prose words leave out every part of the node's own name; only the whole name is mined
    assert words == ["read", "a", "line"] and idents == ["load_survey"]
    assert mining_rows("python_method", "pkg.io.Survey.Load", True, ["x"])[1] == ["load"]
    assert mining_rows(*code, False, ["read"]) == ([], [])
    assert mining_rows("doc_section", None, False, ["read"]) == ([], [])


def test_mine_rows_equals_the_string_form() -> None:
    prose = [["read", "file"], ["read", "disk"], ["read", "file", "disk"], ["plot"]] * 3
    idents = [["load"], ["load", "open"], ["open"], ["show"]] * 3
    vocab = sorted({w for r in prose + idents for w in r})
    index = {w: i for i, w in enumerate(vocab)}
    by_rows = mine_rows(
        Rows.of([[index[w] for w in r] for r in prose]),
        Rows.of([[index[t] for t in r] for r in idents]),
        vocab,
        vocab_sorted=True,
        min_pmi=0.1,
    )
    assert by_rows == mine_expansion(prose, idents, min_pmi=0.1)
    assert by_rows["read"][0] in ("load", "open")


def test_rows_take_selects_rows_in_order() -> None:
    rows = Rows.of([[1, 2], [], [3], [4, 5, 6]])
    taken = rows.take(np.array([3, 0, 1]))
    assert taken.ptr.tolist() == [0, 3, 5, 5] and taken.ids.tolist() == [4, 5, 6, 1, 2]


def test_keys_round_trip_through_arrays_and_text(tmp_path: Path) -> None:
    rows = [
        {
            "kind": "python_symbol",
            "symbol": f"pkg.mod.f{i}",
            "module": "pkg.mod",
            "symbol_type": "function",
            "signature": None,
            "refs": [],
            "code_refs": [],
            "documents": [],
            "docstring": i == 1,
            "public": i != 2,
            "workflow": None,
            "priority": None if i == 0 else i,
            "bases": ["pkg.base.Base"] if i == 1 else [],
            "messages": ["no such thing: {}"] if i == 2 else [],
        }
        for i in range(3)
    ]
    rows.append(
        {
            "kind": "doc_section",
            "symbol": None,
            "module": None,
            "symbol_type": None,
            "signature": None,
            "refs": ["pkg.mod.f1", "f2"],
            "code_refs": ["pkg.mod.f0"],
            "documents": ["pkg.Compiled", "pkg.Compiled.run"],
            "docstring": False,
            "public": None,
            "workflow": "io",
            "priority": 0,
            "bases": [],
            "messages": [],
        }
    )
    rows.append(
        {
            **rows[0],
            "symbol": "pkg.mod.alias",
            "symbol_type": "assignment",
            "signature": "alias = f0",
        }
    )
    keys = Keys.of(rows)
    (tmp_path / "reuse").mkdir()
    keys.save(tmp_path)
    blobs = {
        rel: (tmp_path / rel).read_bytes()
        for rel in ("reuse/keys.json", "reuse/keys.npy", "reuse/symbols.txt")
    }
    assert Keys.load(tmp_path, blobs) == keys
    with pytest.raises(IndexIntegrityError, match=r"inconsistent keys table"):
        Keys.load(tmp_path, {**blobs, "reuse/symbols.txt": b"one line only"})
    empty = tmp_path / "empty"
    (empty / "reuse").mkdir(parents=True)
    Keys().save(empty)
    assert len(Keys.load(empty, {rel: (empty / rel).read_bytes() for rel in blobs})) == 0
    np.save(tmp_path / "reuse" / "keys.npy", np.full((5, 6), 7, dtype=np.int32))
    with pytest.raises(IndexIntegrityError, match=r"inconsistent keys table .*build --full"):
        Keys.load(
            tmp_path, {**blobs, "reuse/keys.npy": (tmp_path / "reuse" / "keys.npy").read_bytes()}
        )


def test_two_pass_radix_order_is_the_stable_argsort() -> None:
    ids = np.random.default_rng(3).integers(0, 200_000, 50_000).astype(np.int32)
    assert np.array_equal(_stable_order(ids), np.argsort(ids, kind="stable"))
