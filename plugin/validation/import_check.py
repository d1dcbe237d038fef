"""The opt-in import check: settle names the symbol table cannot prove by importing them.

Only warnings that carry a ``probe`` (a module ``__getattr__``, an unfollowed
star import, a module the index lacks) are tried, and only when the caller
asks (``import_check=True``, ``codecite validate --import-check``): this is
the one place validation imports the project's installed package. A name that
imports is verified; one that does not becomes an error with close real names.
See docs/validation.md.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
from dataclasses import replace

from codecite.validation.findings import ERROR, WARNING, Finding
from codecite.validation.suggestions import did_you_mean, with_hint

logger = logging.getLogger(__name__)


def _import_probe(finding: Finding) -> Finding | None:
    """Try an unprovable name by importing its module; None when it is verified."""
    module, name = finding.probe or ("", "")
    try:
        mod = importlib.import_module(module)
        present = hasattr(mod, name) or (
            hasattr(mod, "__path__") and importlib.util.find_spec(f"{module}.{name}") is not None
        )
    except Exception as exc:  # an installed package can fail to import in any way
        logger.debug("import check of %s failed", module, exc_info=True)
        return replace(
            finding,
            message=f"{finding.message} (import check failed: {type(exc).__name__}: {exc})",
            probe=None,
        )
    if present:
        return None
    near = did_you_mean(name, dir(mod))
    message = with_hint(f"'{module}' has no attribute or submodule '{name}'", near)
    return replace(
        finding, level=ERROR, message=f"{message} (import check)", suggestions=near, probe=None
    )


def run_import_checks(
    findings: list[Finding], checked: list[str], import_checked: list[str]
) -> list[Finding]:
    """The findings left once probes are tried; verified names go to both lists."""
    out = []
    for finding in findings:
        if finding.level != WARNING or finding.probe is None:
            out.append(finding)
            continue
        probed = _import_probe(finding)
        if probed is None:
            checked.append(finding.symbol)
            import_checked.append(finding.symbol)
        else:
            out.append(probed)
    return out
