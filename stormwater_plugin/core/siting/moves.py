"""How far a device that violates a setback must move: ``suggest_moves(inputs, pack, result)``.

For each device with a ``device_setback`` violation in ``result``:

* a **point** device goes to the nearest point of the siting envelope built
  for its device type and traffic class (:func:`.envelope.build_envelope`),
  nudged 0.01 ft inside it;
* a **line or polygon** device is translated rigidly (no rotation): the
  smallest translation, on a grid of the envelope's cell refined tenfold
  around the best candidate, that puts the whole footprint inside the
  envelope. The reported position is the new centroid and the distance is
  the length of the translation.

Every suggestion is verified by re-running the device's setback rules
(``run_check`` on the moved device alone); only a position with no
violation and no undetermined finding is proposed. When none exists on the
parcel the entry says so.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from ..checks.context import truthy
from ..engine import SiteInputs, run_check
from ..geometry import clean_layer
from ..model import CheckResult, FeatureLayer, Status
from ..rulepack import RulePack
from .envelope import DEFAULT_CELL_FT, SitingEnvelope, SitingError, applicable_rules, build_envelope, normalise_device_type

#: How far inside the envelope a suggested point is placed, feet.
NUDGE_FT: float = 0.01
#: Candidate positions tried before giving up on a device.
MAX_TRIES: int = 40


def bearing_deg(dx: float, dy: float) -> float:
    """Degrees clockwise from grid north of the offset (dx, dy)."""
    return math.degrees(math.atan2(dx, dy)) % 360.0


def _compass(b: float) -> str:
    names = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
    return names[int((b + 22.5) // 45) % 8]


def _verify(inputs: SiteInputs, pack: RulePack, project_class: str, geom: BaseGeometry, attrs: dict[str, Any], dev_id: str) -> tuple[bool, list[str]]:
    """Whether the device at ``geom`` passes every setback rule (no violation, no undetermined about it)."""
    rules = tuple(r for r in pack.rules if r.kind == "device_setback")
    sub = dataclasses.replace(pack, rules=rules)
    layers = dict(inputs.layers)
    layers["devices"] = FeatureLayer.from_sequences("devices", [geom], [dev_id], [attrs])
    res = run_check(SiteInputs(layers=layers, dem=inputs.dem, unit_to_ft=inputs.unit_to_ft, site_parcel_id=inputs.site_parcel_id, class_override=project_class), sub)
    bad = [f.rule_id for f in res.findings if f.subject is not None and f.subject.layer == "devices" and f.status in (Status.VIOLATION, Status.UNDETERMINED)]
    return not bad, bad


def _nearest_inside(env: BaseGeometry, pt: Point, unit_to_ft: float, limit: int) -> list[Point]:
    """Candidate points of ``env`` nearest to ``pt``: the nearest boundary point nudged inside, then a widening search."""
    out: list[Point] = []
    if env.is_empty:
        return out
    if shapely.contains(env, pt):
        return [pt]
    near = nearest_points(env, pt)[0]
    nudge = NUDGE_FT / unit_to_ft
    dx, dy = near.x - pt.x, near.y - pt.y
    n = math.hypot(dx, dy) or 1.0
    for k in (1, 2, 5, 10, 20):
        c = Point(near.x + dx / n * nudge * k, near.y + dy / n * nudge * k)
        if shapely.contains(env, c):
            out.append(c)
            break
    else:
        # The straight continuation leaves the envelope (a corner): look around the boundary point.
        ang = np.linspace(0, 2 * math.pi, 72, endpoint=False)
        for k in (1, 2, 5, 10):
            cx = near.x + np.cos(ang) * nudge * k
            cy = near.y + np.sin(ang) * nudge * k
            ok = shapely.contains_xy(env, cx, cy)
            if ok.any():
                d = np.hypot(cx - pt.x, cy - pt.y)
                d[~ok] = np.inf
                j = int(np.argmin(d))
                out.append(Point(cx[j], cy[j]))
                break
    # Fallbacks: points of the envelope's interior by increasing distance (for a failed verification).
    if len(out) < limit:
        inner = shapely.buffer(env, -5 * nudge)
        b = shapely.get_coordinates(shapely.segmentize(inner.boundary, 0.5 / unit_to_ft)) if not inner.is_empty else np.zeros((0, 2))
        if len(b):
            order = np.argsort(np.hypot(b[:, 0] - pt.x, b[:, 1] - pt.y))
            step = max(1, len(order) // (limit * 4))
            for j in order[: limit * step : step]:
                out.append(Point(b[j, 0], b[j, 1]))
    return out[:limit]


def _translated(geom: BaseGeometry, dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """Copies of ``geom`` moved by each (dx, dy), built in one vectorised step."""
    base = shapely.get_coordinates(geom)
    copies = shapely.from_wkb(np.repeat(shapely.to_wkb(geom), len(dx)))
    coords = np.tile(base, (len(dx), 1))
    coords[:, 0] += np.repeat(dx, len(base))
    coords[:, 1] += np.repeat(dy, len(base))
    return shapely.set_coordinates(copies, coords)


def _translations(env: BaseGeometry, geom: BaseGeometry, step: float, limit: int) -> list[tuple[float, float]]:
    """Translations (dx, dy) putting ``geom`` wholly inside ``env``, smallest first (grid of ``step``, refined)."""
    if env.is_empty:
        return []
    shapely.prepare(env)
    c = geom.centroid
    minx, miny, maxx, maxy = env.bounds
    # The centroid must land where the footprint fits, so within the envelope's bounds.
    gx = np.arange(math.floor((minx - c.x) / step), math.ceil((maxx - c.x) / step) + 1) * step
    gy = np.arange(math.floor((miny - c.y) / step), math.ceil((maxy - c.y) / step) + 1) * step
    tx, ty = np.meshgrid(gx, gy)
    tx, ty = tx.ravel(), ty.ravel()
    keep = shapely.contains_xy(env, c.x + tx, c.y + ty)
    tx, ty = tx[keep], ty[keep]
    order = np.argsort(np.hypot(tx, ty))
    found: list[tuple[float, float]] = []
    for start in range(0, len(order), 512):
        idx = order[start : start + 512]
        ok = shapely.contains(env, _translated(geom, tx[idx], ty[idx]))
        for i in idx[ok]:
            found.append((float(tx[i]), float(ty[i])))
        if found:
            break
    if not found:
        return []
    # Refine around the best coarse translation.
    bx, by = found[0]
    fine = step / 10.0
    ox = np.arange(-10, 11) * fine
    fx, fy = np.meshgrid(bx + ox, by + ox)
    fx, fy = fx.ravel(), fy.ravel()
    order = np.argsort(np.hypot(fx, fy))
    refined: list[tuple[float, float]] = []
    for i in order:
        if math.hypot(fx[i], fy[i]) > math.hypot(bx, by):
            break
        g = shapely.transform(geom, lambda xy, a=fx[i], b=fy[i]: xy + (a, b))
        if shapely.contains(env, g):
            refined.append((float(fx[i]), float(fy[i])))
            if len(refined) >= 3:
                break
    return (refined + found)[:limit]


def suggest_moves(inputs: SiteInputs, pack: RulePack, result: CheckResult, *, cell_ft: float = DEFAULT_CELL_FT) -> list[dict[str, Any]]:
    """Nearest compliant position for each device with a setback violation in ``result``.

    Returns
    -------
    list of dict
        One entry per violating device: ``device`` {layer, id}, ``device_type``,
        ``high_traffic``, ``rules`` (the violated rule ids), ``possible``
        (bool), and when possible ``from`` and ``to`` (working-CRS x, y of the
        point or centroid), ``distance_ft``, ``bearing_deg`` (clockwise from
        grid north), ``method``, ``verified``; else ``reason``. ``message``
        says it in words.
    """
    with np.errstate(invalid="ignore"):
        return _suggest(inputs, pack, result, cell_ft)


def _suggest(inputs: SiteInputs, pack: RulePack, result: CheckResult, cell_ft: float) -> list[dict[str, Any]]:
    violating: dict[str, list[str]] = {}
    for f in result.findings:
        if f.kind == "device_setback" and f.status is Status.VIOLATION and f.subject is not None and f.subject.layer == "devices":
            violating.setdefault(f.subject.id, [])
            if f.rule_id not in violating[f.subject.id]:
                violating[f.subject.id].append(f.rule_id)
    if not violating or "devices" not in inputs.layers:
        return []
    devices = clean_layer(inputs.layers["devices"], [])
    u = inputs.unit_to_ft
    cache: dict[Any, SitingEnvelope | str] = {}
    moves: list[dict[str, Any]] = []
    for i in range(len(devices)):
        dev_id = devices.ids[i]
        if dev_id not in violating:
            continue
        attrs = devices.attrs[i]
        geom = devices.geoms[i]
        dtype = str(attrs.get("device_type") or "other").strip().lower()
        ht = truthy(attrs.get("high_traffic"))
        entry: dict[str, Any] = {
            "device": {"layer": "devices", "id": dev_id},
            "device_type": dtype,
            "high_traffic": ht,
            "rules": violating[dev_id],
            "geometry_type": geom.geom_type,
        }
        try:
            sel = applicable_rules(pack, result.project_class, normalise_device_type(dtype), ht)
            key: Any = tuple(r.id for r in sel["setback"] + sel["no_cut"])
        except SitingError:
            key = (dtype, ht)
        if key not in cache:
            try:
                cache[key] = build_envelope(inputs, pack, device_type=dtype, high_traffic=ht, project_class=result.project_class, cell_ft=cell_ft)
            except (SitingError, LookupError) as exc:
                cache[key] = str(exc)
        env = cache[key]
        if isinstance(env, str):
            moves.append({**entry, "possible": False, "reason": env, "message": f"Device {dev_id}: no move suggested ({env})."})
            continue
        point = geom.geom_type == "Point"
        if point:
            method = "nearest point of the siting envelope for this device type and traffic class"
            cands = [(p, (p.x - geom.x, p.y - geom.y)) for p in _nearest_inside(env.envelope, geom, u, MAX_TRIES)]
            origin = geom
        else:
            method = "rigid translation of the footprint (no rotation) into the siting envelope; positions are the centroid's"
            origin = geom.centroid
            step = env.cell_ft / u
            cands = []
            for dx, dy in _translations(env.envelope, geom, step, MAX_TRIES):
                cands.append((Point(origin.x + dx, origin.y + dy), (dx, dy)))
        chosen = None
        tried = 0
        for pos, (dx, dy) in cands:
            tried += 1
            moved = pos if point else shapely.transform(geom, lambda xy, a=dx, b=dy: xy + (a, b))
            ok, _bad = _verify(inputs, pack, result.project_class, moved, attrs, dev_id)
            if ok:
                chosen = (pos, dx, dy)
                break
        if chosen is None:
            why = (
                "the siting envelope for this device type is empty"
                if env.envelope.is_empty
                else "no position on the site parcel satisfies every setback rule for this device"
                if not cands
                else f"none of the {tried} nearest candidate positions passed the setback rules"
            )
            moves.append({**entry, "possible": False, "reason": why, "method": method, "message": f"Device {dev_id}: no compliant position found on the site parcel ({why})."})
            continue
        pos, dx, dy = chosen
        dist = math.hypot(dx, dy) * u
        b = bearing_deg(dx, dy)
        moves.append(
            {
                **entry,
                "possible": True,
                "from": [round(float(origin.x), 3), round(float(origin.y), 3)],
                "to": [round(float(pos.x), 3), round(float(pos.y), 3)],
                "distance_ft": round(dist, 2),
                "bearing_deg": round(b, 1),
                "method": method,
                "verified": True,
                "envelope_cell_ft": round(env.cell_ft, 3),
                "message": f"Move device {dev_id} {dist:.1f} ft toward {b:.0f}° ({_compass(b)}) to clear {', '.join(violating[dev_id])}.",
            }
        )
    return moves


__all__ = ["suggest_moves", "bearing_deg"]
