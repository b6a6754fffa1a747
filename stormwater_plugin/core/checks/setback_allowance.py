"""The area allowance of a device setback: which devices that may be of the allowance's type lie inside the distance.

§148-11I(3)(c) lets up to 400 sq ft of porous pavers lie within 35 ft of Lake George: the setback check totals the
areas of the devices inside the distance that may be porous pavement (:func:`allowance_inside`), and lists those
beyond it, so that a stated accuracy that may bring one inside can count its area too
(:func:`~stormwater_plugin.core.accuracy.apply_accuracy`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely

from ..geometry import area_sqft
from ..vocabulary import read
from .context import CheckContext
from .setback_targets import SetbackTargets


@dataclass
class AllowanceInside:
    """Areas (sq ft) of the devices inside the distance that may be allowance-type.

    ``known`` totals the devices whose type is an allowance type, ``possible``
    adds those whose type is missing or unrecognised; ``own`` is each such
    device's area. A total is ``None`` when a device it counts is not drawn as
    an area.
    """

    known: float | None
    possible: float | None
    own: dict[int, float | None]
    #: The devices that may be of an allowance type but lie beyond the distance as drawn: ``[device id, target layer,
    #: target id, distance ft, area sq ft or None]`` to the nearest target.
    beyond: list[list[Any]] = field(default_factory=list)


def allowance_inside(
    ctx: CheckContext,
    devices: Any,
    indices: Sequence[int],
    targets: SetbackTargets | None,
    allowance: dict[str, Any],
    short: Callable[[float], bool],
) -> AllowanceInside:
    """The devices ``indices`` of ``devices`` that may be of the allowance's type, inside or beyond the distance.

    Parameters
    ----------
    ctx : CheckContext
        The run (working units to feet).
    devices : FeatureLayer
        The devices layer.
    indices : sequence of int
        The devices the rule covers.
    targets : SetbackTargets or None
        The rule's features (``None``: none, nothing is inside).
    allowance : dict
        The rule's ``allowance`` (``device_types``).
    short : callable
        Whether a distance in feet is inside the rule's distance, by its words.
    """
    out = AllowanceInside(0.0, 0.0, {})
    if targets is None:
        return out
    for i in indices:
        tr = read(devices.attrs[i], "devices", "device_type")
        if tr.known and tr.value not in allowance["device_types"]:
            continue
        dev = devices.geoms[i]
        a = area_sqft(dev, ctx.unit_to_ft) if dev.geom_type in ("Polygon", "MultiPolygon") else None
        # The nearest target decides (a nearer one is inside whenever a farther one is); equally near ones by id, never by order.
        j = min((int(k) for k in np.atleast_1d(targets.tree.query_nearest(dev, all_matches=True))),
                key=lambda k: (targets.refs[k].layer, targets.refs[k].id))
        d_ft = ctx.to_feet(float(shapely.distance(dev, targets.geoms[j])))
        if not short(d_ft):
            tref = targets.refs[j]
            out.beyond.append([devices.ref(i).id, tref.layer, tref.id, round(d_ft, 2), a])
            continue
        out.own[i] = a
        if tr.known:
            out.known = None if a is None or out.known is None else out.known + a
        out.possible = None if a is None or out.possible is None else out.possible + a
    return out


__all__ = ["AllowanceInside", "allowance_inside"]
