"""Answer-or-ask calibrated per index: probes, the manifest entry, the decision, stats."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from statistics import median

import pytest

import codecite
from codecite.answers.confidence import assess
from codecite.indexer.calibration import (
    MAX_WORDS,
    PROBES,
    first_sentence,
    keep_previous,
    offtopic_questions,
    plain_words,
    probe_questions,
)
from codecite.retrievers.evidence import (
    CALIBRATED_COVERAGE_FLOOR,
    DEFAULT_COVERAGE_FLOOR,
    SCORE_FACTOR,
)

# scores under the fixture's calibrated floor while covering most of its words
UNDER_FLOOR = "how do I plot the data"


def _calibration(repo: Path) -> dict:
    return json.loads((repo / ".codecite" / "manifest.json").read_text())["calibration"]


def test_probes_are_plain_questions_chosen_by_node_digest(built_sample: Path) -> None:
    nodes = codecite.load(built_sample).nodes
    probes = probe_questions(nodes)
    assert 10 <= len(probes) <= PROBES
    assert probe_questions(list(reversed(nodes))) == probes  # file order does not choose
    for q in probes:
        words = q.split()
        assert words[:3] == ["how", "do", "I"] and 4 <= len(words) - 3 <= MAX_WORDS
        assert not re.search(r"[_.`()0-9]|[a-z][A-Z]", q), q  # no identifier survives
    assert probe_questions(nodes, limit=5) == probes[:5]


def test_identifiers_and_roles_are_dropped_from_a_probe() -> None:
    text = "Return :class:`~geokit.Grid` cells of ``depth_m`` above 2.5 km. Then more."
    assert first_sentence(text) == "Return geokit.Grid cells of ``depth_m`` above 2.5 km."
    assert plain_words(first_sentence(text)) == ["return", "cells", "of", "above", "km"]
    assert plain_words("Fit a LinearModel with fit_curve() or np.polyfit") == [
        "fit",
        "a",
        "with",
        "or",
    ]


def test_offtopic_probes_are_bundled_and_distinct() -> None:
    questions = offtopic_questions()
    assert len(questions) == 300 == len(set(questions))
    assert not any(q.startswith("#") for q in questions)


def test_the_build_stores_a_deterministic_calibration(sample_repo: Path) -> None:
    codecite.build(sample_repo)
    first = _calibration(sample_repo)
    index = codecite.load(sample_repo)
    scorer = index.scorer(10)
    tops = [scorer.retrieve_context(q).top_score for q in probe_questions(index.nodes)]
    assert first["probes"] == len(tops) and first["node_count"] == len(index.nodes)
    assert first["median_probe_score"] == pytest.approx(median(tops), abs=1e-4)
    assert first["score_floor"] == pytest.approx(SCORE_FACTOR * median(tops), abs=1e-4)
    assert first["offtopic_probes"] == 60
    assert 0.0 <= first["probes_refused"] <= 0.1 and first["offtopic_clarified"] >= 0.9
    codecite.build(sample_repo, full=True)
    assert _calibration(sample_repo) == first


def test_an_incremental_build_keeps_it_until_the_corpus_grows(sample_repo: Path) -> None:
    codecite.build(sample_repo)
    first = _calibration(sample_repo)
    phase = sample_repo / "geokit" / "phase.py"
    phase.write_text(phase.read_text() + "\n\ndef spare():\n    '''A spare helper.'''\n")
    codecite.build(sample_repo)
    kept = _calibration(sample_repo)
    assert kept == first  # one node more of 49: within the 5% drift
    extra = "".join(
        f"def helper_{i}(x):\n    '''Scale the survey readings by a factor {i}.'''\n"
        for i in range(6)
    )
    (sample_repo / "geokit" / "more.py").write_text(extra)
    codecite.build(sample_repo)
    again = _calibration(sample_repo)
    assert again["node_count"] == kept["node_count"] + 7 != kept["node_count"]
    assert not keep_previous(kept, again["node_count"])


def test_a_question_under_the_score_floor_is_clarified_and_says_why(built_sample: Path) -> None:
    index = codecite.load(built_sample)
    answer = index.ask(UNDER_FLOOR)
    meta = answer.metadata
    features = meta["confidence"]["features"]
    assert meta["path"] == "clarification"
    assert features["fell_short"] == "score"
    assert features["coverage"] >= CALIBRATED_COVERAGE_FLOOR
    assert (
        features["top_score"] < features["score_floor"] == _calibration(built_sample)["score_floor"]
    )
    assert "calibrated floor" in answer.response and meta["options"]  # still offers candidates
    # the fixed rule of an index without calibration answers it: coverage alone
    scorer = index.scorer(10)
    ctx = scorer.retrieve_context(UNDER_FLOOR)
    fixed = assess(scorer, ctx, calibration=None)
    assert fixed.confident and fixed.floor == DEFAULT_COVERAGE_FLOOR
    assert "score_floor" not in fixed.features


def test_an_answered_question_reports_every_signal(built_sample: Path) -> None:
    meta = codecite.load(built_sample).ask("how do I interpolate gaps in a series").metadata
    features = meta["confidence"]["features"]
    assert meta["path"] != "clarification" and features["fell_short"] is None
    assert features["top_score"] >= features["score_floor"]
    assert features["coverage"] >= features["coverage_floor"] == CALIBRATED_COVERAGE_FLOOR
    assert features["unknown_names"] == [] and features["vague"] is False


def test_a_configured_floor_ignores_the_calibration(sample_repo: Path) -> None:
    (sample_repo / "pyproject.toml").write_text("[tool.codecite]\nconfidence_floor = 0.5\n")
    codecite.build(sample_repo)
    meta = codecite.load(sample_repo).ask(UNDER_FLOOR).metadata
    assert meta["confidence"]["rule"] == "configured_floor" and meta["path"] != "clarification"
    out = _stats(sample_repo)
    assert "confidence_floor 0.5 configured (the calibration is not used)" in out


def test_stats_prints_the_calibration(built_sample: Path) -> None:
    cal = _calibration(built_sample)
    out = _stats(built_sample)
    line = next(x for x in out.splitlines() if "answer or ask:" in x)
    assert f"calibrated on {cal['probes']} questions generated from the index" in line
    assert f"score floor {cal['score_floor']:.2f}" in line
    assert f"{cal['offtopic_clarified']:.0%} of the off-topic questions" in line
    stats = json.loads(_stats(built_sample, "--json"))
    assert stats["calibration"] == cal


def _stats(repo: Path, *extra: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "codecite", "stats", *extra],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_a_coverage_just_under_the_floor_never_reads_as_equal_to_it() -> None:
    """A refusal said "the best evidence covers 30% of the query (< 30%)"."""
    from codecite.answers.confidence import shares

    assert shares(0.298, 0.30) == "29.8% (< 30.0%)"
    assert shares(0.21, 0.30) == "21% (< 30%)"
