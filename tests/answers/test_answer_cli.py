"""``codecite ask`` and ``codecite chat``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from codecite.cli.app import main


def test_ask_prints_answer_with_numbered_citations(built_sample: Path, capsys) -> None:
    assert main(["ask", "what parameters does load_survey take?", "-C", str(built_sample)]) == 0
    out = capsys.readouterr().out
    assert "[1] geokit/io.py:9-14 geokit.io.load_survey (python_symbol)" in out


def test_ask_json(built_sample: Path, capsys) -> None:
    assert main(["ask", "how do I bake bread", "-C", str(built_sample), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["metadata"]["path"] == "clarification"
    assert data["answer"].startswith("I need a clarification")


def test_ask_usage_errors(built_sample: Path, capsys) -> None:
    assert main(["ask", "x", "-C", str(built_sample), "--llm", "nonsense"]) == 2
    assert "PROVIDER:MODEL" in capsys.readouterr().err
    assert main(["ask", "  ", "-C", str(built_sample)]) == 2


def test_chat_multi_turn_with_a_session_file(
    built_sample: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    session = tmp_path / "chat.json"
    turns = "how do I load a survey line?\nwhat about its parameters?\n\nexit\nignored\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(turns))
    assert main(["chat", "-C", str(built_sample), "--session", str(session)]) == 0
    out = capsys.readouterr().out
    assert "for: what are the parameters of geokit.io.load_survey?" in out
    stored = json.loads(session.read_text())
    assert [t["query"] for t in stored["turns"]] == [
        "how do I load a survey line?",
        "what about its parameters?",
    ]


@pytest.mark.parametrize("command", ["ask", "chat"])
def test_help_lists_the_flags(command: str, capsys) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    for flag in ("--repo", "--config", "--index-dir", "--session", "--llm", "--rewrite", "--json"):
        assert flag in out


def test_main_in_a_host_process_leaves_its_collector_alone(built_sample, capsys) -> None:
    import gc

    before = gc.get_freeze_count()
    assert main(["query", "load survey", "-C", str(built_sample)]) == 0
    assert main(["ask", "what parameters does load_survey take?", "-C", str(built_sample)]) == 0
    assert gc.get_freeze_count() == before  # only the codecite command freezes its heap


def test_ask_rewrite_fuses_the_models_rewrites(built_sample: Path, capsys, monkeypatch) -> None:
    from answers_support import ScriptedLLM

    script = json.dumps({"rewrites": ["SurveyReader.read_station"], "answer": "read_station"})
    llm = ScriptedLLM(script=[script, "The station is read by read_station [1]."])
    monkeypatch.setattr("codecite.cli.answers.make_llm", lambda spec: llm)
    question = "open one site by its label"
    args = ["ask", question, "-C", str(built_sample), "--llm", "openai:x", "--json"]
    assert main([*args, "--rewrite"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["metadata"]["query_rewrite"]["rewrites"] == ["SurveyReader.read_station"]
    assert "Rewrite the question below" in llm.prompts[0]
    llm.prompts.clear()
    assert main(args) == 0  # without --rewrite the model is not asked to rewrite
    assert json.loads(capsys.readouterr().out)["metadata"]["query_rewrite"] is None
    assert not any("Rewrite the question below" in p for p in llm.prompts)
