"""A site template's empty layers read as not drawn, for a reader that holds its role layers as open sources (the plugin's).

The decision is :func:`~stormwater_plugin.services.reading_policy.template_undrawn` (the command line's); this
module finds each role's package from its source text and asks the package once for its statements, remembered
while the package's files stay as they were (the live re-check plans at every edit, on the main thread).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..core.model import Warning_
from .reading_policy import template_undrawn
from .site_template import read_statements

#: Package path to (its files' state, its statements): :func:`statements_of`'s memory.
_STATEMENTS: dict[str, tuple[tuple[object, ...], frozenset[str] | None]] = {}


def _files_state(path: str) -> tuple[object, ...] | None:
    """What changes when the package is written: size and modification time of the file and of its write-ahead log; ``None``: no file."""
    out: list[object] = []
    for name in (path, path + "-wal"):
        try:
            st = os.stat(name)
        except OSError:
            if name == path:
                return None
            out.append(None)
            continue
        out.append((st.st_size, st.st_mtime_ns))
    return tuple(out)


def statements_of(path: str) -> frozenset[str] | None:
    """:func:`~stormwater_plugin.services.site_template.read_statements` of ``path``, read again only when its files changed.

    ``None``: not a file, or no template. A package that cannot be read raises as ``read_statements`` does, and is not remembered.
    """
    state = _files_state(path)
    if state is None:
        return None
    kept = _STATEMENTS.get(path)
    if kept is not None and kept[0] == state:
        return kept[1]
    stated = read_statements(Path(path))
    _STATEMENTS[path] = (state, stated)
    return stated


def drop_undrawn_template_layers(sources: dict[str, object], warnings: list[Warning_]) -> None:
    """A site template's empty layers are not drawn, never "none" (:func:`~stormwater_plugin.services.site_template.undrawn_roles`).

    The roles whose layer (a source with ``source()`` and ``featureCount()``) is an empty layer of a template package (its
    ``site_statements`` table) not stated none are taken out of ``sources`` with a warning, as the command line reads them.
    A check whose every layer is an empty template layer is refused (:class:`~stormwater_plugin.services.site_template.TemplateError`).
    """
    by_package: dict[str, dict[str, int]] = {}
    for role, src in sources.items():
        uri = src.source() if hasattr(src, "source") else ""
        path = str(uri).split("|")[0]
        if not path.lower().endswith(".gpkg") or not hasattr(src, "featureCount"):
            continue
        by_package.setdefault(path, {})[role] = int(src.featureCount())
    templates = {path: (stated, counts) for path, counts in by_package.items() if (stated := statements_of(path)) is not None}
    refuse = len(templates) == 1 and sum(len(c) for _, c in templates.values()) == len(sources)
    for path, (stated, counts) in templates.items():
        undrawn, notes = template_undrawn(Path(path).name, stated, counts, refuse)
        for role in undrawn:
            del sources[role]
        warnings.extend(notes)


__all__ = ["drop_undrawn_template_layers", "statements_of"]
