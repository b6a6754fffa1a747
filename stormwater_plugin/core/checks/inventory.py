"""Rule kind ``plot_plan_inventory``: what a plot plan must show within a distance of the site (646-4.13(a)(7)).

``roles`` lists the layers to inventory (the text's "existing and proposed
structures and impervious surfaces, water bodies, septic systems, wells, and
stormwater control devices": building sites, impervious surfaces of every
status, water, septic systems, wells, devices); an absent layer makes the
finding undetermined. ``also_required`` names what the text asks for that no
layer carries.
"""

from __future__ import annotations

import numpy as np
import shapely

from ..limits import compare, precision
from ..model import InventoryRow, Status
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
        tree = shapely.STRtree(layer.geoms)
        # "within" the plot-plan distance, decided at 0.01 ft (core.limits): what prints as the distance is within.
        hits = tree.query(ctx.site_geometry, predicate="dwithin", distance=ctx.to_units(dist + precision("distance_ft")))
        for j in np.atleast_1d(hits):
            j = int(j)
            d = ctx.to_feet(float(shapely.distance(ctx.site_geometry, layer.geoms[j])))
            if not compare(d, dist, "distance_ft", "within"):
                continue
            rows.append({"layer": role, "id": layer.ids[j], "distance_ft": round(d, 1), "on_site": d == 0.0})
    rows.sort(key=lambda r: (r["distance_ft"], r["layer"], r["id"]))
    ctx.inventory = rows
    counts = {r: sum(1 for x in rows if x["layer"] == r) for r in roles}
    summary = ", ".join(f"{n} {_plural(ROLE_NOUN.get(r, r), n)}" for r, n in counts.items() if n)
    status = Status.UNDETERMINED if absent else Status.ADVISORY
    tail = f"; not supplied: {', '.join(absent)}" if absent else ""
    also = f" It must also show {rule.params['also_required']}." if rule.params.get("also_required") else ""
    ctx.add(rule, status, f"The plot plan must show {len(rows)} feature(s) on or within {dist:g} ft of the site: {summary or 'none found'}{tail}.{also}", required_ft=dist, items=rows)


def _plural(noun: str, n: int) -> str:
    if n == 1 or noun.endswith("s"):
        return noun
    return noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
