"""The corpus walk: every file under the configured roots, indexed or skipped with a reason.

:func:`walk_corpus` visits the roots (never following a link out of the repository,
never opening anything but a regular file), applies the built-in and configured
exclusions, reads each file once to digest it, and reuses the digest of a file whose
size and mtime are unchanged since the last build. What it returns is
:class:`codecite.indexer.corpus.Corpus`. See docs/reliability.md.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator

from codecite.config.model import DEFAULT_DOC_DIRS, DEFAULT_EXAMPLE_DIRS, CodeciteConfig
from codecite.indexer.corpus import (
    EXCLUDED_DIR_SUFFIXES,
    EXCLUDED_DIRS,
    METADATA_FILES,
    NOTEBOOK_SIZE_FACTOR,
    REFUSED_REASONS,
    TEST_DIRS,
    VENDORED_DIRS,
    Corpus,
    CorpusFile,
    FileRole,
    SkippedFile,
    SkipReason,
    printable_name,
    read_file,
)
from codecite.indexer.testlike import is_test_file
from codecite.indexer.walk_rules import (
    SPHINX_TOOLING,
    Exclusions,
    is_doc_source,
    is_subpackage,
    text_doc_dirs,
)
from codecite.node_parsers.dispatch import in_gallery
from codecite.safe_io import (
    MAX_METADATA_BYTES,
    Refusal,
    UnsafeFileError,
    check_regular_file,
)
from codecite.vocabulary import MARKDOWN_SUFFIXES, PYTHON_SUFFIXES


class _Walker:
    """The walk on plain path strings (``os.scandir``): a pathlib object per entry was
    half the time of a no-change build."""

    def __init__(self, cfg: CodeciteConfig, known: dict[str, dict] | None = None) -> None:
        self.cfg = cfg
        self.known = known or {}
        self.root = str(cfg.root)
        self.root_real = os.path.realpath(self.root)
        # a docs folder's auto_examples/ is sphinx-gallery's copy of a gallery the
        # repository also ships as sources (imbalanced-learn: 88 generated files)
        self._gallery_sources = any(
            os.path.isdir(os.path.join(self.root, d)) for d in DEFAULT_EXAMPLE_DIRS
        )
        self.index_real = os.path.realpath(cfg.index_path)
        self.recipe_dirs = tuple(r.strip("/") + "/" for r in cfg.recipes)
        self.suffixes = frozenset(s.lower() for s in cfg.suffixes)  # `.MD` matches `x.md`
        self.text_docs = (  # Sphinx folders written in .txt (``text_doc_dirs``)
            tuple(d + "/" for d in text_doc_dirs(self.root)) if ".txt" not in self.suffixes else ()
        )
        self.excluded = Exclusions(tuple(cfg.exclude))
        self.roots_real = [  # a link into one of these points at what is walked anyway
            os.path.realpath(os.path.join(self.root, r)) for r in cfg.roots
        ]
        self.corpus = Corpus()
        self._seen: set[str] = set()

    def skip(self, rel: str, reason: SkipReason) -> None:
        self.corpus.skipped.append(SkippedFile(printable_name(rel), reason))

    def rel(self, path: str) -> str:
        rel = (
            os.path.relpath(path, self.root)
            if not path.startswith(self.root + os.sep)
            else path[len(self.root) + 1 :]
        )
        return rel.replace(os.sep, "/") if os.sep != "/" else rel

    def link_target_ok(self, path: str) -> bool:
        try:
            target = os.path.realpath(path, strict=True)
        except FileNotFoundError:  # points at nothing (scanpy's notebooks -> a missing folder)
            self.skip(self.rel(path), SkipReason.LINK_BROKEN)
            return False
        except (OSError, RuntimeError):
            self.skip(self.rel(path), SkipReason.LINK_LOOP)
            return False
        if target != self.root_real and not target.startswith(self.root_real + os.sep):
            self.skip(self.rel(path), SkipReason.LINK_OUTSIDE)
            return False
        return True

    def walk_root(self, root: str) -> Iterator[str]:
        base = os.path.join(self.root, root) if root != "." else self.root
        if os.path.islink(base) and not self.link_target_ok(base):
            return
        if not os.path.isdir(base):
            if os.path.lexists(base):
                yield base  # a file; `consider` skips one that is not a regular file
            else:
                self.skip(root, SkipReason.MISSING_ROOT)
            return
        yield from self._walk_dir(base, os.path.realpath(base), set())

    def _walk_dir(self, folder: str, real: str, visiting: set[str]) -> Iterator[str]:
        """Files under ``folder`` (whose resolved path is ``real``), in name order."""
        if real in visiting:
            self.skip(self.rel(folder), SkipReason.LINK_LOOP)
            return
        visiting = visiting | {real}
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            self.skip(self.rel(folder), SkipReason.UNREADABLE)
            return
        for entry in entries:
            link = entry.is_symlink()
            if link and not self.link_target_ok(entry.path):
                continue
            if entry.is_dir():
                child_real = (
                    os.path.realpath(entry.path) if link else os.path.join(real, entry.name)
                )
                if link and (real == child_real or real.startswith(child_real + os.sep)):
                    # a link to this folder or one above it (`up -> ..`): following it
                    # would index the repository again below itself
                    self.skip(self.rel(entry.path), SkipReason.LINK_LOOP)
                    continue
                if link and self._walked_anyway(child_real):
                    self.skip(self.rel(entry.path) + "/", SkipReason.LINK_DUPLICATE)
                    continue
                if self._dir_excluded(entry.path, entry.name, child_real):
                    continue
                yield from self._walk_dir(entry.path, child_real, visiting)
            else:
                yield entry.path

    def _walked_anyway(self, target: str) -> bool:
        """Is ``target`` (a folder link's resolved path) under an indexed root? Its files
        are then indexed at their own paths; through the link, a second time under other
        module names (a package linked into ``doc/``)."""
        return any(target == r or target.startswith(r + os.sep) for r in self.roots_real)

    def _dir_excluded(self, path: str, name: str, real: str) -> bool:
        if real == self.index_real or name.startswith(".codecite"):
            return True
        if name in TEST_DIRS or (name == "testing" and not is_subpackage(path)):
            self.skip(self.rel(path) + "/", SkipReason.TESTS)
            return True
        if name == "auto_examples" and self._gallery_sources:  # sphinx-gallery's output
            self.skip(self.rel(path) + "/", SkipReason.BUILT_IN)
            return True
        if (
            name in EXCLUDED_DIRS
            and not is_subpackage(path)
            and not (name == "build" and is_doc_source(path))
        ) or name.endswith(EXCLUDED_DIR_SUFFIXES):
            return True  # a subpackage keeps its name: pip._internal.operations.build is code
        hidden = name.startswith(".") and name != "."  # fastapi's `.agents/` of Markdown
        # astropy's `docs/changes/extern/` holds changelog notes, no copied-in code
        vendored = name in VENDORED_DIRS and self.rel(path).split("/")[0] not in DEFAULT_DOC_DIRS
        if hidden or vendored:
            if not any(r == real or r.startswith(real + os.sep) for r in self.roots_real):
                reason = SkipReason.HIDDEN if hidden else SkipReason.VENDORED
                self.skip(self.rel(path) + "/", reason)  # not a root of its own
            return True
        rel = self.rel(path) + "/"
        if self.excluded(rel):
            self.skip(rel, SkipReason.EXCLUDED)
            return True
        return False

    def consider(self, path: str, explicit: bool = False) -> None:
        rel = self.rel(path)
        if rel in self._seen:
            return
        self._seen.add(rel)
        if not rel.isascii() and printable_name(rel) != rel:
            self.skip(rel, SkipReason.BAD_NAME)
            return
        reason = self._file_reason(rel)
        if explicit and reason is SkipReason.SUFFIX:  # a named root doc such as `README`
            reason = None
        if reason is not None:
            if reason is not SkipReason.SUFFIX:
                self.skip(rel, reason)
            return
        try:
            st = os.stat(path)
            if not stat.S_ISREG(st.st_mode):  # a FIFO or a device is never opened
                self.skip(rel, SkipReason.SPECIAL)
                return
            limit = self.cfg.max_file_bytes * (
                NOTEBOOK_SIZE_FACTOR if rel.lower().endswith(".ipynb") else 1
            )
            if st.st_size > limit:
                self.skip(rel, SkipReason.TOO_LARGE)
                return
            known = self.known.get(rel)
            if (
                known
                and known.get("size") == st.st_size
                and known.get("mtime_ns") == st.st_mtime_ns
                and known.get("digest")
                and os.access(path, os.R_OK)  # `chmod 000` keeps size and mtime
            ):
                self.corpus.files.append(
                    CorpusFile(
                        rel,
                        self._role(rel),
                        None,
                        known["digest"],
                        st.st_size,
                        st.st_mtime_ns,
                        path,
                    )
                )
                return
            data = read_file(path)
        except UnsafeFileError as exc:  # swapped for a FIFO or a device since the stat
            self.skip(rel, REFUSED_REASONS[exc.reason])
            return
        except OSError:
            self.skip(rel, SkipReason.UNREADABLE)
            return
        if len(data) > limit:  # grew since the stat
            self.skip(rel, SkipReason.TOO_LARGE)
            return
        if b"\x00" in data:
            self.skip(rel, SkipReason.BINARY)
            return
        self.corpus.files.append(
            CorpusFile(
                rel,
                self._role(rel),
                data,
                hashlib.sha256(data).hexdigest(),
                st.st_size,
                st.st_mtime_ns,
                path,
            )
        )

    def report_metadata(self) -> None:
        """List a settings or package metadata file that ``codecite.config.model`` refuses to
        read (a FIFO, a device, a link out of the repository, oversized) and so ignores."""
        for name in METADATA_FILES:
            path = os.path.join(self.root, name)
            if name in self._seen or not os.path.lexists(path) or os.path.isdir(path):
                continue
            try:
                check_regular_file(path, root=self.root_real, limit=MAX_METADATA_BYTES)
            except UnsafeFileError as exc:
                self.skip(
                    name,
                    SkipReason.METADATA_TOO_LARGE
                    if exc.reason is Refusal.TOO_LARGE
                    else REFUSED_REASONS[exc.reason],
                )
            except FileNotFoundError:
                continue  # a dangling link: as absent
            except OSError:
                self.skip(name, SkipReason.UNREADABLE)

    def _file_reason(self, rel: str) -> SkipReason | None:
        name = rel.rsplit("/", 1)[-1]
        full = os.path.join(self.root, rel)
        if is_test_file(full, self.root_real, self.cfg.max_file_bytes, in_gallery(rel)):
            return SkipReason.TESTS
        if rel.endswith("/conf.py") and any(
            rel.startswith(d + "/") for d in ("docs", "doc", "docs/source", "doc/source")
        ):
            return SkipReason.BUILT_IN
        folders = rel.split("/")[:-1] or [""]
        if (
            rel.endswith(".py")
            and folders[0] in DEFAULT_DOC_DIRS
            and not SPHINX_TOOLING.isdisjoint(folders)
        ):
            return SkipReason.BUILT_IN  # Sphinx's extensions and themes: build tooling, not API
        if self.excluded(rel):
            return SkipReason.EXCLUDED
        suffix = os.path.splitext(name)[1].lower()
        text_page = suffix == ".txt" and rel.startswith(self.text_docs)
        if suffix not in self.suffixes and not self._is_stub(rel) and not text_page:
            return SkipReason.SUFFIX
        return None

    def _is_stub(self, rel: str) -> bool:
        """A ``.pyi`` beside the module it describes (``lazy.attach_stub`` reads it)."""
        return (
            rel.endswith(".pyi")
            and ".pyi" not in self.suffixes
            and os.path.isfile(os.path.join(self.root, rel[:-1]))
        )

    def _role(self, rel: str) -> FileRole:
        if self._is_stub(rel):
            return FileRole.STUB
        if rel.endswith(PYTHON_SUFFIXES):
            return FileRole.PYTHON
        if rel.lower().endswith(MARKDOWN_SUFFIXES) and rel.startswith(self.recipe_dirs):
            return FileRole.RECIPE
        return FileRole.DOC


def walk_corpus(cfg: CodeciteConfig, known: dict[str, dict] | None = None) -> Corpus:
    """Every indexable file under the configured roots and root docs, read once.

    ``known``: the previous manifest's ``files`` table; files whose size and
    mtime_ns match it are not re-read (their recorded digest is reused).
    """
    walker = _Walker(cfg, known)
    for root in cfg.roots:
        for path in walker.walk_root(root):
            walker.consider(path)
    for doc in cfg.root_docs:
        path = os.path.join(walker.root, doc)
        if os.path.islink(path) and not walker.link_target_ok(path):
            continue
        if os.path.lexists(path) and not os.path.isdir(path):
            walker.consider(path, explicit=True)  # a FIFO README is skipped with the reason
    walker.report_metadata()
    walker.corpus.files.sort(key=lambda f: f.rel)
    return walker.corpus
