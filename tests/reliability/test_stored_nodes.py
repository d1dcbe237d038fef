"""A loaded index decodes only the records it returns, and the full check finds the rest.

``codecite.store.stored.StoredNodes`` maps ``nodes.jsonl`` and reads the scoring
fields from the build's keys table; these tests hold it to three promises: the
columns are exactly the records' metadata (after a full and an incremental build),
a query decodes only a handful of records, and ``codecite stats --verify`` reads
every record and refuses one that disagrees with the columns.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reliability_support import cli_inproc, reseal_nodes

import codecite
from codecite.errors import IndexIntegrityError
from codecite.retrievers.columns import NodeColumns
from codecite.store.stored import StoredNodes

FIX = "run `codecite build --full`"


@pytest.fixture
def built(sample_repo: Path) -> Path:
    codecite.build(sample_repo)
    return sample_repo


def _decoded(index: codecite.CodeciteIndex) -> int:
    assert isinstance(index.nodes, StoredNodes)
    return sum(r is not None for r in index.nodes._records)


def _columns_match_records(index: codecite.CodeciteIndex) -> None:
    stored = index.nodes.columns()  # type: ignore[attr-defined]
    read = NodeColumns.of_nodes(list(index.nodes))
    for name in ("kind", "workflow", "priority", "symbol", "symbol_type", "public"):
        assert getattr(stored, name) == getattr(read, name), name
    for name in ("bases", "messages"):
        stored_lists = [list(v) for v in getattr(stored, name)]  # () where a row has none
        assert stored_lists == [list(v or []) for v in getattr(read, name)], name
    assert stored.source_path == read.source_path
    assert index.nodes.ids() == [n.node_id for n in index.nodes]  # type: ignore[attr-defined]


def test_columns_are_the_records_metadata_after_full_and_incremental_builds(
    built: Path,
) -> None:
    index = codecite.load(built, check_stale=False)
    _columns_match_records(index)
    target = built / next(rel for rel in index.manifest["files"] if rel.endswith(".py"))
    target.write_text(
        target.read_text(encoding="utf-8")
        + '\n\nclass Added(Exception):\n    """Raised on purpose."""\n\n'
        + 'def added():\n    raise Added("added on purpose: {}".format(1))\n',
        encoding="utf-8",
    )
    report = codecite.build(built)
    assert report.reparsed == 1  # incremental: the keys of every other file are reused
    again = codecite.load(built, check_stale=False)
    cols = again.nodes.columns()  # type: ignore[attr-defined]
    assert ["Exception"] in cols.bases and ["added on purpose: {}"] in cols.messages
    _columns_match_records(again)
    assert len(again.nodes) == len(index.nodes) + 2
    assert again.verify() == len(again.nodes)


def test_a_query_decodes_only_what_it_returns(built: Path) -> None:
    index = codecite.load(built, check_stale=False)
    assert _decoded(index) == 0
    context = index.query("static shift correction", k=3)
    assert context.nodes
    # the hits, and at most the few nodes whose label or symbol the answer reads
    assert _decoded(index) <= 3 + len(context.breakdown)
    assert _decoded(index) < len(index.nodes) // 2
    hit = context.nodes[0].node
    assert index.node(hit.node_id) is hit  # decoded once, the same record after


def test_stats_verify_reads_every_record(built: Path) -> None:
    code, out, err = cli_inproc("stats", "--verify", "-C", str(built))
    count = len(codecite.load(built, check_stale=False).nodes)
    assert code == 0 and err == ""
    assert f"verified: all {count} records decoded and checked" in out
    code, out, _ = cli_inproc("stats", "--verify", "--json", "-C", str(built))
    assert code == 0 and json.loads(out)["verified"] == count


def test_verify_refuses_a_record_that_disagrees_with_the_columns(built: Path) -> None:
    """A record edited to a valid but different kind passes the record check; the
    columns the ranking read still say the old kind, so the full check names it."""
    index_dir = built / ".codecite"
    nodes = index_dir / "nodes.jsonl"
    lines = nodes.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[0])
    rec["metadata"]["kind"] = "recipe" if rec["metadata"]["kind"] != "recipe" else "doc_section"
    lines[0] = json.dumps(rec, ensure_ascii=False)
    nodes.write_text("\n".join(lines) + "\n", encoding="utf-8")
    reseal_nodes(index_dir)
    index = codecite.load(built, check_stale=False)
    with pytest.raises(IndexIntegrityError) as err:
        index.verify()
    assert str(err.value) == (
        f"index file '{nodes}' line 1: field 'metadata.kind' does not match the keys "
        f"table (reuse/; edited?); {FIX}"
    )
    code, _, err_text = cli_inproc("stats", "--verify", "-C", str(built))
    assert code == 1 and "does not match the keys table" in err_text


def test_the_symbol_table_reads_a_symbol_s_record_only_when_asked(built: Path) -> None:
    from codecite.store.symbols import SymbolTable

    index = codecite.load(built, check_stale=False)
    table = index.symbol_table
    assert _decoded(index) == 0 and len(table.symbols) > 0
    table.related_maps()  # owners, files and leaves: from the columns
    assert _decoded(index) == 0
    full = SymbolTable.from_parts(table.modules.values(), (n.metadata for n in index.nodes))
    lazy = codecite.load(built, check_stale=False).symbol_table
    assert list(lazy.symbols) == list(full.symbols)
    assert {name: lazy.symbols[name] for name in lazy.symbols} == full.symbols
    assert lazy.related_maps() == full.related_maps()


@pytest.mark.parametrize("rel", ["symbols.json", "reuse/doc_tf.npy", "nodes.jsonl"])
def test_a_file_no_load_reads_is_found_damaged_by_stats_verify(built: Path, rel: str) -> None:
    """A load checks such a file by size only; the query still answers, and the full check
    (``codecite stats --verify``) names the file, exit 1."""
    path = built / ".codecite" / rel
    data = path.read_bytes()
    path.write_bytes(data[:-2] + bytes([data[-2] ^ 0x01]) + data[-1:])  # same size
    code, out, err = cli_inproc("query", "static shift", "-k", "3", "-C", str(built))
    assert code == 0 and out.strip()
    code, out, err = cli_inproc("stats", "--verify", "-C", str(built))
    assert code == 1 and out == ""
    assert err.strip() == (
        f"codecite stats: index file '{path}' does not match its checksum in manifest.json "
        f"(truncated or edited); {FIX}"
    )


def test_a_reused_chunk_keeps_its_line_digests_at_its_new_offset() -> None:
    """``line_table`` given a chunk's rows of an earlier table (where the chunk stood at
    another offset) gives the table it would hash, without hashing that chunk."""
    from codecite.store.lines import line_table

    a, b, c = b'{"id": "a"}\n', b'{"id": "b1"}\n{"id": "b2"}\n', b'{"id": "c"}\n'
    before = line_table([c, b])  # b stood after c
    assert line_table([a, b], known=[None, before[1:]]).tolist() == line_table([a, b]).tolist()
    changed = b'{"id": "b1"}\n{"id": "b3"}\n'  # rows of other bytes are hashed again
    assert line_table([a, changed], known=[None, before[1:2]]).tolist() == (
        line_table([a, changed]).tolist()
    )
