"""Index build: fingerprint, stale checks, incremental = full, crash safety, the lock."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import codecite
from codecite.errors import IndexLockedError, StaleIndexError
from codecite.index import CodeciteIndex
from codecite.store import files as store
from codecite.store.lock import build_lock, lock_path


def _manifest(root: Path) -> dict:
    return json.loads((root / ".codecite" / "manifest.json").read_text())


def test_fingerprint_is_the_documented_formula(sample_repo: Path) -> None:
    codecite.build(sample_repo)
    manifest = _manifest(sample_repo)
    h = hashlib.sha256()
    for rel in sorted(manifest["files"]):
        digest = hashlib.sha256((sample_repo / rel).read_bytes()).hexdigest()
        h.update(f"{rel}:{digest}".encode())
    assert manifest["fingerprint"] == h.hexdigest()
    assert "geokit/io.py" in manifest["files"] and "docs/conf.py" not in manifest["files"]


def test_stale_after_content_change_not_after_touch(sample_repo: Path) -> None:
    codecite.build(sample_repo)
    index = codecite.load(sample_repo)
    target = sample_repo / "geokit" / "phase.py"
    later = time.time() + 100
    os.utime(target, (later, later))
    assert not index.is_stale()
    target.write_text(target.read_text() + "\n\ndef extra():\n    '''More.'''\n")
    assert index.is_stale()
    with pytest.raises(StaleIndexError, match="run `codecite build`"):
        CodeciteIndex.load(sample_repo, strict=True)


def _node_ids(root: Path) -> list[tuple[str, str]]:
    return sorted((n.node_id, n.get_content()) for n in codecite.load(root).nodes)


def test_incremental_build_equals_full_build(sample_repo: Path) -> None:
    codecite.build(sample_repo)
    (sample_repo / "geokit" / "io.py").write_text(
        (sample_repo / "geokit" / "io.py").read_text().replace("one at a time", "lazily")
    )
    (sample_repo / "geokit" / "extra.py").write_text('def added(x):\n    """New."""\n')
    (sample_repo / "docs" / "usage.md").unlink()
    report = codecite.build(sample_repo)
    assert report.reparsed == 2 and not report.up_to_date
    incremental = _node_ids(sample_repo)
    codecite.build(sample_repo, full=True)
    assert incremental == _node_ids(sample_repo)
    symbols = {n.metadata.get("symbol") for n in codecite.load(sample_repo).nodes}
    assert "geokit.extra.added" in symbols
    paths = {n.metadata["source_path"] for n in codecite.load(sample_repo).nodes}
    assert "docs/usage.md" not in paths


def _index_bytes(root: Path) -> dict[str, bytes]:
    """Every index file but the manifest (it holds the build time), by relative path."""
    index = root / ".codecite"
    return {
        p.relative_to(index).as_posix(): p.read_bytes()
        for p in sorted(index.rglob("*"))
        if p.is_file() and p.name != "manifest.json"
    }


def test_incremental_build_writes_exactly_what_a_full_build_writes(sample_repo: Path) -> None:
    """Reused node lines, term rows and keys, recomputed tables: all byte-equal to a full build.

    Re-exporting a helper of the unchanged private module flips its public flag,
    so a reused node line must be rewritten too.
    """
    codecite.build(sample_repo)
    private = {
        n.metadata["symbol"]: n.metadata.get("public")
        for n in codecite.load(sample_repo).nodes
        if n.metadata["source_path"] == "geokit/_private.py"
    }
    assert private["geokit._private.interpolate_gaps"] is False
    init = sample_repo / "geokit" / "__init__.py"
    init.write_text(init.read_text() + "from ._private import interpolate_gaps\n")
    (sample_repo / "geokit" / "extra.py").write_text('def added(x):\n    """New words."""\n')
    (sample_repo / "docs" / "usage.md").unlink()
    report = codecite.build(sample_repo)
    assert report.reparsed == 2 and not report.up_to_date
    incremental = _index_bytes(sample_repo)
    codecite.build(sample_repo, full=True)
    full = _index_bytes(sample_repo)
    assert sorted(incremental) == sorted(full)
    assert [rel for rel in full if incremental[rel] != full[rel]] == []
    nodes = {
        n.metadata["symbol"]: n.metadata
        for n in codecite.load(sample_repo).nodes
        if n.metadata.get("symbol")
    }
    assert nodes["geokit._private.interpolate_gaps"]["public"] is True


def test_no_change_build_says_up_to_date(sample_repo: Path) -> None:
    first = codecite.build(sample_repo)
    again = codecite.build(sample_repo)
    assert again.up_to_date and again.nodes == first.nodes and again.reparsed == 0


def test_error_inside_writer_keeps_previous_index(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codecite.build(sample_repo)
    before = _node_ids(sample_repo)
    (sample_repo / "geokit" / "phase.py").write_text('def changed():\n    """Changed."""\n')

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(store, "write_bytes_hashed", boom)
    monkeypatch.setattr("codecite.indexer.build.write_bytes_hashed", boom)
    with pytest.raises(RuntimeError, match="disk full"):
        codecite.build(sample_repo)
    assert _node_ids(sample_repo) == before
    assert not list(sample_repo.glob(".codecite.tmp-*"))
    assert not (sample_repo / ".codecite.lock").exists()  # released and removed


KILLER = """
import sys, time, codecite.indexer.build as b
stage = sys.argv[2]
orig = getattr(b, stage)
def slow(*a, **k):
    print("ready", flush=True)
    time.sleep(30)
    return orig(*a, **k)
