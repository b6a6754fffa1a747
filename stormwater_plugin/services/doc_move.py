"""A suggested move as the review's document holds it (findings.json ``moves``), typed: :class:`Move`.

Kept apart from :mod:`.findings_doc` (which re-exports it) with the few readers of JSON values both use.

QGIS-free and file-free.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import cast


def _opt_str(v: object) -> str | None:
    return None if v is None else str(v)


def _opt_float(v: object) -> float | None:
    """A JSON number (or numeric text) as a float; ``None`` stays ``None``."""
    if v is None or type(v) is float:
        return cast("float | None", v)
    if isinstance(v, (int, float, str)):
        return float(v)
    raise TypeError(f"not a number: {v!r}")


def _xy(v: object) -> tuple[float, float] | None:
    """A JSON ``[x, y]`` as a pair of floats (``None`` when absent)."""
    if not v:
        return None
    if not isinstance(v, (list, tuple)) or len(v) < 2:
        raise TypeError(f"not an [x, y] pair: {v!r}")
    x, y = _opt_float(v[0]), _opt_float(v[1])
    if x is None or y is None:
        raise TypeError(f"not an [x, y] pair: {v!r}")
    return x, y


# --------------------------------------------------------------------------- moves


@dataclass(frozen=True)
class Move:
    """A suggested move of a device with a setback violation, re-checked by the engine.

    Parameters
    ----------
    device_layer, device_id : str
        The device (``"?"`` when the suggestion failed before a device was named).
    device_type : str or None
        Its type (``dry_well``…).
    high_traffic : bool or None
        The traffic class the envelope was built for (``None``: both classes' rules).
    rules : tuple of str
        The violated rule ids the move clears.
    possible : bool
        Whether a compliant position was found.
    start, end : (float, float) or None
        Working-CRS x, y of the device (point or centroid) before and after.
    distance_ft : float or None
        Length of the move, feet.
    bearing_deg : float or None
        Direction, degrees clockwise from grid north.
    reason : str or None
        Why no move is suggested (when not ``possible``).
    method : str or None
        How the position was searched.
    message : str
        The sentence the siting code wrote (the findings.json ``message``).
    """

    device_layer: str
    device_id: str
    device_type: str | None
    high_traffic: bool | None
    rules: tuple[str, ...]
    possible: bool
    start: tuple[float, float] | None = None
    end: tuple[float, float] | None = None
    distance_ft: float | None = None
    bearing_deg: float | None = None
    reason: str | None = None
    method: str | None = None
    message: str = ""
    #: The findings.json form, kept as the siting code wrote it so the document stays byte for byte the same.
    document: Mapping[str, object] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> Move:
        """The move of one findings.json ``moves`` entry (as :func:`~stormwater_plugin.services.moves.suggest_moves` returns it)."""
        got = d.get("device")
        dev: Mapping[str, object] = got if isinstance(got, Mapping) else {}
        ht = d.get("high_traffic")
        rules = d.get("rules") or ()
        return cls(
            device_layer=str(dev.get("layer") or "devices"),
            device_id=str(dev.get("id") or "?"),
            device_type=_opt_str(d.get("device_type")),
            high_traffic=None if ht is None else bool(ht),
            rules=tuple(str(r) for r in rules) if isinstance(rules, (list, tuple)) else (),
            possible=bool(d.get("possible")),
            start=_xy(d.get("from")),
            end=_xy(d.get("to")),
            distance_ft=_opt_float(d.get("distance_ft")),
            bearing_deg=_opt_float(d.get("bearing_deg")),
            reason=None if d.get("reason") is None else str(d["reason"]),
            method=None if d.get("method") is None else str(d["method"]),
            message=str(d.get("message") or ""),
            document=dict(d),
        )

    @property
    def drawable(self) -> bool:
        """A possible move with both ends known (an arrow can be drawn)."""
        return self.possible and self.start is not None and self.end is not None

    def as_dict(self) -> dict[str, object]:
        """The findings.json form."""
        if self.document:
            return dict(self.document)
        out: dict[str, object] = {"device": {"layer": self.device_layer, "id": self.device_id}, "device_type": self.device_type,
                               "high_traffic": self.high_traffic, "rules": list(self.rules), "possible": self.possible}
        if self.possible:
            out.update({"from": list(self.start) if self.start else None, "to": list(self.end) if self.end else None,
                        "distance_ft": self.distance_ft, "bearing_deg": self.bearing_deg})
        else:
            out["reason"] = self.reason
        out["message"] = self.message
        return out

    # Read-only mapping access to the findings.json form, for scripts written against the dictionaries.
    def __getitem__(self, key: str) -> object:
        return self.as_dict()[key]

    def get(self, key: str, default: object = None) -> object:
        """``as_dict().get(key, default)``."""
        return self.as_dict().get(key, default)


def moves_from_dicts(items: Iterable[Mapping[str, object] | Move] | None) -> tuple[Move, ...]:
    """Typed moves of the siting code's dictionaries (moves already typed are kept)."""
    return tuple(m if isinstance(m, Move) else Move.from_dict(m) for m in items or ())


__all__ = ["Move", "moves_from_dicts"]
