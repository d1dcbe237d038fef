"""Context assembly: citations, API cards, related symbols, the token budget."""

from __future__ import annotations

import pytest

from codecite.answers.confidence import Confidence
from codecite.answers.context import (
    ApiCard,
    assemble,
    estimate_tokens,
    first_sentence,
    fit_evidence,
    resolve_ref,
)
from codecite.answers.routing import route_query

CONF = Confidence(True, 1.0, 0.35, "calibrated", "test")


def _assemble(index, query: str, kind: str | None = None, **kw):
    ctx = index.retriever(8, kind=kind).retrieve_context(query)
    return assemble(index, ctx, CONF, route_query(query), **kw)


def test_citations_are_numbered_in_rank_order(geokit_index) -> None:
    actx = _assemble(geokit_index, "what parameters does load_survey take?")
    first = actx.citations[0]
    assert [c.id for c in actx.citations] == list(range(1, len(actx.citations) + 1))
    assert (first.ref, first.label, first.kind) == (
        "geokit/io.py:9-14",
        "geokit.io.load_survey",
        "python_symbol",
    )


def test_api_card_has_the_real_signature(geokit_index) -> None:
    actx = _assemble(geokit_index, "StaticShiftAgent run inplace")
    card = next(c for c in actx.api_cards if c.symbol.endswith("StaticShiftAgent.run"))
    assert card.signature == "run(self, data, *, inplace: bool = False) -> ShiftResult"
    assert card.returns == "ShiftResult"
    inplace = next(p for p in card.params if p.name == "inplace")
    assert (inplace.annotation, inplace.default, inplace.kind) == ("bool", "False", "keyword_only")
    assert card.summary == "Correct the static shift of ``data`` and return a :class:`ShiftResult`."
    assert "parameters: data; inplace: bool = False (keyword-only)" in card.render()


def test_first_sentence() -> None:
    assert first_sentence("Load files. Then sort.\n\nMore.") == "Load files."
    assert first_sentence("One line\nwrapped here.\n\nNext.") == "One line wrapped here."
    assert first_sentence(None) == ""


def test_related_symbols_neighbours_and_doc_refs(geokit_index) -> None:
    code = _assemble(geokit_index, "what does StaticShiftAgent.run return?", max_evidence=1)
    assert "geokit.agents.static_shift.StaticShiftAgent.from_config" in code.related
    assert "geokit.agents.static_shift.StaticShiftAgent" in code.related
    assert not any(r.rsplit(".", 1)[1].startswith("_") for r in code.related)
    doc = _assemble(
        geokit_index,
        "Estimating the shift one factor per station",
        kind="doc_section",
        max_evidence=1,
    )
    assert doc.evidence[0].metadata["kind"] == "doc_section"
    assert doc.related == ("geokit.agents.static_shift.estimate_ss_ama",)


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("estimate_ss_ama", "geokit.agents.static_shift.estimate_ss_ama"),
        ("geokit.estimate_ss_ama", "geokit.agents.static_shift.estimate_ss_ama"),
        (
            "~geokit.agents.static_shift.StaticShiftAgent",
            "geokit.agents.static_shift.StaticShiftAgent",
        ),
        ("strike_angle()", "geokit.phase.strike_angle"),
        ("no_such_thing", None),
    ],
)
def test_resolve_ref(geokit_index, ref: str, expected: str | None) -> None:
    assert resolve_ref(ref, geokit_index) == expected


def test_budget_keeps_rank_order_and_whole_citation_headers(geokit_index) -> None:
    ctx = geokit_index.retriever(8).retrieve_context("static shift correction agent")
    evidence, dropped = fit_evidence(ctx.nodes, budget=120)
    assert dropped == len(ctx.nodes) - len(evidence) > 0
    assert [e.node for e in evidence] == ctx.nodes[: len(evidence)]
    for ev in evidence:
        header = ev.render().split("\n", 1)[0]
        assert header == ev.citation.header()
        assert header.endswith(f"({ev.citation.kind})")
    assert sum(estimate_tokens(e.render()) + 1 for e in evidence) <= 120


def test_budget_bounds_the_rendered_context(geokit_index) -> None:
    for budget in (150, 400, 3000):
        actx = _assemble(geokit_index, "static shift correction agent", budget=budget)
        assert actx.tokens() <= budget, budget
    small = _assemble(geokit_index, "static shift correction agent", budget=150)
    large = _assemble(geokit_index, "static shift correction agent", budget=3000)
    assert small.dropped > large.dropped == 0
    assert small.citations[0] == large.citations[0]


def test_tiny_budget_still_keeps_the_top_citation(geokit_index) -> None:
    ctx = geokit_index.retriever(8).retrieve_context("static shift correction agent")
    evidence, _ = fit_evidence(ctx.nodes, budget=5)
    assert len(evidence) == 1 and evidence[0].truncated
    assert evidence[0].render().startswith(evidence[0].citation.header() + "\n")


def test_api_card_render_example() -> None:
    card = ApiCard("pkg.f", "function", "f(x, y=1)", (), None, "Add.", 1)
    assert card.render() == "[1] pkg.f (function)\n  signature: f(x, y=1)\n  summary: Add."


def test_neighbour_maps_list_members_file_symbols_and_leaves_in_table_order() -> None:
    from codecite.store.symbols import SymbolTable

    sym = {"kind": "python_symbol", "source_path": "pkg/a.py"}
    table = SymbolTable(
        symbols={
            "pkg.a.Box": sym,
            "pkg.a.Box.open": {"kind": "python_method"},
            "pkg.a.helper": sym,
            "pkg.a.Box.Inner.close": {"kind": "python_method"},
            "pkg.b.open": {"kind": "python_symbol", "source_path": "pkg/b.py"},
            "pkg.a.Box.seal": {"kind": "python_method"},
        }
    )
    members, in_file, by_leaf = table.related_maps()
    assert members["pkg.a.Box"] == ["pkg.a.Box.open", "pkg.a.Box.seal"]  # not Inner.close
    assert in_file == {"pkg/a.py": ["pkg.a.Box", "pkg.a.helper"], "pkg/b.py": ["pkg.b.open"]}
    assert by_leaf["open"] == ["pkg.a.Box.open", "pkg.b.open"]
    assert table.related_maps() is table.related_maps()  # made once


@pytest.mark.parametrize("budget", [60, 90, 120])
def test_one_item_left_over_budget_is_shortened_to_fit(geokit_index, budget: int) -> None:
    actx = _assemble(geokit_index, "static shift correction agent", budget=budget, max_evidence=1)
    assert len(actx.evidence) == 1 and actx.tokens() <= budget