setattr(b, stage, slow)
b.build_index(sys.argv[1], full=True)
"""


@pytest.mark.parametrize("stage", ["parse_file", "write_manifest", "swap_in"])
def test_killed_build_leaves_old_index_loadable(sample_repo: Path, stage: str) -> None:
    codecite.build(sample_repo)
    before = _node_ids(sample_repo)
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLER, str(sample_repo), stage], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert _node_ids(sample_repo) == before
    # the dead builder's lock is taken over by the next build
    assert codecite.build(sample_repo, full=True).nodes == len(before)


def test_second_concurrent_build_is_refused(sample_repo: Path) -> None:
    codecite.build(sample_repo)
    lock = lock_path(sample_repo / ".codecite")
    with build_lock(sample_repo / ".codecite"):
        assert json.loads(lock.read_text())["pid"] == os.getpid()
        with pytest.raises(IndexLockedError, match=rf"\(pid {os.getpid()}\).*--wait"):
            codecite.build(sample_repo, full=True)
    assert not lock.exists()


def test_manifest_records_counts_and_warnings(built_sample: Path) -> None:
    m = _manifest(built_sample)
    assert m["format_version"] == store.FORMAT_VERSION
    assert m["counts"]["by_kind"]["recipe"] == 2
    assert m["counts"]["by_workflow"]["static_shift"] == 2
    assert any("geokit/broken.py" in w and "partially parsed" in w for w in m["warnings"])
    skipped = {s["path"]: s["reason"] for s in m["skipped"]}
    assert skipped["geokit/tests/"] == "tests" and skipped["geokit/conftest.py"] == "tests"
    assert skipped["docs/conf.py"] == "built-in exclusion"
    assert set(m["checksums"]) >= {"nodes.jsonl", "symbols.json", "bm25/vocab.index.json"}


def test_test_suites_are_skipped_but_a_testing_subpackage_is_api(tmp_path: Path) -> None:
    pkg = tmp_path / "src" / "tool"
    for folder in ("", "testing", "_tests", "_core/_tests"):
        (pkg / folder).mkdir(parents=True, exist_ok=True)
        (pkg / folder / "__init__.py").write_text('"""Package."""\n')
    (pkg / "testing" / "clock.py").write_text('class MockClock:\n    """A fake clock."""\n')
    (pkg / "build").mkdir()  # a subpackage named like a build-output folder is code
    (pkg / "build" / "__init__.py").write_text('def wheel():\n    """Build a wheel."""\n')
    (tmp_path / "docs" / "build").mkdir(parents=True)  # ... while this one is output
    (tmp_path / "docs" / "build" / "page.md").write_text("# Generated\n\nBuilt page.\n")
    (pkg / "_tests" / "helpers.py").write_text('def make_fixture():\n    """A helper."""\n')
    (pkg / "_core" / "_tests" / "cases.py").write_text('def case():\n    """A case."""\n')
    suite = tmp_path / "docs" / "testing"  # a test suite outside any package
    suite.mkdir(parents=True)
    (suite / "__init__.py").write_text("")
    (suite / "helpers.py").write_text('def suite_helper():\n    """Help."""\n')
    report = codecite.build(tmp_path)
    symbols = {n.metadata.get("symbol") for n in codecite.load(tmp_path).nodes}
    assert {"tool.testing.clock.MockClock", "tool.build.wheel"} <= symbols
    assert not any(
        n.metadata["source_path"].startswith("docs/build/") for n in codecite.load(tmp_path).nodes
    )
    assert (
        not {
            "tool._tests.helpers.make_fixture",
            "tool._core._tests.cases.case",
            "testing.helpers.suite_helper",
        }
        & symbols
    )
    skipped = {s["path"]: s["reason"] for s in _manifest(tmp_path)["skipped"]}
    assert skipped["src/tool/_tests/"] == "tests" and skipped["docs/testing/"] == "tests"
    assert report.nodes > 0


def test_sphinx_extensions_and_themes_in_the_docs_are_not_indexed(tmp_path: Path) -> None:
    """falcon's docs/ext and parso's docs/_themes hold the docs' build code, not API."""
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "__init__.py").write_text('def serve():\n    """Serve."""\n')
    for rel in ("docs/ext/rfc.py", "docs/_themes/support.py", "doc/sphinxext/gallery.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text('def setup(app):\n    """Register the role."""\n')
    (tmp_path / "docs" / "index.md").write_text("# Web\n\nCall `serve`.\n")
    codecite.build(tmp_path)
    paths = {n.metadata["source_path"] for n in codecite.load(tmp_path).nodes}
    assert paths == {"web/__init__.py", "docs/index.md"}
    skipped = {s["path"]: s["reason"] for s in _manifest(tmp_path)["skipped"]}
    assert skipped["docs/ext/rfc.py"] == skipped["doc/sphinxext/gallery.py"] == "built-in exclusion"


def test_sphinx_gallery_output_is_not_indexed_beside_its_sources(tmp_path: Path) -> None:
    """imbalanced-learn's sdist ships examples/ and the gallery sphinx-gallery made of
    it (doc/auto_examples/, 88 files): the copy is build output, the sources are kept."""
    (tmp_path / "fit").mkdir()
    (tmp_path / "fit" / "__init__.py").write_text('def model():\n    """Make a model."""\n')
    script = '"""\nFit a model\n===========\n\nA fitted model.\n"""\nimport fit\n\nfit.model()\n'
    for rel in ("examples/plot_fit.py", "doc/auto_examples/plot_fit.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(script)
    (tmp_path / "doc" / "index.rst").write_text("Fit\n===\n\nThe docs.\n")
    codecite.build(tmp_path)
    paths = {n.metadata["source_path"] for n in codecite.load(tmp_path).nodes}
    assert "examples/plot_fit.py" in paths
    assert not any(p.startswith("doc/auto_examples/") for p in paths)
    skipped = {s["path"]: s["reason"] for s in _manifest(tmp_path)["skipped"]}
    assert skipped["doc/auto_examples/"] == "built-in exclusion"


def test_quarto_pages_are_read_as_markdown(tmp_path: Path) -> None:
    """bambi's docs are Quarto (.qmd): Markdown with a YAML header and code chunks."""
    (tmp_path / "fit").mkdir()
    (tmp_path / "fit" / "__init__.py").write_text('def model():\n    """Make a model."""\n')
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "priors.qmd").write_text(
        '---\ntitle: "Priors"\nformat: html\n---\n\n## Setting priors\n\n'
        "Pass a dictionary of priors to `model`.\n\n```{python}\nfit.model()\n```\n"
    )
    codecite.build(tmp_path)
    sections = [
        n for n in codecite.load(tmp_path).nodes if n.metadata["source_path"].endswith(".qmd")
    ]
    assert [n.metadata["kind"] for n in sections] == ["doc_section"]
    assert "Setting priors" in sections[0].get_content()
    assert "dictionary of priors" in sections[0].get_content()


