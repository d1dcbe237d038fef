"""Every ```` ```python ```` block of README.md and docs/*.md runs.

Each block is executed on its own (a fresh namespace) with the current folder
set to a temporary copy of the fixture repository ``tests/fixtures/sample_repo``
(the ``geokit`` package), which is built first, as after ``codecite build``.
Blocks of one page share that copy, in page order. Write snippets against the
fixture; a block that genuinely cannot run (it needs a key, a model download
or a file of the reader's own) is marked with ``<!-- not-executed: reason -->``
on the line before its fence. Pages written and tested elsewhere are listed
in ``OWNED_ELSEWHERE`` with the reason.

Also: relative links between the pages point at files that exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docs_support import DOCS, REPO, Block, blocks, fixture_copy

import codecite

PYTHON = frozenset({"python", "py"})
OWNED_ELSEWHERE = {
    "dense.md": "dense retrieval docs; its snippets need a model or a key and a path of the "
    "reader's own, and are exercised by tests/dense",
}
PAGES = [REPO / "README.md", *sorted(p for p in DOCS.glob("*.md") if p.name not in OWNED_ELSEWHERE)]
SNIPPETS = [b for page in PAGES for b in blocks(page, PYTHON)]


@pytest.fixture(scope="module")
def built_copies(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, Path]:
    """One built copy of the fixture per page."""
    copies = {}
    for page in PAGES:
        repo = fixture_copy(tmp_path_factory.mktemp(page.stem))
        codecite.build(repo)
        copies[page] = repo
    return copies


# The agent example (docs/answers.md) makes llama-index-workflows inspect the agent's
# members, touching pydantic's deprecated ``__fields__``; the warning is attributed to
# ``inspect``, so pyproject's pydantic filter misses it (as in tests/answers).
@pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecationWarning")
@pytest.mark.parametrize("block", SNIPPETS, ids=lambda b: b.id)
def test_python_snippet_runs(
    block: Block, built_copies: dict[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    if block.skip_reason:
        pytest.skip(f"not executed: {block.skip_reason}")
    monkeypatch.chdir(built_copies[block.page])
    code = compile(block.text, block.id, "exec")
    exec(code, {"__name__": "__doc_snippet__"})


def test_some_snippets_are_executed() -> None:
    executed = [b for b in SNIPPETS if not b.skip_reason]
    assert len(executed) >= 10
    assert len(executed) >= 3 * (len(SNIPPETS) - len(executed))  # markers used sparingly


_LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")
_FILE_TARGET = re.compile(r"(/|\.(md|ipynb|py|jsonl|toml))$")


@pytest.mark.parametrize(
    "page",
    [REPO / "README.md", REPO / "CHANGELOG.md", *sorted(DOCS.glob("*.md"))],
    ids=lambda p: p.name,
)
def test_relative_links_resolve(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    broken = [
        target
        for target, _ in _LINK.findall(text)
        if "://" not in target
        and _FILE_TARGET.search(target)
        and not (page.parent / target).exists()
    ]
    assert not broken, f"{page.name} links to missing files: {broken}"
