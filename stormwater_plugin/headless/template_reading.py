"""How the check reads a site template's layers: an empty layer of a template is not drawn, not "none".

The policy is :mod:`stormwater_plugin.services.site_template` (:func:`~stormwater_plugin.services.site_template.undrawn_roles`);
this module reads the package (its ``site_statements`` table, its layer counts with fiona) for
the reader, the context catalog and the completeness check. It imports no other reader module, so each
of them can call it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import fiona

from ..core.model import Warning_
from ..services.reading_policy import template_undrawn
from ..services.site_template import read_statements


def layer_counts(package: Path, layers: Sequence[str]) -> dict[str, int]:
    """Feature count of each named layer of the package."""
    out: dict[str, int] = {}
    for name in layers:
        with fiona.open(str(package), layer=name) as coll:
            out[name] = len(coll)
    return out


def template_reading(package: Path, package_layers: dict[str, Any], refuse_empty: bool = True) -> tuple[set[str], list[Warning_]]:
    """Which of a template's role layers are read as not drawn, with their warnings (see :func:`~stormwater_plugin.services.site_template.undrawn_roles`).

    ``package_layers``: role to the package's layer name(s) of that role (the roles no ``--layer``
    replaces). An ordinary package (no statements table) gives nothing. Raises :class:`~stormwater_plugin.services.site_template.TemplateError` with
    one line for a template with nothing drawn when ``refuse_empty`` (a check with no ``--layer``).
    """
    stated = read_statements(package)
    if stated is None:
        return set(), []
    names = {role: list(v) if isinstance(v, (list, tuple)) else [v] for role, v in package_layers.items()}
    counts = layer_counts(package, [n for ns in names.values() for n in ns])
    undrawn, notes = template_undrawn(str(package), stated, {role: sum(counts[n] for n in ns) for role, ns in names.items()}, refuse_empty)
    return set(undrawn), notes
