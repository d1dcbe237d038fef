"""``codecite mcp``: a Model Context Protocol server over the resident index (docs/mcp.md)."""

from __future__ import annotations

import argparse

from codecite.answers.llms import make_llm
from codecite.cli.shared import EXIT_OK, Command, add_common_options
from codecite.errors import UsageError


def _configure_mcp(p: argparse.ArgumentParser) -> None:
    add_common_options(p)
    p.add_argument(
        "--http",
        type=int,
        default=None,
        metavar="PORT",
        help="serve streamable HTTP on 127.0.0.1:PORT instead of stdio",
    )
    p.add_argument(
        "--llm",
        default=None,
        metavar="PROVIDER:MODEL",
        help="let `ask` synthesize with an LLM, e.g. openai:gpt-4o-mini (default: offline)",
    )


def cmd_mcp(args: argparse.Namespace) -> int:
    from codecite.server.app import serve
    from codecite.server.resident import ResidentIndex

    if args.http is not None and not 0 < args.http < 65536:
        raise UsageError(f"--http {args.http} is not a TCP port; pass 1-65535, e.g. --http 8765")
    resident = ResidentIndex(args.root, index_dir=args.index_dir, config_file=args.config_file)
    serve(resident, http_port=args.http, llm=make_llm(args.llm))
    return EXIT_OK


COMMANDS = (
    Command(
        "mcp",
        "serve the index to agents over the Model Context Protocol (stdio, or --http PORT)",
        _configure_mcp,
        cmd_mcp,
        aliases=("serve",),
    ),
)
