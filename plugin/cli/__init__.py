"""The ``codecite`` command line.

``entry`` is the ``codecite`` process (the console script and ``python -m codecite``):
before anything imports pydantic it turns off pydantic's plugin discovery for this
process (``PYDANTIC_DISABLE_PLUGINS``; a plugin instruments the validation of an
application's own models, and this process has none but codecite's settings): the
scan reads every installed distribution's entry points, 8 ms of each command with
156 installed, more in larger environments. A value the user set is kept.
``main`` runs a command in a host process and changes nothing of the host's.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

__all__ = ["entry", "main"]


def entry() -> None:
    """The ``codecite`` command (``codecite.cli.app.entry``), in its own process."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from codecite.cli.app import entry as run

    run()


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``codecite`` with ``argv`` (default: ``sys.argv[1:]``) and return its exit code."""
    from codecite.cli.app import main as run

    return run(argv)
