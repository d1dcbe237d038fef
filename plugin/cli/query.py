"""``codecite query`` and ``codecite feedback``: rank cited evidence, vote on a symbol."""

from __future__ import annotations

import argparse
import json

from codecite.cli.shared import EXIT_OK, Command, add_common_options, load_index
from codecite.errors import UsageError


def _configure_query(p: argparse.ArgumentParser) -> None:
    p.add_argument("text", help="the question or symbol")
    add_common_options(p)
    p.add_argument("-k", type=int, default=10, help="how many results (default 10)")
    p.add_argument("--kind", action="append", default=None, help="only this node kind (repeatable)")
    p.add_argument("--workflow", default=None, help="only nodes of this workflow")
    p.add_argument("--path", dest="path_prefix", default=None, help="only under this path")
    p.add_argument("--dense", action="store_true", help="fuse dense retrieval (needs --embed)")
    p.add_argument("--explain", action="store_true", help="show each score's factors")
    p.add_argument("--json", action="store_true", help="print JSON")


def cmd_query(args: argparse.Namespace) -> int:
    """``codecite query``: the ranked, cited evidence table (``--explain``: the factors)."""
    from codecite.cli.terminal import print_results

    index = load_index(args)
    ctx = index.query(
        args.text,
        k=args.k,
        kind=args.kind,
        workflow=args.workflow,
        path=args.path_prefix,
        dense=args.dense,
    )
    if args.json:
        print(json.dumps(ctx.to_json(), indent=1))
        return EXIT_OK
    if not ctx.nodes:
        print(f"no evidence matches {args.text!r} (tokens: {' '.join(ctx.tokens) or 'none'})")
        return EXIT_OK
    print_results(ctx)
    if args.explain:
        from codecite.retrievers.explain import explain_text

        print()
        print(explain_text(ctx))
    return EXIT_OK


def _configure_feedback(p: argparse.ArgumentParser) -> None:
    p.add_argument("direction", choices=["up", "down"])
    p.add_argument("symbol", help="the symbol: its qualified or its public name")
    add_common_options(p)
    p.add_argument("--query", default=None, help="the query the vote is about")


def cmd_feedback(args: argparse.Namespace) -> int:
    """``codecite feedback``: record a vote on an indexed symbol, print its new factor."""
    index = load_index(args, check_stale=False)
    symbol = index.resolve_symbol(args.symbol)
    if symbol is None:
        raise UsageError(
            f"symbol {args.symbol!r} is not in the index; use a name as `codecite query` "
            "shows it or as users import it (pkg.Class, pkg.Class.method)"
        )
    factor = index.feedback(symbol, args.direction == "up", args.query)
    named = f" ({args.symbol})" if symbol != args.symbol else ""
    print(f"recorded {args.direction} for {symbol}{named}; feedback factor now {factor:.2f}")
    return EXIT_OK


COMMANDS = (
    Command("query", "rank cited evidence for a question", _configure_query, cmd_query),
    Command(
        "feedback",
        "vote a symbol up or down for future rankings",
        _configure_feedback,
        cmd_feedback,
    ),
)
