"""Project registry, sessions and follow-up rewriting (unit and multi-turn)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codecite.answers.followups import rewrite_followup
from codecite.answers.registry import ProjectRegistry, RegistryEntry
from codecite.answers.session import Session, Turn
from codecite.config import load_config
from codecite.errors import ConfigError

REG = ProjectRegistry(
    [
        RegistryEntry("L22", ("line 22", "northern line"), "data/L22", {"window": 7}),
        RegistryEntry("L3", (), "data/L3"),
        RegistryEntry("prod-env", ("production",)),
    ]
)


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("correct static shift on line 22", "L22"),
        ("correct static shift on L22", "L22"),
        ("correct static shift on l22", "L22"),
        ("correct static shift on L-22", "L22"),
        ("correct static shift on L 22", "L22"),
        ("use the Northern  Line", "L22"),
        ("now do it on line 3", "L3"),  # "line" introduces names (alias of L22), L3 -> l + 3
        ("deploy to production", "prod-env"),
        ("deploy to PROD_ENV", "prod-env"),
    ],
)
def test_mentions_are_case_spacing_and_alias_tolerant(query: str, name: str) -> None:
    assert REG.resolve(query).name == name


@pytest.mark.parametrize("query", ["list 22 items", "line 4", "the l2 norm", "22 stations"])
def test_no_false_mentions(query: str) -> None:
    assert REG.resolve(query) is None


def test_registry_file_json_and_toml(tmp_path: Path) -> None:
    (tmp_path / "reg.json").write_text(json.dumps({"L7": {"aliases": ["line 7"], "path": "d/L7"}}))
    (tmp_path / "reg.toml").write_text('[registry.L9]\npath = "d/L9"\n')
    for name, expected in (("reg.json", "L7"), ("reg.toml", "L9")):
        cfg = load_config(tmp_path, registry_file=name)
        assert ProjectRegistry.from_config(cfg).get(expected).path.startswith("d/")


def test_registry_file_outside_the_repository_is_refused(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "reg.json").write_text("{}")
    cfg = load_config(repo)
    cfg = type(cfg)(**{**cfg.__dict__, "registry_file": "../reg.json"})
    with pytest.raises(ConfigError, match="outside the repository"):
        ProjectRegistry.from_config(cfg)


def test_session_round_trips_and_records_workflows_as_not_run(tmp_path: Path) -> None:
    path = tmp_path / "s" / "session.json"
    s = Session.load(path)
    s.record(
        Turn(
            "run static shift on L22",
            "run static shift on L22",
            "workflow",
            "offline_answer",
            "static_shift",
            "L22",
            ("pkg.f", "pkg.g"),
            ("a.py:1-2",),
        )
    )
    again = Session.load(path)
    assert again.turns == s.turns and again.last_symbol == "pkg.f"
    assert again.choices == {"line": "L22"}
    assert again.workflow_history[0]["status"] == "reported, not run"
    on_disk = json.loads(path.read_text(encoding="utf-8"))
    assert on_disk["turns"][0]["line"] == "L22" and "entry" not in on_disk["turns"][0]
    assert again.turns[0].entry == again.last_entry == "L22"


def test_corrupt_session_file_names_the_fix(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text("{not json")
    with pytest.raises(ConfigError, match="delete it"):
        Session.load(tmp_path / "s.json")


def _session(*turns: Turn) -> Session:
    return Session(turns=list(turns))


def test_rewrite_rules_unit() -> None:
    s = _session(
        Turn(
            "correct static shift on L22",
            "correct static shift on L22",
            "workflow",
            "offline_answer",
            entry="L22",
            symbols=("geokit.a.estimate_ss_ama", "geokit.a.StaticShiftAgent"),
        )
    )
    assert (
        rewrite_followup("now do it on line 3", s, REG).standalone == "correct static shift on L3"
    )
    assert (
        rewrite_followup("what about its parameters?", s, REG).standalone
        == "what are the parameters of geokit.a.estimate_ss_ama?"
    )
    assert rewrite_followup("do it again", s, REG).standalone == "correct static shift on L22"
    on_class = _session(
        Turn(
            "what is StaticShiftAgent",
            "what is StaticShiftAgent",
            "question",
            "offline_answer",
            symbols=("geokit.a.StaticShiftAgent",),
        )
    )
    for asked in ("what about its run method?", "how about its run method"):  # the member, by name
        rewrite = rewrite_followup(asked, on_class, REG)
        assert (rewrite.rule, rewrite.standalone.rstrip("?")) == (
            "pronoun",
            "what is geokit.a.StaticShiftAgent.run",
        )
    assert (
        rewrite_followup("and the other one?", s, REG).standalone
        == "correct static shift on L22 with geokit.a.StaticShiftAgent"
    )
    assert (
        rewrite_followup("show me an example of that", s, REG).standalone
        == "show me an example of geokit.a.estimate_ss_ama"
    )
    # the first symbol's leaf written as a name is swapped for the second; as an English
    # word ("run" of Agent.run in "run the correction") it is left alone
    for asked, symbols, standalone in (
        (
            "what does `estimate_ss_ama` return",
            ("geokit.a.estimate_ss_ama", "geokit.a.Other"),
            "what does `geokit.a.Other` return",
        ),
        (
            "run the static shift correction on L3",
            ("geokit.a.Agent.run", "geokit.a.Agent"),
            "run the static shift correction on L3 with geokit.a.Agent",
        ),
        (
            "call Agent.run() on L3",
            ("geokit.a.Agent.run", "geokit.a.Agent.plot"),
            "call geokit.a.Agent.plot() on L3",
        ),
    ):
        turn = Turn(asked, asked, "question", "offline_answer", symbols=symbols)
        assert rewrite_followup("and the other one?", _session(turn), REG).standalone == standalone
    for bare, standalone in (
        ("show me an example", "show me an example of geokit.a.estimate_ss_ama"),
        ("parameters?", "parameters of geokit.a.estimate_ss_ama"),
        ("example please", "example of geokit.a.estimate_ss_ama"),
    ):
        rewrite = rewrite_followup(bare, s, REG)
        assert (rewrite.rule, rewrite.standalone) == ("bare", standalone)
    assert rewrite_followup("show me an example of the timed one", s, REG).rule is None
    standalone = "how do I load a survey line and sort the stations by latitude"
    assert rewrite_followup(standalone, s, REG).rule is None
    assert rewrite_followup("now do it on line 3", None, REG).rule is None


# -- multi-turn, through the engine on the fixture index --------------------------------------


def _conversation(index, turns: list[str]) -> tuple[list, Session]:
    session = Session()
    engine = index.as_query_engine(session=session)
    return [engine.query(t) for t in turns], session


def test_followup_parameters_of_the_last_symbol(geokit_index) -> None:
    (_, second), _ = _conversation(
        geokit_index, ["how do I load a survey line?", "what about its parameters?"]
    )
    assert (
        second.metadata["standalone_query"] == "what are the parameters of geokit.io.load_survey?"
    )
    assert second.metadata["path"] == "offline_answer"
    assert second.metadata["citations"][0]["path"] == "geokit/io.py"
    assert 'sort_by = "lon" (keyword-only)' in str(second)


def test_followup_example_of_that(geokit_index) -> None:
    (_, second), _ = _conversation(
        geokit_index, ["what does strike_angle compute?", "show me an example of that"]
    )
    assert second.metadata["standalone_query"] == "show me an example of geokit.phase.strike_angle"
    assert "examples/plot_strike.py" in [c["path"] for c in second.metadata["citations"]]


def test_followup_the_other_one(geokit_index) -> None:
    (_, second), session = _conversation(
        geokit_index,
        ["how do I estimate the static shift factor with a moving average?", "and the other one?"],
    )
    lead, other = session.turns[0].symbols[:2]
    assert lead.endswith("estimate_ss_ama")
    assert other in second.metadata["standalone_query"]
    assert second.metadata["rewrite"] == "other"


def test_followup_now_do_it_on_another_line(floored_index) -> None:
    (first, second), session = _conversation(
        floored_index, ["run the static shift correction on line 22", "now do it on line 3"]
    )
    assert first.metadata["line"]["name"] == "L22"
    assert second.metadata["standalone_query"] == "run the static shift correction on L3"
    assert second.metadata["line"]["path"] == "data/L3"
    assert [h["line"] for h in session.workflow_history] == ["L22", "L3"]
    assert all(h["status"] == "reported, not run" for h in session.workflow_history)


def test_followup_what_does_it_return(geokit_index) -> None:
    (_, second), _ = _conversation(
        geokit_index, ["how do I run the StaticShiftAgent on a line?", "what does it return?"]
    )
    assert second.metadata["standalone_query"].startswith("what does geokit.agents")
    assert "ShiftResult" in str(second)


def test_followup_bare_and_keeps_the_topic(geokit_index) -> None:
    (_, second), _ = _conversation(
        geokit_index, ["how are stations sorted when loading a survey?", "and by latitude?"]
    )
    assert second.metadata["rewrite"] == "topic"
    assert "latitude" in second.metadata["standalone_query"]
    assert "docs/usage.md" in [c["path"] for c in second.metadata["citations"][:3]]


def test_session_on_disk_carries_a_conversation_across_processes(
    geokit_index, tmp_path: Path
) -> None:
    path = tmp_path / "session.json"
    geokit_index.ask("how do I load a survey line?", session=Session.load(path))
    second = geokit_index.ask("what about its parameters?", session=Session.load(path))
    assert "geokit.io.load_survey" in second.metadata["standalone_query"]
    assert len(Session.load(path).turns) == 2