def test_a_test_named_helper_module_of_a_package_is_api(tmp_path: Path) -> None:
    """falcon's testing/test_case.py and peewee's playhouse/test_utils.py are documented
    API; a test-named module that defines a test, or nothing but data, is a test's."""
    pkg = tmp_path / "web"
    (pkg / "testing").mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""Web."""\n')
    (pkg / "testing" / "__init__.py").write_text("from .test_case import TestCase\n")
    (pkg / "testing" / "test_case.py").write_text(
        'class TestCase:\n    """Base class for your tests::\n\n'
        '        def test_get(self):\n            self.simulate_get("/")\n    """\n\n'
        '    def simulate_get(self, path):\n        """Call the app."""\n'
    )
    (pkg / "test_utils.py").write_text('def count_queries():\n    """Count queries."""\n')
    (pkg / "test_app.py").write_text('def test_get():\n    """A test."""\n')
    (pkg / "data").mkdir()
    (pkg / "data" / "__init__.py").write_text("")
    (pkg / "data" / "test_data.py").write_text("KNOTS = [0.0, 0.5, 1.0]\n")  # numbers for tests
    (pkg / "data" / "app_test.py").write_text(
        'class TestApp:\n    async def test_post(self):\n        """A test."""\n'
    )
    # tests kept beside the modules (more than two in a folder): all tests, none read
    (pkg / "beside").mkdir()
    (pkg / "beside" / "__init__.py").write_text("")
    for name in ("test_one", "test_two", "test_helpers"):
        (pkg / "beside" / f"{name}.py").write_text('def make_app():\n    """An app."""\n')
    codecite.build(tmp_path)
    symbols = {n.metadata.get("symbol") for n in codecite.load(tmp_path).nodes}
    assert {"web.testing.test_case.TestCase", "web.test_utils.count_queries"} <= symbols
    skipped = {s["path"]: s["reason"] for s in _manifest(tmp_path)["skipped"]}
    tests = ("test_app", "data/test_data", "data/app_test", "beside/test_helpers")
    assert {skipped[f"web/{name}.py"] for name in tests} == {"tests"}


