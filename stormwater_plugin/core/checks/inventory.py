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

from ..derived import derive
from ..limits import compare, precision
from ..model import FeatureLayer, InventoryRow, Status
from ..roles import ROLE_NOUN
from ..rulepack import Rule
from .context import CheckContext


def check_plot_plan_inventory(ctx: CheckContext, rule: Rule) -> None:
    """List every feature of the named roles within ``distance_ft`` of the site parcel, nearest first."""
    dist = float(rule.params["distance_ft"])
    roles: list[str] = list(rule.params["roles"])
    if ctx.site_geometry is None:
        ctx.add(rule, Status.UNDETERMINED, "The site parcel is unknown, so the features within the plot-plan distance cannot be listed.")
        ctx.skip(rule, "site parcel unknown")
        ctx.inventory = []
        return
    rows: list[InventoryRow] = []
    absent = [r for r in roles if ctx.layer(r) is None]
    for role in roles:
        layer = ctx.layer(role)
        if layer is None or len(layer) == 0:
            continue
        site = ctx.site_geometry
        found = derive("plot-plan rows", partial(_rows, role, layer, site, dist, ctx.unit_to_ft), role, layer, site, dist, ctx.unit_to_ft)
        rows.extend(r.copy() for r in found)  # copies: the live re-check's next check may hand the same rows back
    rows.sort(key=lambda r: (r["distance_ft"], r["layer"], r["id"]))
    ctx.inventory = rows
    counts = {r: sum(1 for x in rows if x["layer"] == r) for r in roles}
    summary = ", ".join(f"{n} {_plural(ROLE_NOUN.get(r, r), n)}" for r, n in counts.items() if n)
    status = Status.UNDETERMINED if absent else Status.ADVISORY
    tail = f"; not supplied: {', '.join(absent)}" if absent else ""
    also = f" It must also show {rule.params['also_required']}." if rule.params.get("also_required") else ""
    ctx.add(rule, status, f"The plot plan must show {len(rows)} feature(s) on or within {dist:g} ft of the site: {summary or 'none found'}{tail}.{also}", required_ft=dist, items=rows)


def _rows(role: str, layer: FeatureLayer, site: BaseGeometry, dist: float, unit_to_ft: float) -> tuple[InventoryRow, ...]:
    """The features of one role within ``dist`` ft of the site, as inventory rows (in the layer's order)."""
    tree = shapely.STRtree(layer.geoms)
    out: list[InventoryRow] = []
    # "within" the plot-plan distance, decided at 0.01 ft (core.limits): what prints as the distance is within.
    hits = tree.query(site, predicate="dwithin", distance=(dist + precision("distance_ft")) / unit_to_ft)
    for j in np.atleast_1d(hits):
        j = int(j)
        d = float(shapely.distance(site, layer.geoms[j])) * unit_to_ft
        if not compare(d, dist, "distance_ft", "within"):
            continue
        out.append({"layer": role, "id": layer.ids[j], "distance_ft": round(d, 1), "on_site": d == 0.0})
    return tuple(out)


def _plural(noun: str, n: int) -> str:
    if n == 1 or noun.endswith("s"):
        return noun
    return noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
