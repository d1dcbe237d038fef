"""``python -m codecite``."""

from codecite.cli import entry

entry()