def test_a_lib_layout_is_indexed_under_its_import_names(tmp_path: Path) -> None:
    files = {
        "lib/plotkit/__init__.py": '"""Plotting."""\n',
        "lib/plotkit/pyplot.py": 'def plot(x):\n    """Plot x."""\n',
        "lib/kit_tools/axes/__init__.py": "",
        "lib/kit_tools/axes/three.py": 'class Axes3D:\n    """3D axes."""\n',
        "lib/quick.py": 'def show():\n    """Show."""\n',
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    codecite.build(tmp_path)
    symbols = {n.metadata.get("symbol") for n in codecite.load(tmp_path).nodes}
    assert {"plotkit.pyplot.plot", "kit_tools.axes.three.Axes3D", "quick.show"} <= symbols


def test_a_build_folder_with_doc_sources_is_documentation(tmp_path: Path) -> None:
    (tmp_path / "doc" / "build").mkdir(parents=True)  # SQLAlchemy's layout
    (tmp_path / "doc" / "build" / "conf.py").write_text("project = 'x'\n")
    (tmp_path / "doc" / "build" / "index.rst").write_text("Tool\n====\n\nHow to start.\n")
    (tmp_path / "docs" / "build" / "html").mkdir(parents=True)  # a Sphinx output folder
    (tmp_path / "docs" / "build" / "html" / "page.md").write_text("# Built\n\nOutput.\n")
    (tmp_path / "tool").mkdir()
    (tmp_path / "tool" / "__init__.py").write_text('"""A tool."""\n')
    codecite.build(tmp_path)
    paths = {n.metadata["source_path"] for n in codecite.load(tmp_path).nodes}
    assert "doc/build/index.rst" in paths
    assert not any(p.startswith("docs/build/") for p in paths)


def test_sphinx_pages_written_in_txt_are_documentation(tmp_path: Path) -> None:
    # WebOb's docs: conf.py says `source_suffix = ['.txt', '.rst']` and every page is .txt
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "conf.py").write_text("project = 'x'\nsource_suffix = ['.txt', '.rst']\n")
    (tmp_path / "docs" / "index.txt").write_text("Tool\n====\n\nSee :doc:`cookies`.\n")
    (tmp_path / "docs" / "cookies.txt").write_text("Cookies\n=======\n\nRead a signed cookie.\n")
    (tmp_path / "tool").mkdir()
    (tmp_path / "tool" / "__init__.py").write_text('"""A tool."""\n')
    (tmp_path / "tool" / "notes.txt").write_text("Not a page: outside the Sphinx folder.\n")
    # a docs folder with no conf.py whose master page is index.txt counts too
    (tmp_path / "doc").mkdir()
    (tmp_path / "doc" / "index.txt").write_text("Other\n=====\n\nMore pages.\n")
    codecite.build(tmp_path)
    nodes = codecite.load(tmp_path).nodes
    pages = {n.metadata["source_path"] for n in nodes if n.metadata["kind"] == "doc_section"}
    assert pages == {"docs/index.txt", "docs/cookies.txt", "doc/index.txt"}
    assert not any(n.metadata["source_path"] == "tool/notes.txt" for n in nodes)


