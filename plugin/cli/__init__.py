"""The ``codecite`` command line."""

from codecite.cli.app import entry, main

__all__ = ["entry", "main"]
