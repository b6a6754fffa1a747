"""How far a device that violates a setback must move: ``search_moves(inputs, pack, result, verify)``.

For each device with a ``device_setback`` violation in ``result``:

* a **point** device goes to the nearest point of the siting envelope built
  for its device type and traffic class (:func:`.envelope.build_envelope`),
  nudged 0.01 ft inside it;
* a **line or polygon** device is translated rigidly (no rotation): the
  smallest translation, on a grid of the envelope's cell refined tenfold
  around the best candidate, that puts the whole footprint inside the
  envelope. The reported position is the new centroid and the distance is
  the length of the translation.

The search is local: the envelope is drawn only in a square around the
device whose half-side is the largest distance of the rules that shape it
(plus the device's own extent and a margin), without the slope zones. A
position closer to the device than the square's edge (less the device's
extent) is the nearest of the whole envelope, since every closer position lies
in the square; when the nearest one found is farther, the square grows
(threefold) until it holds the whole parcel.

Every suggestion is verified by the ``verify`` callable
(:func:`stormwater_plugin.services.moves.suggest_moves` re-runs the device's
setback rules, ``run_check`` on the moved device alone: the engine is called
from the service layer only); only a position with no violation and
no undetermined finding is proposed. When none exists on the parcel the entry
says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from ..accuracy import feature_accuracy
from ..checks.context import device_traffic
from ..extents import feature_extent
from ..geometry import clean_layer
from ..model import CheckResult, FeatureLayer, SiteInputs, Status
from ..rulepack import RulePack
from ..vocabulary import read
from .envelope import DEFAULT_CELL_FT, MAX_CELLS, SharedBuilds, SitingError, applicable_rules, build_envelope, normalise_device_type

#: Margin added to the local search square beyond the rules' largest distance, feet.
SEARCH_MARGIN_FT: float = 20.0
#: Growth of the search square when the nearest compliant position lies beyond it.
SEARCH_GROWTH: float = 3.0

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


#: Verifies a moved device: (its geometry, its attributes, its id) -> (no violation or undetermined finding, the rules it still fails).
Verify = Callable[[BaseGeometry, dict[str, Any], str], tuple[bool, list[str]]]


def _nearest_inside(env: BaseGeometry, pt: Point, unit_to_ft: float, limit: int) -> Iterator[Point]:
    """Candidate points of ``env`` nearest to ``pt``: the nearest boundary point nudged inside, then a widening search.

    A generator: the fallbacks (for a failed verification) are only computed when asked for.
    """
    if env.is_empty:
        return
    if shapely.contains(env, pt):
        yield pt
        return
    near = nearest_points(env, pt)[0]
    nudge = NUDGE_FT / unit_to_ft
    dx, dy = near.x - pt.x, near.y - pt.y
    n = math.hypot(dx, dy) or 1.0
    count = 0
    for k in (1, 2, 5, 10, 20):
        c = Point(near.x + dx / n * nudge * k, near.y + dy / n * nudge * k)
        if shapely.contains(env, c):
            count += 1
            yield c
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
                count += 1
                yield Point(cx[j], cy[j])
                break
    # Fallbacks: points of the envelope's interior by increasing distance (for a failed verification).
    if count < limit:
        inner = shapely.buffer(env, -5 * nudge)
        b = shapely.get_coordinates(shapely.segmentize(inner.boundary, 0.5 / unit_to_ft)) if not inner.is_empty else np.zeros((0, 2))
        if len(b):
            order = np.argsort(np.hypot(b[:, 0] - pt.x, b[:, 1] - pt.y))
            step = max(1, len(order) // (limit * 4))
            for j in order[: (limit - count) * step : step]:
                yield Point(b[j, 0], b[j, 1])


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


def search_moves(inputs: SiteInputs, pack: RulePack, result: CheckResult, verify: Verify, *, cell_ft: float = DEFAULT_CELL_FT) -> list[dict[str, Any]]:
    """Nearest compliant position for each device with a setback violation in ``result``, each candidate checked by ``verify``.

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
        return _suggest(inputs, pack, result, cell_ft, verify)


def _extent(geom: BaseGeometry, origin: Point) -> float:
    """Largest distance from ``origin`` to a vertex of ``geom`` (working units; 0 for a point)."""
    if geom.geom_type == "Point":
        return 0.0
    c = shapely.get_coordinates(geom)
    return float(np.max(np.hypot(c[:, 0] - origin.x, c[:, 1] - origin.y))) if len(c) else 0.0


def _rule_key(sel: dict[str, list[Any]]) -> tuple[str, ...]:
    return tuple(r.id for r in sel["setback"] + sel["no_cut"])


def _device_reach(geom: BaseGeometry, attrs: dict[str, Any]) -> float:
    """How far a device drawn as a point may plausibly reach beyond it (feet; ``inf`` when unbounded, 0 when drawn as an area)."""
    return feature_extent("devices", geom, attrs).half_max_ft if geom.geom_type == "Point" else 0.0