def test_txt_files_of_an_rst_sphinx_folder_stay_unindexed(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "conf.py").write_text("source_suffix = '.rst'\n")
    (tmp_path / "docs" / "index.rst").write_text("Tool\n====\n\nHow to start.\n")
    (tmp_path / "docs" / "requirements.txt").write_text("sphinx\n")
    (tmp_path / "tool").mkdir()
    (tmp_path / "tool" / "__init__.py").write_text('"""A tool."""\n')
    codecite.build(tmp_path)
    paths = {n.metadata["source_path"] for n in codecite.load(tmp_path).nodes}
    assert "docs/index.rst" in paths and "docs/requirements.txt" not in paths


def _count_resolutions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The references the build resolves (the real resolver, its calls recorded)."""
    from codecite.indexer.refs import RefResolver

    seen: list[str] = []
    real = RefResolver._resolve_in

    def recorded(self: RefResolver, ref: str, module: str | None) -> str | None:
        seen.append(ref)
        return real(self, ref, module)

    monkeypatch.setattr(RefResolver, "_resolve_in", recorded)
    return seen


def test_one_doc_edit_resolves_only_its_new_references(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The symbol table is unchanged: references a previous build resolved are not resolved
    again, and the edges are those of a full build; a changed table resolves them all."""
    seen = _count_resolutions(monkeypatch)
    codecite.build(sample_repo)
    everything = len(seen)
    assert everything > 5 and len(set(seen)) == everything  # each reference once per build
    usage = sample_repo / "docs" / "usage.md"
    usage.write_text(
        usage.read_text() + "\n## Readers\n\n`geokit.io.SurveyReader`, then "
        ":func:`geokit.phase.strike_angle`.\n"  # the second, docs/index.rst names too
    )
    seen.clear()
    assert codecite.build(sample_repo).reparsed == 1
    assert seen == ["geokit.io.SurveyReader"]
    edges = (sample_repo / ".codecite" / "extras" / "doc_refs.json").read_bytes()
    codecite.build(sample_repo, full=True)
    assert (sample_repo / ".codecite" / "extras" / "doc_refs.json").read_bytes() == edges
    phase = sample_repo / "geokit" / "phase.py"
    phase.write_text(phase.read_text() + '\n\ndef dip_angle(z):\n    """Dip."""\n')
    seen.clear()
    codecite.build(sample_repo)
    assert len(seen) == everything + 1  # a new symbol: every reference is resolved again


def _many_files(root: Path, count: int) -> None:
    """``count`` more modules and pages than the parallel threshold asks for."""
    for i in range(count):
        (root / "geokit" / f"gen_{i:03d}.py").write_text(
            f'"""Generated module {i}."""\n\n\nclass Survey{i}:\n    """Station {i} data."""\n\n'
            f"    def resample_{i}(self, rate: float) -> None:\n"
            f'        """Resample to ``rate`` (see :func:`geokit.gen_{i:03d}.helper`)."""\n'
            f'\n\ndef helper(x: int = {i}) -> int:\n    """Add {i}; café."""\n    return x + {i}\n'
        )
        (root / "docs" / f"page_{i:03d}.md").write_text(
            f"# Page {i}\n\nUse `Survey{i}.resample_{i}` to resample; naïve rates fail.\n"
        )


