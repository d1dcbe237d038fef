"""Zero-config retrieval quality on real packages (the public dev suites).

    python tests/benchmarks/bench_quality.py [--corpora DIR] [--suites DIR]
    python tests/benchmarks/bench_quality.py --heldout   # tests/benchmarks/heldout/
    python tests/benchmarks/bench_quality.py --suite my.jsonl=path/to/corpus ...
    python tests/benchmarks/bench_quality.py --all   # every suite, one line each, flagged
    python tests/benchmarks/bench_quality.py --all --set name_boost=1.0   # a counterfactual

Builds each corpus (unmodified PyPI sdists of jinja2 3.1.6 and attrs 26.1.0)
with no configuration into a temporary index folder, runs its question suite
and prints, per suite: symbol hit@1/5/10, MRR@10, source hit@10, paraphrase
hit@5, clarification precision/recall, for stock LlamaIndex (SentenceSplitter +
BM25Retriever) and for codecite with its zero-config features added one at a
time, so the lift of each is visible; then the same per question kind for stock
LlamaIndex and the shipped configuration. Downloads nothing: get the corpora once
as ../shared/dev-suites/README.md says (``pip download --no-binary :all: ...``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import codecite
from codecite.evals import load_suites, run_eval

REPO = Path(__file__).resolve().parents[2]
SUITES = {"jinja2": "jinja2-3.1.6", "attrs": "attrs-26.1.0"}
HELD_OUT = {
    "click": "click-8.1.7",
    "marshmallow": "marshmallow-3.23.1",
    "structlog": "structlog-24.4.0",
    "cattrs": "cattrs-24.1.2",
    "flask": "flask-3.0.3",
    "itsdangerous": "itsdangerous-2.2.0",
    "packaging": "packaging-24.1",
    "pluggy": "pluggy-1.5.0",
    "wtforms": "wtforms-3.1.2",
    "cachetools": "cachetools-5.5.0",
    "blinker": "blinker-1.8.2",
    "markupsafe": "markupsafe-3.0.2",
    "werkzeug": "werkzeug-3.0.6",
    "urllib3": "urllib3-2.2.3",
    "anyio": "anyio-4.6.0",
    "trio": "trio-0.27.0",
    "humanize": "humanize-4.11.0",
    "h2": "h2-4.1.0",
    "wsproto": "wsproto-1.2.0",
    "build": "build-1.2.2",
    "installer": "installer-0.7.0",
    "seaborn": "seaborn-0.13.2-src",
    "lmfit": "lmfit-1.3.2-src",
    "rich": "rich-13.9.4-src",
    "httpx": "httpx-0.27.2-src",
    "requests": "requests-2.32.3-src",
    "arrow": "arrow-1.3.0-src",
    "tqdm": "tqdm-4.66.5-src",
    "tomlkit": "tomlkit-0.13.2-src",
    "markdown_it": "markdown-it-py-3.0.0-src",
    "pint": "pint-0.24.3-src",
    "jsonschema": "jsonschema-4.23.0-src",
    "dateutil": "python-dateutil-2.9.0.post0-src",
    "emcee": "emcee-3.1.6-src",
    "uncertainties": "uncertainties-3.2.2-src",
    "babel": "babel-2.19.0",
    "sqlparse": "sqlparse-0.6.1",
    "pyparsing": "pyparsing-3.3.3",
    "more_itertools": "more_itertools-11.2.1",
    "networkx": "networkx-3.6.1",
    "xarray": "xarray-2026.9.0",
    "pyjwt": "pyjwt-2.15.1",
    "bleach": "bleach-6.4.0",
    "patsy": "patsy-1.0.3",
    "simpy": "simpy-4.1.2",
    "tenacity": "tenacity-9.2.1",
    "pydash": "pydash-8.1.0",
    "asteval": "asteval-1.0.10",
    "periodictable": "periodictable-1.7.1",
    "mistune": "mistune-3.4.0",
    "feedparser": "feedparser-6.0.14",
    "lark": "lark-1.2.2",
    "bs4": "beautifulsoup4-4.12.3",
    "peewee": "peewee-3.17.9",
    "pygments": "pygments-2.21.0",
    "docx": "python-docx-1.1.2",
    "boltons": "boltons-24.1.0",
    "shapely": "shapely-2.0.7",
    "mako": "mako-1.3.10",
    "alembic": "alembic-1.13.3",
    "docutils": "docutils-0.21.2",
    "kombu": "kombu-5.4.2",
    "traitlets": "traitlets-5.14.3",
    "yarl": "yarl-1.9.11",
    "zope_interface": "zope.interface-7.2",
    "falcon": "falcon-4.0.2",
    "icalendar": "icalendar-7.3.0",
    "typeguard": "typeguard-4.6.0",
    "colander": "colander-2.0",
    "glom": "glom-25.12.0",
    "cachelib": "cachelib-0.17.0",
    "webargs": "webargs-8.7.1",
    "blessed": "blessed-1.52.0",
    "pexpect": "pexpect-4.9.0",
    "h11": "h11-0.16.0",
    "mpmath": "mpmath-1.4.1",
    "hpack": "hpack-4.2.0",
    "cmd2": "cmd2-4.3.1",
    "dynesty": "dynesty-3.1.0",
    "corner": "corner-2.3.0",
    "pvlib": "pvlib-0.16.1",
    "numdifftools": "numdifftools-0.9.39",
    "pyvo": "pyvo-1.10.0",
    "specutils": "specutils-2.4.0",
    "scrapy": "scrapy-2.19.0",
    "sh": "sh-2.4.0",
    "pyqtgraph": "pyqtgraph-0.13.7",
    "pint_xarray": "pint-xarray-0.6.1",
    "fsspec": "fsspec-2026.9.0",
    "paramiko": "paramiko-5.1.0",
    "parsel": "parsel-1.12.1",
    "hyperlink": "hyperlink-21.0.0",
    "semver": "semver-3.1.2",
    "tablib": "tablib-3.10.0",
    "astroplan": "astroplan-0.10.1",
    "ccdproc": "ccdproc-2.5.1",
    "nibabel": "nibabel-5.4.2",
    "pydicom": "pydicom-3.0.2",
    "markdown": "markdown-3.11.3",
    "control": "control-0.10.2",
    "xmlschema": "xmlschema-4.3.2",
    "quantities": "quantities-0.16.4",
    "apscheduler": "apscheduler-3.11.3",
    "gwcs": "gwcs-1.0.3",
    "webob": "webob-1.8.11",
    "spectral_cube": "spectral_cube-0.7.0",
    "deepdiff": "deepdiff-9.1.0-r31",
    "radio_beam": "radio_beam-0.3.10-r31",
    "plumbum": "plumbum-2.0.2-r31",
    "deap": "deap-1.4.4-r31",
    "coverage": "coverage-7.6.4-r32",
    "gunicorn": "gunicorn-23.0.0-r32",
    "hmmlearn": "hmmlearn-0.3.3-r32",
    "stingray": "stingray-2.3.2-r32",
    "huey": "huey-3.5.4-r33",
    "ciw": "ciw-3.2.7-r33",
    "socketio": "python-socketio-5.18.1-r33",
    "pysindy": "pysindy-2.1.0-r33",
    "dogpile_cache": "dogpile_cache-1.5.0-r34",
    "findiff": "findiff-0.16.0-r34",
    "rdflib": "rdflib-7.6.0-r34",
    "sbpy": "sbpy-0.6.0-r34",
    "apispec": "apispec-6.10.1-r35",
    "confuse": "confuse-2.3.0-r35",
    "rq": "rq-3.0.0-r35",
    "webtest": "webtest-3.0.7-r35",
    "graphviz": "graphviz-0.21-r36",
    "configobj": "configobj-5.0.9-r36",
    "statemachine": "python-statemachine-3.2.2-r36",
    "sqlite_utils": "sqlite-utils-4.2.1-r36",
    "mido": "mido-1.3.3-r37",
    "kazoo": "kazoo-2.11.0-r37",
    "statsd": "statsd-4.0.1-r37",
    "stevedore": "stevedore-5.10.0-r37",
    "dataset": "dataset-2.0.0-r38",
    "mutagen": "mutagen-1.48.1-r38",
    "netaddr": "netaddr-1.3.0-r38",
    "wand": "wand-0.7.2-r38",
    "gspread": "gspread-6.2.1-r39",
    "limits": "limits-5.8.0-r39",
    "segno": "segno-1.6.6-r39",
    "pyquery": "pyquery-2.0.1-r39",
    "aiosmtplib": "aiosmtplib-5.1.3-r40",  # round 40: written 2026-12-07 19:50-20:00 UTC
    "injector": "injector-0.24.0-r40",
    "pykka": "pykka-4.5.0-r40",
    "pymemcache": "pymemcache-4.0.0-r40",
    "aiocache": "aiocache-0.12.3-r41",  # round 41: written 2026-12-07 21:36-21:41 UTC
    "execnet": "execnet-2.1.1-r41",
    "mongoengine": "mongoengine-0.29.3-r41",
    "pyvisa": "pyvisa-1.16.2-r41",
    "factory_boy": "factory_boy-3.3.3-r42",  # round 42: written 2026-12-07 22:03-22:14 UTC
    "dateparser": "dateparser-1.5.0-r42",
    "rtree": "rtree-1.4.1-r42",
    "svcs": "svcs-26.2.0-r42",
    "automat": "automat-25.4.16-r43",  # round 43: written 2026-12-07 22:36-22:41 UTC
    "logbook": "logbook-1.10.1-r43",
    "mechanicalsoup": "mechanicalsoup-1.4.0-r43",
    "py_moneyed": "py-moneyed-3.0-r43",
    "jira": "jira-3.10.5-r44",  # round 44: written 2026-12-07 23:50-23:54 UTC
    "aiohttp": "aiohttp-3.14.5-r44",
    "passlib": "passlib-1.7.4-r44",
    "python_can": "python-can-4.6.1-r44",
    "agate": "agate-1.14.2-r45",  # round 45: written 2026-12-08 00:41-00:45 UTC
    "asyncssh": "asyncssh-2.24.1-r45",
    "python_gitlab": "python-gitlab-8.6.0-r45",
    "minimalmodbus": "minimalmodbus-2.1.1-r45",
}
HELD_OUT_DIR = Path(__file__).resolve().parent / "heldout"  # measure with, do not tune on
PLAIN = {
    "doc_propagation": False,
    "mined_expansion": False,
    "query_variants": False,
    "public_api_factor": 1.0,
    "low_value_doc_factor": 1.0,
    "max_sections_per_file": 0,
}
STAGES = [
    ("codecite plain", PLAIN),
    ("+ doc propagation", {**PLAIN, "doc_propagation": True}),
    ("+ mined expansion", {**PLAIN, "doc_propagation": True, "mined_expansion": True}),
    ("+ zero-config defaults", {"query_variants": False}),
    ("+ query word variants", {}),
]
COLUMNS = ["symbol_hit@1", "symbol_hit@5", "symbol_hit@10", "mrr@10", "source_hit@10"]


def _default_dir(env: str, *candidates: Path) -> Path:
    if os.environ.get(env):
        return Path(os.environ[env])
    return next((c for c in candidates if c.is_dir()), candidates[0])


def _row(label: str, report: object, system: str | None = None) -> str:
    overall = report.overall(system)
    kinds = report.metrics[system or report.primary]["kinds"]
    para = kinds.get("paraphrase", {}).get("symbol_hit@5")
    cells = [overall.get(c) for c in COLUMNS] + [
        para,
        overall.get("clarification_precision"),
        overall.get("clarification_recall"),
    ]
    return f"{label:<24}" + "".join(
        f"{c:>9.2f}" if isinstance(c, (int, float)) else f"{'n/a':>9}" for c in cells
    )


def _kind_rows(report: object, system: str | None) -> list[str]:
    """Per question kind: the ranking metrics and the share answered with a question."""
    system = system or report.primary
    kinds = report.metrics[system]["kinds"]
    asked: dict[str, list[bool]] = {}
    for outcome in report.outcomes[system]:
        asked.setdefault(outcome.record.kind, []).append(bool(outcome.clarification))
    rows = []
    for kind in sorted(kinds):
        cells = [kinds[kind].get(c) for c in COLUMNS]
        share = sum(asked.get(kind, [])) / max(len(asked.get(kind, [])), 1)
        rows.append(
            f"{kind:<14}{kinds[kind]['records']:>4}"
            + "".join(f"{c:>9.2f}" if isinstance(c, (int, float)) else f"{'n/a':>9}" for c in cells)
            + f"{share:>9.2f}"
        )
    return rows


def bench(name: str, corpus: Path, suite: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        index_dir = str(Path(tmp) / "index")
        report = codecite.build(corpus, index_dir=index_dir)
        index = codecite.load(corpus, index_dir=index_dir, check_stale=False)
        suites = load_suites([suite])
        print(f"\n{name}: {report.nodes} nodes from {report.files} files")
        heads = [c.replace("symbol_hit", "s").replace("source_hit", "src") for c in COLUMNS]
        heads += ["para@5", "clar P", "clar R"]
        print(f"{'system':<24}" + "".join(f"{h:>9}" for h in heads))
        base = run_eval(index, suites, k=10, baseline=True)
        print(_row("stock LlamaIndex BM25", base, "baseline"))
        shipped = base
        for label, overrides in STAGES:
            shipped = run_eval(index.with_settings(**overrides), suites, k=10)
            print(_row(label, shipped))
        print(
            f"\n{name} by kind (asked = share of the kind's questions answered with a "
            "clarification request)"
        )
        print(
            f"{'system':<24}{'kind':<14}{'n':>4}"
            + "".join(f"{h:>9}" for h in heads[:5])
            + f"{'asked':>9}"
        )
        for label, report, system in (
            ("stock LlamaIndex BM25", base, "baseline"),
            ("codecite (shipped)", shipped, None),
        ):
            for line in _kind_rows(report, system):
                print(f"{label:<24}{line}")


DIFF_COLUMNS = ["symbol_hit@1", "symbol_hit@5", "mrr@10"]


def _differential(
    name: str, corpus: Path, suite: Path, overrides: dict[str, Any]
) -> tuple[str, list[str]]:
    """One line: stock against shipped codecite, overall and on identifier questions."""
    with tempfile.TemporaryDirectory() as tmp:
        index_dir = str(Path(tmp) / "index")
        codecite.build(corpus, index_dir=index_dir)
        index = codecite.load(corpus, index_dir=index_dir, check_stale=False)
        if overrides:
            index = index.with_settings(**overrides)
        report = run_eval(index, load_suites([suite]), k=10, baseline=True)
    cells, below = [], []
    for system in ("baseline", None):
        overall = report.overall(system)
        ident = report.metrics[system or report.primary]["kinds"].get("identifier", {})
        cells += [overall.get(c) for c in DIFF_COLUMNS] + [ident.get("symbol_hit@1")]
    stock, mine = cells[:4], cells[4:]
    for column, a, b in zip(DIFF_COLUMNS[1:], stock[1:3], mine[1:3], strict=True):
        if isinstance(a, float) and isinstance(b, float) and b < a:
            below.append(column)
    overall = report.overall(None)
    cells += [overall.get("clarification_precision"), overall.get("clarification_recall")]
    text = "".join(f"{c:>8.2f}" if isinstance(c, (int, float)) else f"{'n/a':>8}" for c in cells)
    flag = f"  BELOW STOCK on {', '.join(below)}" if below else ""
    return f"{name:<14}{text}{flag}", below


def differential(
    runs: list[tuple[str, Path, Path]], overrides: dict[str, Any] | None = None
) -> int:
    """Every suite on one line each: stock LlamaIndex next to codecite, below-stock flagged."""
    heads = ["s@1", "s@5", "mrr@10", "id s@1"]
    label = (
        "codecite (shipped)"
        if not overrides
        else "codecite with " + ", ".join(f"{k}={v}" for k, v in overrides.items())
    )
    print(f"{'':<14}{'stock LlamaIndex BM25':^32}{label:^48}")
    print(f"{'suite':<14}" + "".join(f"{h:>8}" for h in [*heads, *heads, "clar P", "clar R"]))
    flagged = []
    for name, corpus, suite in runs:
        line, below = _differential(name, corpus, suite, overrides or {})
        print(line, flush=True)
        if below:
            flagged.append(name)
    print(f"\n{len(runs)} suites; below stock on MRR@10 or symbol hit@5: {len(flagged)}", end="")
    print(f" ({', '.join(flagged)})" if flagged else "")
    return 0


def _setting(value: str) -> tuple[str, Any]:
    key, sep, raw = value.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {value!r}")
    try:
        return key, json.loads(raw)
    except json.JSONDecodeError:
        raise argparse.ArgumentTypeError(f"{key}: {raw!r} is not a number or true/false") from None


def add_corpora_option(parser: argparse.ArgumentParser) -> None:
    """``--corpora DIR``: where the unpacked sdists are (``$DEVSUITES_CORPORA`` or beside
    the repository), for every benchmark that builds the suites' corpora."""
    parser.add_argument(
        "--corpora",
        type=Path,
        default=_default_dir(
            "DEVSUITES_CORPORA", REPO.parent / "devsuite-corpora", Path("devsuite-corpora")
        ),
    )


