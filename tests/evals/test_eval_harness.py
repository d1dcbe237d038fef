"""The harness and the baseline on the fixture repository, with reference-style records."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

import codecite
from codecite.evals import Decision, decide, load_suites, run_eval
from codecite.evals.baseline import BaselineSystem, line_span, overlaps, symbol_spans
from codecite.evals.runs import BASELINE, CODECITE

# Verbatim in the reference assistant's record format: same field names, no `kind`
# (docs/migration.md).
REFERENCE_SUITE = "\n".join(
    [
        "# records in the reference design's format",
        '{"query": "correct static shift on line 22", "expected_intent": "workflow", '
        '"expected_workflow": "static_shift", "expected_line": "L22", '
        '"expected_symbols": ["geokit.agents.static_shift.StaticShiftAgent"], '
        '"must_not_contain": ["static_shift_fix"]}',
        '{"query": "load a survey line from disk", "expected_intent": "code", '
        '"expected_symbols": ["geokit.io.load_survey"]}',
        '{"query": "phase tensor skew", "expected_symbols": ["geokit.phase.skew"], '
        '"must_not_contain": ["phase_tensor_skew_v2"]}',
    ]
)
EXTRA_SUITE = "\n".join(
    [
        '{"query": "read one station of a survey", '
        '"expected_symbols": ["SurveyReader.read_station"],'
        ' "expected_sources": ["geokit/io.py"], "kind": "paraphrase", '
        '"expect_clarification": false}',
        '{"query": "remove static shift", "expected_retrieval_workflow": "static_shift", '
        '"kind": "workflow", "expect_clarification": false}',
        '{"query": "zzqx wobble frobnicate", "kind": "out_of_scope", "expect_clarification": true}',
    ]
)


@pytest.fixture
def suites(tmp_path: Path) -> tuple:
    (tmp_path / "reference.jsonl").write_text(REFERENCE_SUITE + "\n", encoding="utf-8")
    (tmp_path / "extra.jsonl").write_text(EXTRA_SUITE + "\n", encoding="utf-8")
    return load_suites([tmp_path / "reference.jsonl", tmp_path / "extra.jsonl"])


@pytest.fixture(scope="module")
def index(built_sample: Path) -> codecite.CodeciteIndex:
    return codecite.load(built_sample)


def test_reference_records_score_on_fixture_repo(index, suites) -> None:
    report = run_eval(index, suites[:1], k=10)
    m = report.overall()
    assert m["records"] == 3
    assert m["symbol_hit@10"] == 1.0 and m["symbol_recall@10"] == 1.0
    assert m["guard_violations"] == 0
    assert m["test_file_pollution"] == 0.0
    for name in ("intent_accuracy", "workflow_accuracy", "line_accuracy"):
        assert name in m  # reported because the records use the fields
        assert m[name] is None or 0.0 <= m[name] <= 1.0
    assert "clarification_precision" not in m  # no record uses expect_clarification


def test_breakdowns_json_and_table(index, suites) -> None:
    report = run_eval(index, suites, k=5)
    metrics = report.metrics[CODECITE]
    assert list(metrics["suites"]) == ["reference", "extra"]
    assert set(metrics["kinds"]) == {"paraphrase", "workflow", "out_of_scope"}
    assert metrics["kinds"]["paraphrase"]["symbol_hit@10"] == 1.0  # relative Class.method name
    assert metrics["kinds"]["workflow"]["retrieval_workflow_coverage"] == 1.0
    assert metrics["kinds"]["out_of_scope"]["records"] == 1
    data = json.loads(json.dumps(report.to_json()))
    assert data["k"] == 5 and data["retrieved_per_query"] == 10
    assert len(data["records"][CODECITE]) == 6 and len(data["curves"][CODECITE]) == 10
    table = report.table()
    assert "symbol_hit@10" in table and "by kind" in table and "by suite" in table


def test_decider_adapter_is_swappable(index, suites) -> None:
    def oracle(_index, query, ctx) -> Decision:
        return Decision(
            intent="workflow", workflow="static_shift", line="L22", clarification=not ctx.nodes
        )

    m = run_eval(index, suites[:1], decider=oracle).overall()
    assert m["line_accuracy"] == 1.0 and m["workflow_accuracy"] == 1.0
    assert m["intent_accuracy"] == 0.5  # one of the two records expects "code"


def test_decide_adapter_reads_ask_metadata_or_falls_back() -> None:
    empty, full = SimpleNamespace(nodes=[], workflow=None), SimpleNamespace(nodes=[1], workflow="w")
    assert decide(SimpleNamespace(), "q", empty) == Decision(clarification=True, routed=False)
    assert decide(SimpleNamespace(), "q", full) == Decision(workflow="w", routed=False)
    meta = {
        "path": "clarification",
        "intent": "workflow",
        "workflow": "static_shift",
        "line": {"name": "L22", "aliases": []},
    }
    asking = SimpleNamespace(ask=lambda q: SimpleNamespace(metadata=meta))
    assert decide(asking, "q", full) == Decision(
        "workflow", "static_shift", "L22", True, "clarification"
    )


def test_baseline_side_by_side(index, suites) -> None:
    report = run_eval(index, suites, baseline=True)
    assert report.systems == (CODECITE, BASELINE)
    base = report.overall(BASELINE)
    assert base["clarification_recall"] == 0.0 and base["clarification_precision"] is None
    assert base["intent_accuracy"] is None and base["retrieval_workflow_coverage"] is None
    assert base["symbol_hit@10"] == 1.0  # whole small files: every span overlaps
    assert "lift (codecite)" in report.table()


def test_line_spans_and_overlap() -> None:
    text = "a\nbb\nccc\n"
    assert line_span(text, 0, 1) == (1, 1)
    assert line_span(text, 2, 9) == (2, 3)  # chunk "bb\nccc\n" ends on line 3
    assert line_span(text, 5, 8) == (3, 3)
    assert overlaps(1, 3, 3, 9) and not overlaps(1, 3, 4, 9)


def test_baseline_chunks_carry_true_line_spans(index) -> None:
    system = BaselineSystem.from_index(index, 10)
    items = system.run("load_survey station reader", 10).items
    assert items
    root = index.config.root
    for item in items:
        lines = (root / item.source_path).read_text(encoding="utf-8").splitlines()
        assert item.text.strip().splitlines()[0].strip() in lines[item.start_line - 1]
    spans = symbol_spans(index.nodes)
    assert spans["geokit.io.load_survey"] == (("geokit/io.py", 9, 14),)


def test_progress_counts_every_judged_question(index, suites) -> None:
    calls: list[tuple[str, int, int]] = []
    report = run_eval(index, suites, k=5, baseline=True, progress=lambda *c: calls.append(c))
    questions = sum(len(s.records) for s in suites)
    assert calls[-1] == ("evaluating", 2 * questions, 2 * questions)  # codecite and stock
    assert [c[1] for c in calls] == list(range(1, 2 * questions + 1))
    assert report.metrics  # the callback changes nothing of the report


def test_a_question_about_the_assistant_retrieves_its_overview(index, tmp_path) -> None:
    # the reference's "what can you do?": no corpus word, answered from the README
    # and recipes; a question with no corpus word that is not about the assistant
    # still retrieves nothing
    (tmp_path / "meta.jsonl").write_text(
        '{"query": "what can you do?", "expected_intent": "meta"}\n'
        '{"query": "zzqx wobble frobnicate", "expect_clarification": true}\n',
        encoding="utf-8",
    )
    report = run_eval(index, load_suites([tmp_path / "meta.jsonl"]), k=10)
    meta, nonsense = report.outcomes[CODECITE]
    assert meta.intent == "meta" and meta.n_retrieved > 0
    assert nonsense.n_retrieved == 0
    assert report.overall()["nonempty_retrieval_rate"] == 1.0  # the second expects none


def test_the_baseline_does_not_flood_the_log(index, suites, caplog) -> None:
    # llama-index-retrievers-bm25 sets bm25s's logger back to DEBUG when imported
    import logging

    with caplog.at_level(logging.DEBUG):
        run_eval(index, suites[:1], k=10, baseline=True)
    assert not [r for r in caplog.records if r.name.startswith("bm25s")]