def test_parallel_parse_writes_exactly_what_one_process_writes(
    sample_repo: Path, tmp_path: Path
) -> None:
    from codecite.config import load_config
    from codecite.indexer.build import build_index
    from codecite.indexer.parallel import PARALLEL_FROM, workers_for

    _many_files(sample_repo, PARALLEL_FROM)
    written = {}
    for workers in (1, 2):
        cfg = load_config(sample_repo).model_copy(update={"build_workers": workers})
        assert workers_for(cfg, PARALLEL_FROM) == workers
        report = build_index(sample_repo, full=True, cfg=cfg)
        assert report.reparsed > 2 * PARALLEL_FROM
        written[workers] = _index_bytes(sample_repo)
    one, two = written[1], written[2]
    assert sorted(one) == sorted(two)
    assert [rel for rel in one if one[rel] != two[rel]] == []
    index = codecite.load(sample_repo)
    assert "geokit.gen_007.Survey7.resample_7" in {n.metadata.get("symbol") for n in index.nodes}


def test_parallel_parse_keeps_one_string_per_distinct_token(sample_repo: Path) -> None:
    """A worker's tokens arrive as JSON text, a new string for each occurrence; the build
    keeps one object per distinct token, as a build in one process does (memory)."""
    from codecite.config import load_config
    from codecite.indexer.build import parse_file
    from codecite.indexer.parallel import PARALLEL_FROM, parse_many
    from codecite.indexer.walk import walk_corpus

    _many_files(sample_repo, PARALLEL_FROM)
    cfg = load_config(sample_repo).model_copy(update={"build_workers": 2})
    results = list(parse_many(walk_corpus(cfg).files, cfg, parse_file))
    tokens = [t for r in results for node in r.tokens for t in node]
    assert len(tokens) > 10 * len(set(tokens))  # the files share most of their words
    assert len({id(t) for t in tokens}) == len(set(tokens))


def test_few_files_parse_in_the_build_process(sample_repo: Path) -> None:
    from codecite.config import load_config
    from codecite.indexer.parallel import PARALLEL_FROM, workers_for

    cfg = load_config(sample_repo)
    assert workers_for(cfg, PARALLEL_FROM - 1) == 1
    assert workers_for(cfg.model_copy(update={"build_workers": 1}), 10 * PARALLEL_FROM) == 1


def test_a_killed_parse_worker_neither_hangs_nor_loses_files(sample_repo: Path) -> None:
    from codecite.config import load_config
    from codecite.indexer.build import parse_file
    from codecite.indexer.parallel import PARALLEL_FROM, parse_many
    from codecite.indexer.walk import walk_corpus

    _many_files(sample_repo, PARALLEL_FROM)
    cfg = load_config(sample_repo).model_copy(update={"build_workers": 2})
    files = walk_corpus(cfg).files
    parent = os.getpid()

    def dies_on_one_file(file: Any, cfg: Any) -> Any:
        if os.getpid() != parent and file.rel == files[len(files) // 2].rel:
            os._exit(9)  # as the kernel's out-of-memory killer would end it
        return parse_file(file, cfg)

    got = [(r.rel, r.records) for r in parse_many(files, cfg, dies_on_one_file)]
    assert got == [(f.rel, parse_file(f, cfg).records) for f in files]


def test_a_repository_whose_root_is_the_package_is_told_how_to_index_it(tmp_path: Path) -> None:
    from codecite.indexer.build import build_index

    (tmp_path / "__init__.py").write_text('"""Flat: the sdist is the package."""\n')
    (tmp_path / "main.py").write_text('def load(text):\n    """Load a document."""\n')
    (tmp_path / "README.md").write_text("# flatpkg\n\nLoads documents.\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "flatpkg"\n')
    report = build_index(tmp_path)
    assert not report.kinds.get("python_symbol")
    [warning] = report.warnings
    assert "no Python package found" in warning
    assert 'package_dirs = {"flatpkg" = "."}' in warning
    # the fix it names works
    with (tmp_path / "pyproject.toml").open("a") as fh:
        fh.write('[tool.codecite.package_dirs]\n"flatpkg" = "."\n')
    report = build_index(tmp_path)
    assert report.warnings == [] and report.kinds.get("python_symbol")
    symbols = {n.metadata.get("symbol") for n in codecite.load(tmp_path).nodes}
    assert "flatpkg.main.load" in symbols
