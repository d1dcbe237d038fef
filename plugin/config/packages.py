"""What zero configuration finds: the packages, the folders and files to index.

Packages come from setuptools ``package-dir``, else ``src/``, else the root, else
``lib/`` (matplotlib's and SQLAlchemy's layout); docs/configuration.md, *Zero
configuration*, describes every rule.
"""

from __future__ import annotations

import re
from pathlib import Path

from .files import read_metadata, read_pyproject
from .model import DEFAULT_DOC_DIRS, DEFAULT_EXAMPLE_DIRS, DEFAULT_RECIPE_DIRS, DEFAULT_ROOT_DOCS

NOT_PACKAGES = frozenset(
    {
        "tests",
        "test",
        "testing",
        "docs",
        "doc",
        "examples",
        "example",
        "docs_src",  # FastAPI's, Typer's and SQLModel's tutorial programs (with __init__.py)
        "build",
        "dist",
        "benchmarks",
        "bench",
        "scripts",
        "tools",
        "ci",
        "site",
        "venv",
        "env",
        "node_modules",
        "typings",
        "stubs",
    }
)
# under src/ every package is the project's (pypa/build is src/build); only a test suite is not
NOT_SRC_PACKAGES = frozenset({"tests", "test", "testing"})


def setuptools_package_dirs(root: Path) -> dict[str, str]:
    """``[tool.setuptools] package-dir`` of the repository, if it declares one, its folders
    written as the rest of the configuration writes them (``"."`` and ``"./src"`` as
    ``""`` and ``"src"``: a ``./`` kept in a root made module names like ``..pkg.mod``)."""
    mapping = read_pyproject(root).get("tool", {}).get("setuptools", {}).get("package-dir", {})
    if not isinstance(mapping, dict):
        return {}
    return {str(k): _folder(str(v)) for k, v in mapping.items()}


def _folder(path: str) -> str:
    """A repository-relative folder without ``.`` segments or slashes at its ends."""
    return "/".join(p for p in path.replace("\\", "/").split("/") if p not in ("", "."))


def project_name(root: Path) -> str | None:
    """The distribution name: ``[project] name``, else an sdist's ``PKG-INFO``."""
    name = read_pyproject(root).get("project", {}).get("name")
    if isinstance(name, str) and name:
        return name
    try:
        raw = read_metadata(root / "PKG-INFO", root)
    except OSError:
        return None
    if raw is None:
        return None
    head = raw[:4000].decode("utf-8", errors="replace")
    match = re.search(r"^Name:\s*(\S+)", head, re.MULTILINE)
    return match.group(1) if match else None


def detect_packages(root: Path) -> dict[str, str]:
    """Import name -> folder for packages in ``src/``, else ``./``, else ``lib/``
    (matplotlib's and SQLAlchemy's layout), with zero configuration."""
    mapping = setuptools_package_dirs(root)
    base = mapping.pop("", None)
    if base:  # {"" = "src"}: every package under that folder
        mapping.update(_packages_in(root / base, f"{base}/", source=True))
    if mapping:
        return mapping
    # no mapping, or {"" = "."} (dogpile.cache): the packages are where they would be anyway
    found = _packages_in(root / "src", "src/", source=True)
    if not found:
        # beside other folders, a folder without __init__.py is a namespace package only
        # when the distribution says so (jaraco.functools -> jaraco/functools/), and a
        # module only when it is the distribution (six.py, appdirs.py)
        name = (project_name(root) or "").lower()
        namespace = re.split(r"[.\-_]", name, maxsplit=1)[0] if re.search(r"[.\-_]", name) else None
        found = _packages_in(root, "", namespace=namespace, module=re.sub(r"[.\-]", "_", name))
    return found or _packages_in(root / "lib", "lib/", source=True)


