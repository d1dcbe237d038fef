"""Which files are a test suite's, by name and, for a test-named module of a package,
by whether it defines a test.

pytest's naming conventions (``test_*.py``, ``*_test.py``, ``conftest.py``) mark test
files. A package sometimes ships a helper module under such a name as API: falcon's
``falcon/testing/test_case.py`` (``falcon.testing.TestCase``) and peewee's
``playhouse/test_utils.py`` (``count_queries``) are documented and imported by users.
A test-named module inside a package (an ``__init__.py`` beside it, and at most two such
modules in its folder: a folder with more keeps its tests beside its modules) that defines a
public function or class and no ``test...`` function (an example in a docstring does
not count: the file is parsed, never run) is such a helper: pytest would collect
nothing from it. One that defines neither (patsy's ``test_splines_crs_data.py``,
numbers for its tests) stays a test file.
"""

from __future__ import annotations

import ast
import os

from codecite.safe_io import UnsafeFileError, read_regular_file

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


# A package folder with more test-named modules than this keeps its tests beside its
# modules: they are all tests, decided by name, so that a load's freshness walk reads none
MAX_HELPERS_PER_FOLDER = 2
_COUNTS: dict[str, tuple[int, int]] = {}  # folder -> (its mtime_ns, test-named files in it)


def _test_named_in(folder: str) -> int:
    """How many test-named modules ``folder`` holds (kept while the folder is unchanged)."""
    try:
        stamp = os.stat(folder).st_mtime_ns
        cached = _COUNTS.get(folder)
        if cached is None or cached[0] != stamp:
            count = sum(1 for n in os.listdir(folder) if test_named(n) and n != "conftest.py")
            _COUNTS[folder] = cached = (stamp, count)
    except OSError:
        return MAX_HELPERS_PER_FOLDER + 1
    return cached[1]


def test_named(name: str) -> bool:
    """A file name of pytest's conventions."""
    return (
        (name.startswith("test_") and name.endswith(".py"))
        or name.endswith("_test.py")
        or name == "conftest.py"
    )


def is_test_file(path: str, root: str, limit: int, gallery: bool = False) -> bool:
    """``path`` (inside the repository ``root``, a real path) is a test suite's file.

    Only a test-named module of a package, or a test-named script of an example
    gallery (``gallery``: nilearn's ``plot_second_level_one_sample_test.py`` shows a
    statistical test), is read (a regular file of at most ``limit`` bytes); one that
    cannot be read counts as a test, as its name says. A gallery script is a test only
    if it defines a ``test...`` function.
    """
    name = os.path.basename(path)
    if not test_named(name):
        return False
    folder = os.path.dirname(path)
    if name == "conftest.py":
        return True
    if not gallery and not os.path.isfile(os.path.join(folder, "__init__.py")):
        return True
    if not gallery and _test_named_in(folder) > MAX_HELPERS_PER_FOLDER:
        return True  # tests kept beside the modules (patsy, Google style): never read
    try:
        tree = ast.parse(read_regular_file(path, root=root, limit=limit))  # never run
    except (OSError, UnsafeFileError, SyntaxError, ValueError):
        return True
    if any(isinstance(n, _FUNCTIONS) and n.name.startswith("test") for n in ast.walk(tree)):
        return True
    return not gallery and not any(
        isinstance(n, (*_FUNCTIONS, ast.ClassDef)) and not n.name.startswith("_") for n in tree.body
    )


__all__ = ["is_test_file", "test_named"]
