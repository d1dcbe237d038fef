"""Zero configuration on the fixture repository: realistic questions answered with the
right citations, out-of-scope questions met with a clarification.

The helpers (``assert_answered`` / ``assert_clarified``) take any loaded index,
so the same checks run on other corpora (codecite's own index).
"""

from __future__ import annotations

import pytest
from answers_support import assert_answered, assert_clarified

ANSWERED = [
    ("how do I correct static shift on a survey line?", {"recipes/static_shift.md"}),
    ("what parameters does load_survey take?", {"geokit/io.py"}),
    ("how do I compute the geoelectric strike angle?", {"geokit/phase.py"}),
    ("what does StaticShiftAgent.run return?", {"geokit/agents/static_shift.py"}),
    ("how are stations sorted when loading a survey?", {"docs/index.rst", "geokit/io.py"}),
    (
        "how do I estimate the static shift factor with a moving average window?",
        {"geokit/agents/static_shift.py"},
    ),
    ("what is the phase tensor skew?", {"geokit/phase.py"}),
    ("how do I read a single station from a survey folder?", {"geokit/io.py"}),
    (
        "write a script that loads a survey line and sorts it by latitude",
        {"docs/usage.md", "geokit/io.py"},
    ),
    ("what file format is assumed when a path has no suffix?", {"geokit/io.py"}),
    (
        "how do I create a StaticShiftAgent from a configuration mapping?",
        {"geokit/agents/static_shift.py"},
    ),
]
OUT_OF_SCOPE = [
    "how do I bake bread",
    "why is it slow",
    "how do I merge two pandas DataFrames?",
    "how do I configure Django middleware?",
    "what is the capital of France?",
    "it does not work, any ideas?",
]


@pytest.mark.parametrize(("question", "paths"), ANSWERED)
def test_realistic_question_is_answered_with_citations(
    geokit_index, question: str, paths: set[str]
) -> None:
    assert_answered(geokit_index, question, paths)


@pytest.mark.parametrize("question", OUT_OF_SCOPE)
def test_out_of_scope_question_gets_a_clarification(geokit_index, question: str) -> None:
    assert_clarified(geokit_index, question)


def test_specific_symbols_are_cited_first(geokit_index) -> None:
    expected = {
        "what does StaticShiftAgent.run return?": "geokit/agents/static_shift.py:65-68",
        "how do I read a single station from a survey folder?": "geokit/io.py:23-25",
        "what file format is assumed when a path has no suffix?": "geokit/io.py:5-5",
    }
    for question, ref in expected.items():
        assert geokit_index.ask(question).metadata["citations"][0]["ref"] == ref