def _suite_arg(value: str) -> tuple[Path, Path]:
    suite, sep, corpus = value.partition("=")
    if not sep or not suite.endswith(".jsonl"):
        raise argparse.ArgumentTypeError(f"expected SUITE.jsonl=CORPUS_DIR, got {value!r}")
    return Path(suite), Path(corpus)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpora_option(parser)
    parser.add_argument("--suites", type=Path, default=REPO.parent / "shared" / "dev-suites")
    parser.add_argument(
        "--suite",
        type=_suite_arg,
        action="append",
        default=[],
        metavar="SUITE.jsonl=CORPUS",
        help="run this suite on this corpus instead of the dev suites "
        "(repeatable), e.g. a held-out suite of your own",
    )
    parser.add_argument(
        "--heldout",
        action="store_true",
        help="run the held-out suites of tests/benchmarks/heldout (corpora "
        "under --corpora) instead of the dev suites",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="every suite (dev and held-out) whose corpus is under --corpora, one line "
        "each: stock against codecite, identifier slice, below-stock flagged",
    )
    parser.add_argument(
        "--set",
        type=_setting,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="with --all: score codecite with this retrieval setting changed (repeatable), "
        "e.g. name_boost=1.0 for the ranking without exact-name resolution",
    )
    args = parser.parse_args()
    if args.all:
        runs = [(n, args.corpora / c, args.suites / f"{n}.jsonl") for n, c in SUITES.items()]
        runs += [(n, args.corpora / c, HELD_OUT_DIR / f"{n}.jsonl") for n, c in HELD_OUT.items()]
        absent = [
            name for name, corpus, suite in runs if not corpus.is_dir() or not suite.is_file()
        ]
        if absent:
            print(f"skipped (corpus or suite not here): {', '.join(absent)}", file=sys.stderr)
        overrides = dict(args.set)
        differential([r for r in runs if r[0] not in absent], overrides)
        from bench_clarify import clarify_tables  # the vague*.jsonl sets, no stock to compare

        return clarify_tables(args.corpora, overrides)
    if args.suite:
        runs = [(suite.stem, corpus, suite) for suite, corpus in args.suite]
    else:
        folder, corpora = (HELD_OUT_DIR, HELD_OUT) if args.heldout else (args.suites, SUITES)
        runs = [
            (name, args.corpora / corpus, folder / f"{name}.jsonl")
            for name, corpus in corpora.items()
        ]
    missing = [str(corpus) for _, corpus, _ in runs if not corpus.is_dir()]
    missing += [str(suite) for _, _, suite in runs if not suite.is_file()]
    if missing:
        print(
            f"missing: {', '.join(missing)}; {args.suites / 'README.md'} and "
            f"{HELD_OUT_DIR / 'README.md'} say how to fetch the corpora once",
            file=sys.stderr,
        )
        return 1
    for name, corpus, suite in runs:
        bench(name, corpus, suite)
    return 0


if __name__ == "__main__":
    sys.exit(main())
