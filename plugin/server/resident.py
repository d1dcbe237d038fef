"""An index loaded once and kept in memory, reloaded when a build replaces it.

The MCP server (``codecite.server.app``) answers every call from one
``ResidentIndex``: ``current()`` returns the loaded index, first loading it
again when the manifest on disk changed (a ``codecite build`` swapped a new
index in). A call keeps the index object it was given, so a query in flight
when a build finishes completes on the old index; the next call sees the new
one.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from codecite.config import load_config
from codecite.index import CodeciteIndex
from codecite.store.opening import manifest_stamp

logger = logging.getLogger(__name__)


class ResidentIndex:
    """The index of the repository at ``root``, loaded on first use and kept.

    Example:
        >>> resident = ResidentIndex(".")                       # doctest: +SKIP
        >>> resident.current().query("static shift", k=3)       # doctest: +SKIP
    """

    def __init__(
        self,
        root: str | Path = ".",
        *,
        index_dir: str | None = None,
        config_file: str | Path | None = None,
    ) -> None:
        self.root = root
        self.index_dir = index_dir
        self.config_file = config_file
        self._lock = threading.Lock()
        self._index: CodeciteIndex | None = None
        self._stamp: Any = None
        self.loads = 0  # how many times the index was (re)loaded

    @property
    def index_path(self) -> Path:
        return load_config(self.root, self.config_file, index_dir=self.index_dir).index_path

    def current(self) -> CodeciteIndex:
        """The loaded index, loaded again first if a build replaced it on disk."""
        with self._lock:
            path = self._index.config.index_path if self._index else self.index_path
            stamp = manifest_stamp(path)
            if self._index is None or stamp != self._stamp:
                index = CodeciteIndex.load(
                    self.root,
                    index_dir=self.index_dir,
                    config_file=self.config_file,
                    check_stale=False,
                )
                # read now, not mid-call: a call in flight when a build swaps the files
                # must finish on the old index without reading the new ones
                _ = index.symbol_table
                if self._index is not None:
                    logger.info("index at '%s' was rebuilt; loaded the new one", path)
                self._index, self._stamp = index, manifest_stamp(path)
                self.loads += 1
            return self._index
