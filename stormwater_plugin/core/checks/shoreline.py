"""Rule kind ``shoreline_no_cut_buffer``: no vegetation removal within a strip inland of the mean high-water mark.

Parameters
----------
width_ft : float
    Width of the strip, in feet, measured inland from every point of the
    shoreline (mean high-water line).
removal_roles : list of str
    The roles whose proposed features remove vegetation: ``clearing``,
    ``disturbance``, ``impervious`` (``status`` proposed or removed; existing
    surfaces are not new work), ``devices`` and ``building_sites`` (proposed by
    the layer contract). Everything proposed inside the strip removes
    vegetation (§148-11I(2)(h)[1]: "no vegetation may be removed ... an
    undisturbed natural buffer strip").
exception_note : str, optional
    Appended to each violation (the lake-access opening of (h)[2]).

The decision is exact: a feature violates when its edge-to-edge distance to
the shoreline is under ``width_ft``. The finding's geometry is the
encroaching area (the feature inside the strip, water excluded), built from
a buffer that lies within 0.01 ft of the true offset curve; its area is
reported in square feet. A device or building site drawn as a point or a
line has no drawn footprint: it violates by its distance, its encroaching
area is reported as unknown (``None``) and the geometry is the distance line.
An impervious feature of unknown status inside the strip is undetermined.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import shapely
from shapely.geometry.base import BaseGeometry

from ..derived import derive, derive_each
from ..geometry import DISTANCE_EPS_FT, area_sqft, display_buffer, feet_text, nearest_feature, union
from ..geometry_arrays import geom_type
from ..kinds import distance_words
from ..limits import compare
from ..model import DisplayZone, FeatureLayer, FeatureRef, Status, Warning_
from ..roles import PLAN_OBJECT_ROLES
from ..rulepack import Rule
from ..vocabulary import read
from .affected import building_left_out, impervious_status
from .context import CheckContext, no_features_words


def _unknown_removal(ctx: CheckContext, rule: Rule, roles: list[str], width: float, message: str) -> None:
    """An undetermined finding (and a not-checked entry) for vegetation removal whose layers are absent."""
    ctx.add(rule, Status.UNDETERMINED, message, required_ft=width)
    ctx.skip(rule, f"no {' or '.join(roles)} layer")


def check_no_cut_buffer(ctx: CheckContext, rule: Rule) -> None:
    width = float(rule.params["width_ft"])
    shoreline = ctx.layer("shoreline")
    if shoreline is None or len(shoreline) == 0:
        why = no_features_words(shoreline, "shoreline (mean high-water line)" if shoreline is None else "shoreline")
        ctx.add(rule, Status.UNDETERMINED, f"{why}, so the {width:g} ft no-cut buffer could not be drawn or checked.", required_ft=width)
        ctx.skip(rule, "no shoreline features")
        return
    strip = no_cut_strip(ctx, shoreline, width)
    ctx.zones.append(DisplayZone("no_cut_buffer", rule.id, f"{width:g} ft no-cut buffer {rule.citation.text}", width, strip))
    roles = list(rule.params.get("removal_roles", ["clearing"]))
    supplied = [r for r in roles if ctx.layer(r) is not None]
    if not supplied:
        _unknown_removal(ctx, rule, roles, width,
                         f"No {' or '.join(roles)} layer was supplied: vegetation removal within {width:g} ft of the mean high-water mark could not be checked.")
        return
    area_roles = [r for r in ("clearing", "disturbance") if r in roles]
    if area_roles and not any(ctx.layer(r) is not None for r in area_roles):
        _unknown_removal(ctx, rule, area_roles, width,
                         f"No {' or '.join(area_roles)} layer: vegetation removal other than the mapped {', '.join(supplied)} within {width:g} ft "
                         "of the mean high-water mark is unknown.")
    opening_uses = frozenset(str(u) for u in rule.params.get("opening_uses", ()))
    for role in ("clearing", "disturbance"):
        ctx.layer(role)  # the opening marks: the rule reads both layers, whatever its removal roles
    opening_rule = str(rule.params.get("opening_rule", ""))
    surfaces = removed_surfaces(ctx) if "impervious" in roles else []
    _report_removed_surfaces(ctx, rule, shoreline, strip, surfaces, width)
    layers = [(role, layer) for role in roles for layer in [ctx.layer(role)] if layer is not None]
    tree = _Lazy(lambda: shapely.STRtree(shoreline.geoms))
    shore_refs = _Lazy(lambda: [shoreline.ref(j) for j in range(len(shoreline))])
    # Disturbance and impervious areas are reported where they go beyond the mapped clearing;
    # where a clearing polygon already covers them, its finding speaks for both.
    first = roles[0]
    firsts = [(role, layer) for role, layer in layers if layer.role == first]
    cleared = derive("removal union", lambda: union([g for role, layer in firsts for g, _, _ in removal_items(role, layer)]), firsts)
    words = str(distance_words(rule.kind, rule.params))
    note = str(rule.params["exception_note"]) if rule.params.get("exception_note") else ""
    # Each item's finding depends on the item (its geometry, id, whether its status is known, its opening mark) and on
    # what every item shares: kept by content, each layer's together (an unedited layer's findings are one look-up) and
    # each item's within it (only an edited item's is made again).
    shared = (shoreline, strip, cleared, first, width, words, note, opening_rule, ctx.unit_to_ft)
    judged = derive_each("no-cut buffer removals of a layer", partial(_layers_judged, tree, shore_refs, shared, opening_uses), layers, opening_uses, *shared)
    if not any(n for n, _ in judged):
        if not surfaces:
            ctx.skip(rule, f"no vegetation removal proposed ({', '.join(supplied)} empty or existing only)")
        return
    for _, findings in judged:
        for one in findings:
            ctx.add_judged(rule, one)  # a judgement kept from the last check gives the same finding object


def _layers_judged(tree: _Lazy, shore_refs: _Lazy, shared: tuple[Any, ...], uses: frozenset[str],
                   layers: list[tuple[str, FeatureLayer]]) -> list[tuple[int, tuple[_Judged, ...]]]:
    """Of each ``(role, layer)``: how many removal items it holds and their findings, each item's kept by its own content
    (:func:`_removals_judged`); a clearing's or disturbance's ``use`` among ``uses`` marks the (h)[2] opening."""
    out: list[tuple[int, tuple[_Judged, ...]]] = []
    for role, layer in layers:
        items = removal_items(role, layer)
        if not items:
            out.append((0, ()))
            continue
        marked = dict(_marks(role, layer, uses)) if role in ("clearing", "disturbance") and uses else {}
        keyed = [(g, ref.layer, ref.id, known, marked.get((ref.layer, ref.id))) for g, ref, known in items]
        made = derive_each("no-cut buffer removal", partial(_removals_judged, tree, shore_refs, *shared), keyed, *shared)
        out.append((len(items), tuple(x for x in made if x is not None)))
    return out


_Judged = tuple[Status, str, dict[str, Any]]


def _removals_judged(tree: _Lazy, shore_refs: _Lazy, shoreline: FeatureLayer, strip: Any, cleared: BaseGeometry, first: str,
                     width: float, words: str, note: str, opening_rule: str, unit_to_ft: float,
                     items: list[tuple[BaseGeometry, str, str, bool, str | None]]) -> list[_Judged | None]:
    """The no-cut buffer's finding of each removal item (``None``: none), as ``(status, message, the finding's fields)``."""
    return [_removal_judged(tree, shore_refs, shoreline, strip, cleared, first, width, words, note, opening_rule, unit_to_ft, *item) for item in items]


def _removal_judged(tree: _Lazy, shore_refs: _Lazy, shoreline: FeatureLayer, strip: Any, cleared: BaseGeometry, first: str,
                    width: float, words: str, note: str, opening_rule: str, unit_to_ft: float,
                    g: BaseGeometry, layer: str, fid: str, known: bool, marked: str | None) -> _Judged | None:
    ref = FeatureRef(layer, fid)
    polygonal = geom_type(g) in ("Polygon", "MultiPolygon")
    if ref.layer != first and ref.layer not in PLAN_OBJECT_ROLES and not cleared.is_empty and shapely.intersects(g, strip):
        rest = shapely.difference(shapely.intersection(g, strip), cleared)
        if area_sqft(rest, unit_to_ft) < 1.0:
            return None
    j, d, line = derive("nearest shoreline", partial(_nearest, tree, shoreline, shore_refs, g, DISTANCE_EPS_FT / unit_to_ft), shoreline, g, unit_to_ft)
    d_ft = d * unit_to_ft
    other = shoreline.ref(j)
    # "Within 35 feet ... no vegetation may be removed" (the rule's words, default "within"), decided at 0.01 ft (core.limits).
    if not compare(d_ft, width, "distance_ft", words):
        return (Status.PASS, f"{ref.noun} is {feet_text(d_ft, width)} ft from the mean high-water mark (buffer {width:g} ft).",
                dict(subject=ref, other=other, measured_ft=d_ft, required_ft=width, geometry=line))
    if polygonal:
        inside = shapely.intersection(g, strip)
        area: float | None = area_sqft(inside, unit_to_ft)
        geom = inside if area else line
        amount = f"{area:,.1f} sq ft encroach"
    else:
        area, geom = None, line
        amount = f"drawn as a {g.geom_type.lower()}, its footprint is not drawn, so the encroaching area is not measured"
    common = dict(subject=ref, other=other, measured_ft=d_ft, required_ft=width, geometry=geom, encroaching_area_sqft=area)
    if marked is not None:
        # (h)[2] allows "a continuous clear-cut opening" for lake access and beaches: a feature the plan marks as that
        # opening is decided by the 20% finding, not reported again as a (h)[1] removal.
        return (Status.ADVISORY,
                f"{ref.noun} is marked as the lake-access or beach opening ({ref.layer}.use = {marked}), "
                f"{d_ft:.1f} ft from the mean high-water mark ({amount}): (h)[2] allows that opening within the {width:g} ft strip, "
                f"so it is not a (h)[1] violation; the clear-cut opening finding ({opening_rule or 'of (h)[2]'}) decides it.",
                dict(common, decided_by=opening_rule or None))
    if not known:
        return (Status.UNDETERMINED,
                f"{ref.noun} lies {feet_text(d_ft, width)} ft from the mean high-water mark, inside the {width:g} ft no-cut buffer ({amount}), but its status is not "
                "existing, proposed or removed: if it is new work it removes vegetation. Set impervious.status.",
                common)
    return (Status.VIOLATION,
            f"{ref.noun} removes vegetation {feet_text(d_ft, width)} ft from the mean high-water mark, inside the {width:g} ft no-cut buffer: {amount}."
            + (f" {note}" if note else ""),
            common)


class _Lazy:
    """A value (a search tree, the shoreline's references) made when first asked for (every item's nearest shoreline may be the last check's)."""

    def __init__(self, make: Any) -> None:
        self._make, self._made = make, None

    def __call__(self) -> Any:
        if self._made is None:
            self._made = self._make()
        return self._made


def _nearest(tree: _Lazy, shoreline: FeatureLayer, refs: _Lazy, g: BaseGeometry, eps: float) -> tuple[int, float, BaseGeometry]:
    """(index of the shoreline feature nearest ``g``, the distance in working units, the shortest line to it)."""
    j = 0 if len(shoreline) == 1 else nearest_feature(tree(), shoreline.geoms, refs(), g, eps)  # one feature: the nearest, no search
    return j, float(shapely.distance(g, shoreline.geoms[j])), shapely.shortest_line(g, shoreline.geoms[j])


def shore_union(shoreline: FeatureLayer) -> BaseGeometry:
    """The union of the shoreline layer's features, kept by the layer's content."""
    return derive("shore union", lambda: union(shoreline.geoms), shoreline)


def no_cut_strip(ctx: CheckContext, shoreline: FeatureLayer, width: float) -> Any:
    """The strip within ``width`` ft of the shoreline, water bodies taken out (display and areas only); kept by the layers' content."""
    water = ctx.layer("waterbodies")
    return derive("no-cut strip", lambda: _strip(shore_union(shoreline), water, ctx.to_units(width), width), shoreline, water, width, ctx.unit_to_ft)


def _strip(shore: Any, water: FeatureLayer | None, units: float, width: float) -> Any:
    strip = display_buffer(shore, units, width)
    if water is not None and len(water):
        strip = shapely.difference(strip, union(water.geoms))
    return strip


def _marks(role: str, layer: FeatureLayer, uses: frozenset[str]) -> tuple[tuple[tuple[str, str], str], ...]:
    """``((role, id), use)`` of each feature of a clearing or disturbance layer whose ``use`` marks it as the (h)[2] opening."""
    out: list[tuple[tuple[str, str], str]] = []
    for i in range(len(layer)):
        r = read(layer.attrs[i], role, "use")
        if r.known and str(r.value) in uses:
            out.append(((role, layer.ids[i]), str(r.value)))
    return tuple(out)


def removed_surfaces(ctx: CheckContext) -> list[tuple[Any, FeatureRef]]:
    """Impervious features marked ``removed``: taking out a surface is work on the ground, not vegetation removal."""
    layer = ctx.layer("impervious")
    if layer is None:
        return []
    return list(derive("removed surfaces", partial(_removed_surfaces, layer), layer))


def _removed_surfaces(layer: FeatureLayer) -> tuple[tuple[Any, FeatureRef], ...]:
    return tuple((layer.geoms[i], layer.ref(i)) for i in range(len(layer)) if impervious_status(layer.attrs[i]) == "removed")


def _report_removed_surfaces(ctx: CheckContext, rule: Rule, shoreline: FeatureLayer, strip: Any, surfaces: list[tuple[Any, FeatureRef]], width: float) -> None:
    """An advisory for each removed surface inside the strip: work in the buffer strip, never a vegetation violation.

    A slab or paving taken out removes no vegetation (there is none under it), so "no vegetation may be removed" does
    not forbid it; the strip "shall be maintained as an undisturbed natural buffer strip", so the work of taking it out
    is shown to the reviewer. Its area counts as pre-development impervious area for the half-inch retrofit.
    Kept by content (the surfaces, the shoreline, the strip, the width and words, the unit).
    """
    if not surfaces:
        return
    words = str(distance_words(rule.kind, rule.params))
    geoms = [g for g, _ in surfaces]
    where = tuple((ref.layer, ref.id) for _, ref in surfaces)
    judged = derive("removed surfaces in the strip", partial(_removed_surfaces_judged, shoreline, strip, surfaces, width, words, ctx.unit_to_ft),
                    geoms, where, shoreline, strip, width, words, ctx.unit_to_ft)
    for one in judged:
        ctx.add_judged(rule, one)


def _removed_surfaces_judged(shoreline: FeatureLayer, strip: Any, surfaces: list[tuple[Any, FeatureRef]], width: float, words: str,
                             unit_to_ft: float) -> tuple[_Judged, ...]:
    tree = shapely.STRtree(shoreline.geoms)
    shore_refs = [shoreline.ref(j) for j in range(len(shoreline))]
    out: list[_Judged] = []
    for g, ref in surfaces:
        j = nearest_feature(tree, shoreline.geoms, shore_refs, g, DISTANCE_EPS_FT / unit_to_ft)
        d_ft = float(shapely.distance(g, shoreline.geoms[j])) * unit_to_ft
        if not compare(d_ft, width, "distance_ft", words):  # as clearing is read
            continue
        inside = shapely.intersection(g, strip) if g.geom_type in ("Polygon", "MultiPolygon") else shapely.GeometryCollection()
        area = area_sqft(inside, unit_to_ft) if not inside.is_empty else None
        amount = f"{area:,.1f} sq ft inside the strip" if area else "its area inside the strip is not measured"
        out.append((
            Status.ADVISORY,
            f"{ref.noun} is marked removed, {d_ft:.1f} ft from the mean high-water mark ({amount}): taking out an impervious surface "
            f"removes no vegetation, so it is not a (h)[1] violation, but it is work in the {width:g} ft strip, which 'shall be maintained "
            "as an undisturbed natural buffer strip': the reviewer decides how the work and the restored ground are treated. "
            "Its area counts as pre-development impervious area for the first half inch (previously developed).",
            dict(subject=ref, other=shoreline.ref(j), measured_ft=d_ft, required_ft=width,
                 geometry=inside if area else shapely.shortest_line(g, shoreline.geoms[j]), encroaching_area_sqft=area, buffer_work="removed_surface"),
        ))
    return tuple(out)


def removals(ctx: CheckContext, roles: list[str]) -> list[tuple[Any, FeatureRef, bool]]:
    """Proposed features that remove vegetation, with whether that is known (:func:`removal_items` of each role's layer)."""
    out: list[tuple[Any, FeatureRef, bool]] = []
    for role in roles:
        layer = ctx.layer(role)
        if layer is not None:
            out.extend(removal_items(role, layer))
    return out


def removal_items(role: str, layer: FeatureLayer) -> tuple[tuple[Any, FeatureRef, bool], ...]:
    """The features of ``layer`` (read as ``role``) that remove vegetation, with whether that is known; kept by content.

    Impervious features: ``existing`` ones are left out (not new work), and so
    are ``removed`` ones (taking out a surface removes no vegetation; see
    :func:`removed_surfaces`); ``proposed`` ones remove vegetation; an unknown
    status is returned with ``False`` (it may be new work). A building site
    marked ``existing`` (not enlarged) is no work and is left out.
    """
    return derive("removal items", partial(_removal_items, role, layer), role, layer)  # type: ignore[no-any-return]


def _removal_items(role: str, layer: FeatureLayer) -> tuple[tuple[Any, FeatureRef, bool], ...]:
    out: list[tuple[Any, FeatureRef, bool]] = []
    for i in range(len(layer)):
        known = True
        if role == "impervious":
            s = impervious_status(layer.attrs[i])
            if s in ("existing", "removed"):
                continue
            known = s != ""
        elif role == "building_sites" and building_left_out(layer.attrs[i]):
            continue
        out.append((layer.geoms[i], layer.ref(i), known))
    return tuple(out)


def shoreline_as_lines(layer: FeatureLayer, warnings: list[Warning_]) -> FeatureLayer:
    """The ``shoreline`` layer with every polygon (a lake drawn as an area) replaced by its outline.

    The mean high-water line is a line; a lake polygon given in its place is
    read as its boundary (outer and inner rings), once, where the engine
    prepares the layers, so that every rule, the siting envelope and the
    report see lines. Lines and points are kept as drawn. A warning names the
    features read so.
    """
    geoms: list[BaseGeometry] = []
    changed: list[str] = []
    for g, fid in zip(layer.geoms, layer.ids):
        parts = list(shapely.get_parts(g))
        if not any(p.geom_type == "Polygon" for p in parts):
            geoms.append(g)
            continue
        changed.append(fid)
        lines = [shapely.boundary(p) if p.geom_type == "Polygon" else p for p in parts]
        geoms.append(shapely.line_merge(shapely.union_all(lines)) if all(p.geom_type != "Point" for p in lines) else shapely.union_all(lines))
    if not changed:
        return layer
    warnings.append(Warning_(
        "shoreline_polygon",
        f"{len(changed)} shoreline feature(s) are drawn as areas (a lake polygon): their outline is read as the mean high-water line",
        layer.role, tuple(changed)))
    return FeatureLayer.from_sequences(layer.role, geoms, layer.ids, layer.attrs, no_geometry=layer.no_geometry)
