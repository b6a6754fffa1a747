"""A layer's source text as the command line names a file's layer: ``path:layer`` from an OGR URI, and the layer's own name."""

from __future__ import annotations

import functools
from pathlib import Path


def where_of_uri(uri: str) -> str:
    """An OGR source URI (``path|layername=name|…``) as ``path:name`` (the path alone when it names no layer)."""
    parts = uri.split("|")
    layer = next((p.split("=", 1)[1] for p in parts[1:] if p.startswith("layername=")), None)
    return f"{parts[0]}:{layer}" if layer else parts[0]


@functools.lru_cache(maxsize=256)
def layer_file_name(where: str) -> str:
    """The layer's name in its file (after the ``:`` of :func:`where_of_uri`), else the file's name (once per text: the live read
    describes an edited layer at every edit)."""
    path, _, layer = where.rpartition(":") if ":" in Path(where).name else (where, "", "")
    return layer or Path(path or where).name


__all__ = ["layer_file_name", "where_of_uri"]
