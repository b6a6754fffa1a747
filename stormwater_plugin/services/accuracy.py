"""The data accuracy a reviewer states, read once for every front end.

Horizontal accuracy per role (``septic=10, parcels=10``, feet) and the DEM's
vertical accuracy (feet) go onto the check's inputs; the engine then reports a
finding undetermined where the stated accuracy could change it
(:mod:`stormwater_plugin.core.accuracy`). The command line, Processing and the
dock all call :func:`apply_accuracy`, so the same words give the same inputs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

from ..core.accuracy import parse_role_accuracy
from ..core.errors import StormwaterError


class AccuracyTarget(Protocol):
    """What takes the stated accuracies: the check's ``SiteInputs``, or the plugin's inputs before its layers are read."""

    accuracy_ft: dict[str, float]
    dem_vertical_accuracy_ft: float | None


class AccuracyError(ValueError, StormwaterError):
    """A stated accuracy that is not a role and a number of feet, 0 or more.

    ``str(exc)`` names what was stated ("horizontal accuracy septik=10: …"); ``detail`` is the bad entry and why
    ("septik=10: …"), for a front end that names its own option; ``part`` which statement it is
    (``"horizontal"`` or ``"dem_vertical"``), so that front end knows which option to name.
    """

    def __init__(self, message: str, detail: str | None = None, part: str = "horizontal") -> None:
        super().__init__(message)
        self.detail = detail if detail is not None else message
        self.part = part


def parse_accuracy(items: Sequence[str]) -> dict[str, float]:
    """``["septic=10", "parcels=10"]`` or ``["septic=10, parcels=10"]`` to role -> feet; :class:`AccuracyError` naming a bad item."""
    try:
        return parse_role_accuracy(items)
    except ValueError as exc:
        raise AccuracyError(f"horizontal accuracy {exc}", str(exc)) from exc


def parse_dem_vertical(value: str | float | None) -> float | None:
    """The DEM's vertical accuracy in feet (``None`` or blank: not stated); :class:`AccuracyError` when not a number of feet, 0 or more."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        ft = float(value)
    except ValueError:
        raise AccuracyError(f"DEM vertical accuracy '{str(value).strip()}' is not a number of feet", f"{str(value).strip()}: not a number of feet",
                             "dem_vertical") from None
    if not (math.isfinite(ft) and ft >= 0):
        raise AccuracyError("DEM vertical accuracy must be 0 ft or more", f"{ft:g}: give a number of feet, 0 or more", "dem_vertical")
    return ft


def apply_accuracy(inputs: AccuracyTarget, horizontal: Sequence[str], dem_vertical: str | float | None) -> None:
    """Put the stated accuracies on ``inputs`` (``accuracy_ft``, ``dem_vertical_accuracy_ft``).

    Raises
    ------
    AccuracyError
        Naming the bad entry; ``inputs`` is then unchanged.
    """
    horizontal_ft = parse_accuracy(horizontal)
    vertical_ft = parse_dem_vertical(dem_vertical)
    inputs.accuracy_ft = horizontal_ft
    inputs.dem_vertical_accuracy_ft = vertical_ft