def _packages_in(
    folder: Path,
    prefix: str,
    source: bool = False,
    namespace: str | None = None,
    module: str | None = None,
) -> dict[str, str]:
    """Packages directly in ``folder``. In a source folder (``src/``, ``lib/``) every
    package is the project's, namespace packages and private ones (pytest's ``_pytest``)
    included, and every module but a test module; elsewhere only folders with an
    ``__init__.py`` and not named like tests, docs or build output, plus the
    ``namespace`` folder and the ``module`` file the distribution name gives."""
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    for child in sorted(folder.iterdir()):
        name = child.name
        hidden = name.startswith((".", "__")) or (name.startswith("_") and not source)
        if hidden or name.lower() in (NOT_SRC_PACKAGES if source else NOT_PACKAGES):
            continue
        if child.is_dir() and (
            _is_package(child) or ((source or name.lower() == namespace) and _is_namespace(child))
        ):
            out[name] = f"{prefix}{name}"
        elif _is_module(child, source, module):
            out[child.stem] = f"{prefix}{name}"
    return out


def _is_module(path: Path, source: bool, module: str | None) -> bool:
    """A public ``.py`` file that is a top-level module: any but a test module in a source
    folder, else only the one the distribution is named after."""
    stem = path.stem
    if path.suffix != ".py" or stem.startswith("_") or not path.is_file():
        return False
    if source:
        return not (stem == "conftest" or stem.startswith("test_") or stem.endswith("_test"))
    return stem.lower() == module


def _is_package(folder: Path) -> bool:
    return (folder / "__init__.py").is_file() or (folder / "__init__.pyi").is_file()


def _is_namespace(folder: Path) -> bool:
    """A PEP 420 namespace package: no ``__init__.py`` of its own, but a package inside
    (``jaraco/functools/__init__.py`` makes ``jaraco`` the top-level import name)."""
    try:
        return any(
            child.is_dir() and not child.name.startswith((".", "_")) and _is_package(child)
            for child in folder.iterdir()
        )
    except OSError:
        return False


def select_packages(root: Path, detected: dict[str, str], names: tuple[str, ...]) -> dict[str, str]:
    """The detected folders of the named packages and of their mapped subpackages."""
    out: dict[str, str] = {}
    for name in names:
        out[name] = detected.get(name, _guess_dir(root, name))
        out.update({k: v for k, v in detected.items() if k.startswith(name + ".")})
    return out


def _guess_dir(root: Path, name: str) -> str:
    base = name.replace(".", "/")
    return f"src/{base}" if (root / "src" / base).is_dir() else base


def default_roots(root: Path, package_dirs: dict[str, str]) -> tuple[str, ...]:
    """The package folders, then the doc, example and recipe folders that exist."""
    roots = list(dict.fromkeys(package_dirs.values()))
    for group in (DEFAULT_DOC_DIRS, DEFAULT_EXAMPLE_DIRS, DEFAULT_RECIPE_DIRS):
        roots += [d for d in group if (root / d).is_dir()]
    return tuple(roots)


def default_root_docs(root: Path) -> tuple[str, ...]:
    """The README files and ``AGENTS.md`` at the root."""
    # a FIFO README too: the walk skips it with its reason instead of ignoring it unseen
    return tuple(
        name for name in DEFAULT_ROOT_DOCS if (root / name).exists() and not (root / name).is_dir()
    )


def default_recipes(root: Path, roots: tuple[str, ...]) -> tuple[str, ...]:
    """The recipe folders that exist and are indexed."""
    return tuple(d for d in DEFAULT_RECIPE_DIRS if d in roots and (root / d).is_dir())


def no_package_found(root: Path, packages: tuple[str, ...], has_code: bool) -> list[str]:
    """A build's warning for an index without code whose packages zero configuration did
    not find (ruamel.yaml's sdist is its package: ``__init__.py`` at the root): not silence."""
    if packages or has_code:
        return []
    if (root / "__init__.py").is_file():
        name = project_name(root) or "its_import_name"
        fix = (
            f"its root holds __init__.py, so the root itself is the package: set "
            f'package_dirs = {{"{name}" = "."}} under [tool.codecite]'
        )
    else:
        fix = "name the packages with packages and roots (or package_dirs) under [tool.codecite]"
    return [
        f"no Python package found in '{root}' (zero configuration looks in src/, at the "
        f"root for folders with __init__.py, and in lib/); {fix} (docs/configuration.md)"
    ]
