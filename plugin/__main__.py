"""``python -m codecite``."""

from codecite.cli.app import entry

entry()
