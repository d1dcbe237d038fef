"""Registers the subcommands implemented next to their features (kept out of ``cli``)."""

from __future__ import annotations
