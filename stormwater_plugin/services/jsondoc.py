"""Reading a JSON document's values with their types: the service layer's view of findings.json, letter.json, the register.

The documents are the project's own (written by :mod:`~stormwater_plugin.core.serialize`, the letter, the
register), so their shape is trusted as before: these helpers only name it for the type checker and
convert nothing (``value or {}`` is the value itself, or an empty mapping for a missing one).
"""

from __future__ import annotations

from typing import Iterable, Mapping, SupportsFloat, SupportsIndex, SupportsInt, cast


def mapping(value: object) -> Mapping[str, object]:
    """``value or {}``: a nested object of the document (an empty one when missing or null)."""
    return cast("Mapping[str, object]", value or {})


def maps(value: object) -> Iterable[Mapping[str, object]]:
    """``value or ()``: a list of objects of the document (the findings, the comments…)."""
    return cast("Iterable[Mapping[str, object]]", value or ())


def values(value: object) -> Iterable[object]:
    """``value or ()``: a list of plain values of the document."""
    return cast("Iterable[object]", value or ())


def number(value: object) -> float:
    """``float(value)``: a number of the document (raises as ``float`` does on anything else)."""
    return float(cast("SupportsFloat | SupportsIndex | str", value))


def integer(value: object) -> int:
    """``int(value)``: a whole number of the document (raises as ``int`` does on anything else)."""
    return int(cast("SupportsInt | SupportsIndex | str", value))


__all__ = ["integer", "mapping", "maps", "number", "values"]
