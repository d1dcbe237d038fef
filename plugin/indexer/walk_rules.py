"""What the corpus walk leaves out or reads differently, decided by path: test and build
folders that are packages (``trio/testing``, ``pkg/build``), Sphinx sources kept in a
``build/`` folder, Sphinx folders of ``.txt`` pages, and the configured ``exclude``
patterns (``codecite.indexer.walk`` applies them)."""

from __future__ import annotations

import fnmatch
import os
import re

from codecite.config.model import DEFAULT_DOC_DIRS
from codecite.safe_io import UnsafeFileError, read_regular_file


def is_subpackage(path: str) -> bool:
    """A package inside a package: ``trio/testing/`` is API (``trio.testing``), while a
    ``testing/`` folder beside the sources (pytest's own layout) holds a test suite; and
    ``pkg/build/`` is code, while a ``build/`` folder beside the sources is output."""
    return os.path.isfile(os.path.join(path, "__init__.py")) and os.path.isfile(
        os.path.join(os.path.dirname(path), "__init__.py")
    )


def is_doc_source(path: str) -> bool:
    """A ``build/`` folder that holds documentation sources, not output: SQLAlchemy's
    ``doc/build/`` has the ``conf.py`` and ``index.rst`` that Sphinx builds from."""
    return any(
        os.path.isfile(os.path.join(path, name))
        for name in ("conf.py", "index.rst", "index.md", "mkdocs.yml")
    )


# folders of a docs tree holding Sphinx extensions and theme code (falcon's docs/ext,
# numpy's doc/sphinxext, flask-era docs/_themes, Quarto's _extensions): they build the docs
SPHINX_TOOLING = frozenset({"_ext", "ext", "sphinxext", "_themes", "_extensions"})
SPHINX_DIRS = (*DEFAULT_DOC_DIRS, *(f"{d}/source" for d in DEFAULT_DOC_DIRS))
_SOURCE_SUFFIX = re.compile(r"^source_suffix\s*=\s*(.*?)(?=^\S|\Z)", re.MULTILINE | re.DOTALL)
MAX_CONF_BYTES = 1 << 20


def text_doc_dirs(root: str) -> tuple[str, ...]:
    """The Sphinx source folders whose pages are ``.txt`` files (WebOb's, Pyramid's docs).

    A folder counts when its ``conf.py`` sets ``source_suffix`` to a value that names
    ``.txt`` (the file is read as text, never run), or when, without a ``conf.py``,
    its master page is ``index.txt`` and there is no ``index.rst`` or ``index.md``.
    Their ``.txt`` files are then reStructuredText pages, whatever ``suffixes`` says.
    """
    found = []
    for rel in SPHINX_DIRS:
        folder = os.path.join(root, rel)
        if not os.path.isdir(folder) or os.path.islink(folder):
            continue
        conf = os.path.join(folder, "conf.py")
        try:
            text = read_regular_file(conf, root=root, limit=MAX_CONF_BYTES).decode(
                "utf-8", "replace"
            )
        except (OSError, UnsafeFileError):
            text = None
        if text is not None:
            match = _SOURCE_SUFFIX.search(text)
            if match and ".txt" in match.group(1):
                found.append(rel)
        elif os.path.isfile(os.path.join(folder, "index.txt")) and not any(
            os.path.isfile(os.path.join(folder, n)) for n in ("index.rst", "index.md")
        ):
            found.append(rel)
    return tuple(found)


class Exclusions:
    """The configured ``exclude`` patterns, compiled once: a glob (``*``, ``?``, ``[``)
    matches the path or anything under it, any other pattern a substring of it.

    One regular expression for every glob instead of two ``fnmatch`` calls per pattern
    per file: the no-change build and every load's staleness check walk the corpus.

    Example:
        >>> excluded = Exclusions(("docs/_build/*", "vendor"))
        >>> excluded("docs/_build/html/index.rst"), excluded("src/vendor/x.py")
        (True, True)
        >>> excluded("docs/index.rst")
        False
    """

    def __init__(self, patterns: tuple[str, ...]) -> None:
        globs = [p for p in patterns if any(ch in p for ch in "*?[")]
        self.plain = tuple(p for p in patterns if p and p not in globs)
        alternatives = [fnmatch.translate(p) for p in globs]
        alternatives += [fnmatch.translate(p.rstrip("/") + "/*") for p in globs]
        self.glob = re.compile("|".join(alternatives)) if alternatives else None

    def __call__(self, rel: str) -> bool:
        if self.glob is not None and self.glob.match(rel):
            return True
        return any(p in rel for p in self.plain)
