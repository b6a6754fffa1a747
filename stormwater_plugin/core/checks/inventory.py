"""Rule kind ``plot_plan_inventory``: what a plot plan must show within a distance of the site (646-4.13(a)(7)).

``roles`` lists the layers to inventory (the text's "existing and proposed
structures and impervious surfaces, water bodies, septic systems, wells, and
stormwater control devices": building sites, impervious surfaces of every
status, water, septic systems, wells, devices); an absent layer makes the
finding undetermined. ``also_required`` names what the text asks for that no
layer carries.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..derived import derive_each
from ..limits import compare, precision
from ..model import FeatureLayer, InventoryRow, Status
from ..roles import ROLE_NOUN
from ..rulepack import Rule
from .context import CheckContext, reading_key


def check_plot_plan_inventory(ctx: CheckContext, rule: Rule) -> None:
    """List every feature of the named roles within ``distance_ft`` of the site parcel, nearest first."""
    dist = float(rule.params["distance_ft"])
    roles: list[str] = list(rule.params["roles"])
    if ctx.site_geometry is None:
        ctx.add(rule, Status.UNDETERMINED, "The site parcel is unknown, so the features within the plot-plan distance cannot be listed.")
        ctx.skip(rule, "site parcel unknown")
        ctx.inventory = []
        return
    absent = tuple(r for r in roles if ctx.layer(r) is None)
    site = ctx.site_geometry
    devices = ctx.layer("devices") if "devices" in roles else None
    # the devices' rows (those within the distance, each at 0.1 ft, on the site or not) are all the rule reads of them
    if devices is not None and len(devices) and ctx.devices_read_as_before(rule, lambda: reading_key(_layer_rows("devices", devices, site, dist, ctx.unit_to_ft))):
        return
    layers = [(role, layer) for role in roles for layer in [ctx.layer(role)] if layer is not None and len(layer)]
    # each layer's rows kept by its content (and the site's, the distance, the unit): an unedited layer's are one look-up
    parts = derive_each("plot-plan rows", partial(_rows, site, dist, ctx.unit_to_ft), layers, site, dist, ctx.unit_to_ft)
    also = str(rule.params["also_required"]) if rule.params.get("also_required") else ""
    listed, message = _listing(parts, tuple(roles), absent, dist, also)
    # the rows as dicts of their own: the live re-check's next check may hand the same list back
    rows: list[InventoryRow] = [{"layer": role, "id": fid, "distance_ft": d, "on_site": on} for role, fid, d, on in listed]
    ctx.inventory = rows
    ctx.add(rule, Status.UNDETERMINED if absent else Status.ADVISORY, message, required_ft=dist, items=rows)


_Row = tuple[str, str, float, bool]


def _listing(parts: list[tuple[_Row, ...]], roles: tuple[str, ...], absent: tuple[str, ...], dist: float, also: str) -> tuple[tuple[_Row, ...], str]:
    """The rows of every role, nearest first (then by layer and id), and the finding's message."""
    rows = [r for part in parts for r in part]
    rows.sort(key=lambda r: (r[2], r[0], r[1]))
    counts = dict.fromkeys(roles, 0)
    for r in rows:
        if r[0] in counts:
            counts[r[0]] += 1
    summary = ", ".join(f"{n} {_plural(ROLE_NOUN.get(r, r), n)}" for r, n in counts.items() if n)
    tail = f"; not supplied: {', '.join(absent)}" if absent else ""
    more = f" It must also show {also}." if also else ""
    return tuple(rows), f"The plot plan must show {len(rows)} feature(s) on or within {dist:g} ft of the site: {summary or 'none found'}{tail}.{more}"


def _rows(site: BaseGeometry, dist: float, unit_to_ft: float, layers: list[tuple[str, FeatureLayer]]) -> list[tuple[_Row, ...]]:
    """:func:`_layer_rows` of each ``(role, layer)``."""
    return [_layer_rows(role, layer, site, dist, unit_to_ft) for role, layer in layers]


def _layer_rows(role: str, layer: FeatureLayer, site: BaseGeometry, dist: float, unit_to_ft: float) -> tuple[_Row, ...]:
    """The features of one role within ``dist`` ft of the site, as ``(role, id, distance ft at 0.1 ft, on the site)`` in the layer's order.

    Each feature's distance is kept by its geometry (and the site's, the distance, the unit): only an edited feature is measured again.
    """
    found = derive_each("plot-plan distance", partial(_distances, site, dist, unit_to_ft), list(layer.geoms), site, dist, unit_to_ft)
    return tuple((role, layer.ids[j], round(d, 1), d == 0.0) for j, d in enumerate(found) if d is not None)


def _distances(site: BaseGeometry, dist: float, unit_to_ft: float, geoms: list[BaseGeometry]) -> list[float | None]:
    """Each feature's distance from the site in feet, ``None`` beyond ``dist`` ft."""
    out: list[float | None] = [None] * len(geoms)
    arr = np.empty(len(geoms), dtype=object)
    arr[:] = geoms
    # "within" the plot-plan distance, decided at 0.01 ft (core.limits): what prints as the distance is within. Of many
    # features, those beyond the distance and its precision are left out at once (one vectorised test over a county's
    # features), which leaves out only features the comparison refuses; a few (a moved one) are measured at once.
    near = np.arange(len(geoms)) if len(geoms) <= _FEW else np.flatnonzero(shapely.dwithin(site, arr, (dist + precision("distance_ft")) / unit_to_ft))
    if len(near):
        for j, units in zip(near.tolist(), shapely.distance(site, arr[near]).tolist()):
            d = float(units) * unit_to_ft
            if compare(d, dist, "distance_ft", "within"):
                out[j] = d
    return out


#: Up to this many features, each is measured without the vectorised reach test first (the test costs as much as a distance).
_FEW = 16


def _plural(noun: str, n: int) -> str:
    if n == 1 or noun.endswith("s"):
        return noun
    return noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
