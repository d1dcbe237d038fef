"""``codecite ask`` and ``codecite chat``: cited answers (or clarifications) in a terminal.

Thin wrappers over :class:`codecite.answers.answerer.Answerer` (the pass
``CodeciteIndex.ask`` runs) and a :class:`codecite.answers.session.Session`;
``COMMANDS`` lists them for ``codecite.cli.app``. No LLM is used unless
``--llm provider:model`` names one.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from codecite.answers.llms import make_llm
from codecite.cli.shared import EXIT_OK, Command, add_common_options, load_index
from codecite.errors import UsageError

EXIT_WORDS = frozenset({"exit", "quit", ":q"})


def _configure_common(p: argparse.ArgumentParser) -> None:
    add_common_options(p)
    p.add_argument(
        "--session",
        default=None,
        metavar="FILE",
        help="remember turns in this JSON file (follow-ups, history)",
    )
    p.add_argument(
        "--llm",
        default=None,
        metavar="PROVIDER:MODEL",
        help="synthesize with an LLM, e.g. openai:gpt-4o-mini (default: offline)",
    )
    p.add_argument(
        "--rewrite",
        action="store_true",
        help="with --llm: also retrieve for the model's rewrites of the question, fused in",
    )
    p.add_argument("-k", type=int, default=8, help="evidence to retrieve (default 8)")
    p.add_argument("--budget", type=int, default=None, help="context token budget")
    p.add_argument("--dense", action="store_true", help="fuse dense retrieval (needs --embed)")
    p.add_argument("--json", action="store_true", help="print JSON")


def _configure_ask(p: argparse.ArgumentParser) -> None:
    p.add_argument("text", help="the question")
    _configure_common(p)


def _engine(args: argparse.Namespace, session: Any) -> Any:
    """The answer pass (``Answerer``: offline, it imports nothing of LlamaIndex)."""
    from codecite.answers.answerer import Answerer

    kwargs: dict[str, Any] = {"similarity_top_k": args.k, "dense": args.dense}
    kwargs["rewrite_queries"] = bool(getattr(args, "rewrite", False))
    if args.budget:
        kwargs["token_budget"] = args.budget
    return Answerer(index=load_index(args), llm=make_llm(args.llm), session=session, **kwargs)


def _session(args: argparse.Namespace) -> Any:
    from codecite.answers.session import Session

    return Session.load(args.session) if args.session else Session()


def render_response(response: Any) -> str:
    """The answer text, with a numbered sources list when the text has none."""
    text = str(response).rstrip()
    meta = response.metadata or {}
    cites = meta.get("citations") or []
    if cites and "\nSources:" not in text:
        text += "\n\nSources:\n" + "\n".join(
            f"[{c['id']}] {c['ref']} {c['label']} ({c['kind']})" for c in cites
        )
    if meta.get("invalid_citations"):
        text += f"\n\nnote: removed citations not in the context: {meta['invalid_citations']}"
    if meta.get("fallback") == "uncited_llm_answer":
        text += (
            "\n\nnote: the language model cited no source (asked twice); shown: the offline answer"
        )
    elif meta.get("uncited"):
        text += "\n\nnote: this answer cites no source; treat it as unverified"
    return text


def _emit(response: Any, as_json: bool) -> None:
    if as_json:
        print(
            json.dumps(
                {"answer": str(response), "metadata": response.metadata}, default=str, indent=1
            )
        )
    else:
        print(render_response(response))


def cmd_ask(args: argparse.Namespace) -> int:
    if not args.text.strip():
        raise UsageError("the question is empty; pass a question in quotes")
    session = _session(args) if args.session else None
    _emit(_engine(args, session).query(args.text), args.json)
    return EXIT_OK


def cmd_chat(args: argparse.Namespace) -> int:
    engine = _engine(args, _session(args))
    interactive = sys.stdin.isatty()
    if interactive:
        print("codecite chat: ask about the indexed code; `exit` or Ctrl-D ends.")
    while True:
        if interactive:
            print("> ", end="", flush=True)
        line = sys.stdin.readline()
        if not line or line.strip().lower() in EXIT_WORDS:
            return EXIT_OK
        if line.strip():
            _emit(engine.query(line.strip()), args.json)
            print()


COMMANDS = (
    Command(
        "ask",
        "answer a question with citations (or ask for clarification)",
        _configure_ask,
        cmd_ask,
    ),
    Command(
        "chat",
        "a multi-turn question session in the terminal (reads stdin)",
        _configure_common,
        cmd_chat,
    ),
)