def _first_half(sel: dict[str, list[Any]], geom: BaseGeometry, u: float, reach_dev_ft: float = 0.0) -> tuple[Point, float, float]:
    """Origin, extent (with a point's plausible reach) and half-side (working units) of a device's first search square."""
    reach_ft = max([float(r.params["required_ft"]) for r in sel["setback"]] + [float(r.params["width_ft"]) for r in sel["no_cut"]] + [0.0])
    origin = geom if geom.geom_type == "Point" else geom.centroid
    ext = _extent(geom, origin) + (reach_dev_ft / u if math.isfinite(reach_dev_ft) else 0.0)
    return origin, ext, (reach_ft + SEARCH_MARGIN_FT) / u + ext


def _accuracy_margin(inputs: SiteInputs, sel: dict[str, list[Any]], attrs: dict[str, Any]) -> float:
    """Feet a position must clear its limits by for the check to call it a pass under the stated accuracies.

    The largest combined accuracy (``sqrt(a**2 + b**2)``, :mod:`~stormwater_plugin.core.accuracy`) of the device and a
    feature of a role its setback rules measure from; 0 when none is stated. The search keeps that far inside the
    envelope, so the nearest candidate is one the verifier (the review's own inputs) can pass.
    """
    a_dev = feature_accuracy(attrs, inputs.accuracy_ft.get("devices"))[0] or 0.0
    roles = {str(t["role"]) for r in sel["setback"] for t in r.params.get("targets", []) if isinstance(t, dict) and t.get("role")}
    a_target = 0.0
    for role in roles:
        layer = inputs.layers.get(role)
        if layer is not None:
            a_target = max([a_target] + [feature_accuracy(a, inputs.accuracy_ft.get(role))[0] or 0.0 for a in layer.attrs])
    return math.hypot(a_dev, a_target)


def _shared_windows(devices: FeatureLayer, violating: dict[str, list[str]], pack: RulePack, project_class: str, u: float) -> dict[tuple[str, ...], BaseGeometry]:
    """The union of the first search squares of the violating devices shaped by the same rules, for rule sets of two devices or more.

    The zones of a rule do not depend on the device: one envelope drawn over
    the union serves every device whose square it holds.
    """
    squares: dict[tuple[str, ...], list[BaseGeometry]] = {}
    for i in range(len(devices)):
        if devices.ids[i] not in violating:
            continue
        attrs = devices.attrs[i]
        traffic = device_traffic(attrs)
        ht = True if traffic["high_traffic"] is True else False if traffic["high_traffic"] is False and traffic["vehicle_traffic"] is False else None
        try:
            sel = applicable_rules(pack, project_class, normalise_device_type(str(attrs.get("device_type") or "other").strip().lower()), ht)
        except SitingError:
            continue
        origin, _ext, half = _first_half(sel, devices.geoms[i], u, _device_reach(devices.geoms[i], attrs))
        squares.setdefault(_rule_key(sel), []).append(shapely.box(origin.x - half, origin.y - half, origin.x + half, origin.y + half))
    return {k: shapely.union_all(np.array(v, dtype=object)) for k, v in squares.items() if len(v) > 1}


def _covering(drawn: list[tuple[BaseGeometry, Any]], window: BaseGeometry) -> Any:
    """An envelope already drawn over an area holding ``window``, or None."""
    for area, env in drawn:
        if shapely.contains(area, window):
            return env
    return None


def _fine_enough(area: BaseGeometry, site: BaseGeometry, cell_ft: float, u: float) -> bool:
    """Whether an envelope drawn over ``area`` keeps the grid cell ``cell_ft`` (a larger area may coarsen it)."""
    part = shapely.intersection(site, area)
    if part.is_empty:
        return True
    minx, miny, maxx, maxy = part.bounds
    h = cell_ft / u
    return (maxx - minx) * (maxy - miny) / (h * h) <= MAX_CELLS


