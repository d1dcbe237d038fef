"""Documentation written into type hints (``Annotated[T, Doc("...")]``, FastAPI's style)
is shown as the parameter's description, not as an 18,000-character signature."""

from __future__ import annotations

from pathlib import Path

import pytest

import codecite
from codecite.server.resident import ResidentIndex
from codecite.server.tools import lookup_symbol

PARAMS = 30


def _source() -> str:
    params = [
        f'    p{i}: Annotated[\n        int | None,\n        Doc("""\n            Option {i}, see'
        f" [the guide](https://example.org/{i}), (a, b).\n            " + "More words. " * 20 + "\n"
        '        """),\n    ] = None,'
        for i in range(PARAMS)
    ]
    return (
        "from typing import Annotated, Any\n\nfrom annotated_doc import Doc\n\n\n"
        "def Query(\n" + "\n".join(params) + "\n) -> Any:\n    return None\n"
    )


@pytest.fixture(scope="module")
def webkit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("webkit_repo")
    (root / "webkit").mkdir()
    (root / "webkit" / "__init__.py").write_text(
        '"""Web helpers."""\n\nfrom .params import Query\n', encoding="utf-8"
    )
    (root / "webkit" / "params.py").write_text(_source(), encoding="utf-8")
    codecite.build(root)
    return root


def test_the_answer_shows_types_and_each_parameters_own_words(webkit: Path) -> None:
    index = codecite.load(webkit)
    answer = str(index.ask("what arguments does webkit.Query take", token_budget=500))
    assert "Doc(" not in answer and "`webkit.params.Query` — `Query(p0: int | None = None" in answer
    own_words = "Option 1, see [the guide](https://example.org/1), (a, b)."
    assert f"p1: int | None = None — {own_words}" in answer
    assert f"({PARAMS - 12} more)" in answer  # a card lists twelve, then says how many more
    assert len(answer) < 3000  # the source signature alone is 14 times that


def test_lookup_symbol_gives_the_parameters_their_documentation(webkit: Path) -> None:
    found = lookup_symbol(ResidentIndex(webkit), "webkit.Query")
    assert found["found"] and "Doc(" not in found["signature"]
    assert found["signature"].startswith("Query(p0: int | None = None, p1: int | None = None")
    first = found["params"][0]
    assert first["annotation"] == "int | None"
    assert first["doc"].startswith("Option 0, see [the guide]")
    assert all("Doc(" not in (p["annotation"] or "") for p in found["params"])


def test_a_documented_return_is_the_cards_return() -> None:
    """photutils' ``detect_sources`` documents its return in a numpydoc ``Returns``
    section (no annotation): "what does detect_sources return" showed no return."""
    from codecite.answers.context import api_card
    from codecite.node_parsers.signatures import documented_returns

    numpydoc = (
        "Detect sources.\n\n    Parameters\n    ----------\n    data : array\n        The data.\n\n"
        "    Returns\n    -------\n    segment_image : `SegmentationImage` or `None`\n"
        "        A 2D segmentation image. None when no source is found.\n\n"
        "    See Also\n    --------\n    find_peaks\n"
    )
    meta = {"kind": "python_symbol", "symbol": "pkg.detect_sources", "docstring": numpydoc}
    card = api_card(meta, 1)
    assert card is not None
    assert (
        card.returns == "segment_image : `SegmentationImage` or `None` — A 2D segmentation image."
    )
    assert api_card({**meta, "returns": "SegmentationImage"}, 1).returns == "SegmentationImage"
    google = "Fit it.\n\nReturns:\n    The fitted model. Unchanged input.\n"
    assert documented_returns(google) == "The fitted model. Unchanged input."
    assert documented_returns("Returns the sum of a and b.") is None  # prose, no section
