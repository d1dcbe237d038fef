"""Registers the subcommands implemented next to their features (kept out of ``cli``).

Each ``cli_*`` module calls ``codecite.cli.register`` at import.
"""

from __future__ import annotations

import importlib

FEATURE_COMMANDS = ("cli_validate", "cli_answers", "cli_eval", "cli_dense")

for _name in FEATURE_COMMANDS:
    try:
        importlib.import_module(f"codecite.{_name}")
    except ModuleNotFoundError as _exc:  # a feature not installed in this build
        if _exc.name != f"codecite.{_name}":
            raise