def _suggest(inputs: SiteInputs, pack: RulePack, result: CheckResult, cell_ft: float, verify: Verify) -> list[dict[str, Any]]:
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
    site: BaseGeometry | str | None = None
    moves: list[dict[str, Any]] = []
    whole_site: dict[tuple[str, ...], Any] = {}  # envelopes of the whole parcel, by the rules that shape them
    shared = _shared_windows(devices, violating, pack, result.project_class, u)
    drawn: dict[tuple[str, ...], list[tuple[BaseGeometry, Any]]] = {}  # envelopes drawn over the shared windows, by rules
    builds = SharedBuilds()  # one prepared setting, and each gradient rule's zones drawn once per grid
    for i in range(len(devices)):
        dev_id = devices.ids[i]
        if dev_id not in violating:
            continue
        attrs = devices.attrs[i]
        geom = devices.geoms[i]
        tr = read(attrs, "devices", "device_type")
        dtype = str(tr.value) if tr.known else str(tr.raw if tr.raw is not None else "")
        # The envelope has one traffic flag; a device that serves vehicle areas without being a high-traffic
        # area (a driveway) takes the rules of both classes (None), a superset: never a move into a zone.
        traffic = device_traffic(attrs)
        ht = True if traffic["high_traffic"] is True else False if traffic["high_traffic"] is False and traffic["vehicle_traffic"] is False else None
        entry: dict[str, Any] = {
            "device": {"layer": "devices", "id": dev_id},
            "device_type": dtype,
            "high_traffic": ht,
            "rules": violating[dev_id],
            "geometry_type": geom.geom_type,
        }
        try:
            sel = applicable_rules(pack, result.project_class, normalise_device_type(dtype), ht)
        except SitingError as exc:
            moves.append({**entry, "possible": False, "reason": str(exc), "message": f"Device {dev_id}: no move suggested ({exc})."})
            continue
        if site is None:
            try:
                site = builds.prepare(inputs, pack, result.project_class).site
            except (SitingError, LookupError) as exc:
                site = str(exc)
        if isinstance(site, str):
            moves.append({**entry, "possible": False, "reason": site, "message": f"Device {dev_id}: no move suggested ({site})."})
            continue
        point = geom.geom_type == "Point"
        # A device drawn as a point reaches its plausible extent beyond it (core/extents.py): its centre goes that far inside the
        # envelope, so the check on the moved point decides. A kind with no bound cannot be placed until it is drawn.
        reach_dev = _device_reach(geom, attrs)
        if not math.isfinite(reach_dev):
            why = "the device is drawn as a point and its kind has no plausible size: draw it as a polygon"
            moves.append({**entry, "possible": False, "reason": why, "message": f"Device {dev_id}: no move suggested ({why})."})
            continue
        margin = _accuracy_margin(inputs, sel, attrs)
        origin, ext, half = _first_half(sel, geom, u, reach_dev + margin)
        if point:
            method = "nearest point of the siting envelope for this device type and traffic class"
        else:
            method = "rigid translation of the footprint (no rotation) into the siting envelope; positions are the centroid's"
        chosen = None
        tried = 0
        env_empty = True
        env_cell = cell_ft
        while True:
            window = shapely.box(origin.x - half, origin.y - half, origin.x + half, origin.y + half)
            whole = bool(shapely.contains(window, site))
            # a window holding the whole parcel draws the same envelope for every device shaped by the same rules
            key = _rule_key(sel)
            env = whole_site.get(key) if whole else None
            if env is None and not whole:
                env = _covering(drawn.get(key, []), window)
                if env is None and key in shared and shapely.contains(shared[key], window) and _fine_enough(shared[key], site, cell_ft, u):
                    # one envelope over the first windows of every device shaped by the same rules: drawn once for all of them
                    env = build_envelope(inputs, pack, device_type=dtype, high_traffic=ht, project_class=result.project_class, cell_ft=cell_ft,
                                         design_zones=False, within=shared[key], shared=builds)
                    drawn.setdefault(key, []).append((shared[key], env))
            if env is None:
                env = build_envelope(inputs, pack, device_type=dtype, high_traffic=ht, project_class=result.project_class, cell_ft=cell_ft, design_zones=False, within=window, shared=builds)
                if whole:
                    whole_site[key] = env
            env_cell = env.cell_ft
            env_empty = env_empty and env.envelope.is_empty
            sure = half - ext  # a displacement up to this keeps the device in the window: the nearest of the whole envelope
            beyond = False
            if point:
                room = shapely.buffer(env.envelope, -(reach_dev + margin) / u) if reach_dev + margin > 0 else env.envelope
                cands: Iterator[tuple[Point, tuple[float, float]]] = ((p, (p.x - geom.x, p.y - geom.y)) for p in _nearest_inside(room, geom, u, MAX_TRIES))
            else:
                step = env.cell_ft / u
                room = shapely.buffer(env.envelope, -margin / u) if margin > 0 else env.envelope
                cands = ((Point(origin.x + dx, origin.y + dy), (dx, dy)) for dx, dy in _translations(room, geom, step, MAX_TRIES))
            for pos, (dx, dy) in cands:
                if not whole and math.hypot(dx, dy) > sure:
                    beyond = True
                    break
                if tried >= MAX_TRIES:
                    break
                tried += 1
                moved = pos if point else shapely.transform(geom, lambda xy, a=dx, b=dy: xy + (a, b))
                ok, _bad = verify(moved, attrs, dev_id)
                if ok:
                    chosen = (pos, dx, dy)
                    break
            if chosen is not None or whole or tried >= MAX_TRIES or (tried and not beyond):
                break
            half *= SEARCH_GROWTH
        if chosen is None:
            why = (
                "the siting envelope for this device type is empty"
                if env_empty
                else "no position on the site parcel satisfies every setback rule for this device"
                if not tried
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
                "envelope_cell_ft": round(env_cell, 3),
                "message": f"Move device {dev_id} {dist:.1f} ft toward {b:.0f}° ({_compass(b)}) to clear {', '.join(violating[dev_id])}.",
            }
        )
    return moves


__all__ = ["Verify", "search_moves", "bearing_deg"]
