"""Words and colours shown to the reader, the same on the command line's map layers and in the plugin.

Labels keep the regulation's own citation for state rules ("6 NYCRR
646-4.14(a)(3)": the part number is what a reviewer files under) and shorten
town codes to their section ("§148-11I(2)(c)"), in findings.gpkg and on the
plugin's layers alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Mapping

from ..core.units import USER_Z_UNITS
from .review import Move

if TYPE_CHECKING:  # annotations only: the palette module loads no pack at import
    from ..core.rulepack import RulePack

#: Colour of each status (hex): the one palette of the QGIS map styles (and their QML files), the dock, the
#: report's tables and maps and the comment letter, so a status looks the same wherever a reviewer meets it.
STATUS_COLOURS: dict[str, str] = {
    "violation": "#d7191c",
    "advisory": "#f28e00",
    "undetermined": "#7b3294",
    "pass": "#1a9641",
}
#: How a reader names each colour of :data:`STATUS_COLOURS` (the report's map caption).
STATUS_COLOUR_NAMES: dict[str, str] = {"violation": "red", "advisory": "orange", "undetermined": "purple", "pass": "green"}
#: Colour of a finding the reviewer accepted or waived (grey on the map and in the report).
DECIDED_COLOUR = "#7f7f7f"
#: :data:`STATUS_COLOURS` with the reviewer's decisions (``accepted``, ``waived``), as the report colours an overridden finding.
STATUS_AND_DECISION_COLOURS: dict[str, str] = {**STATUS_COLOURS, "accepted": DECIDED_COLOUR, "waived": DECIDED_COLOUR}

#: Colours of the slope classes on the map, flattest first (the middle one repeats between more than two thresholds).
_SLOPE_CLASS_COLOURS = ("#1a9641", "#fdae61", "#d7191c")


def slope_classes(packs: Iterable[RulePack] | None = None) -> list[tuple[str, str, str]]:
    """The slope classes of the map's slope rays: ``(colour, title, QGIS expression on "slope_pct")``, flattest first.

    The class limits are the thresholds (percent) of every pack's
    ``building_site_slope`` rules, with each rule's comparison (``gte``: the
    limit belongs to the steep class; ``gt``: to the flatter one), so the map
    has no slope figure of its own. ``packs`` defaults to every shipped pack.
    """
    from ..core.rulepack import JURISDICTIONS, load_pack  # here: the palette module stays free of pack loading at import

    limits: dict[float, str] = {}
    for pack in packs if packs is not None else [load_pack(j) for j in JURISDICTIONS]:
        for r in pack.rules:
            if r.kind == "building_site_slope" and r.params.get("threshold_pct") is not None:
                limits.setdefault(float(r.params["threshold_pct"]), str(r.params.get("compare", "gte")))
    bounds = sorted(limits.items())
    out: list[tuple[str, str, str]] = []
    lower: tuple[float, str] | None = None
    for i, (t, cmp) in enumerate(bounds + [(float("inf"), "gte")]):
        colour = _SLOPE_CLASS_COLOURS[0] if i == 0 else _SLOPE_CLASS_COLOURS[2] if i == len(bounds) else _SLOPE_CLASS_COLOURS[1]
        lo = "" if lower is None else (f"\"slope_pct\" >= {lower[0]:g}" if lower[1] == "gte" else f"\"slope_pct\" > {lower[0]:g}")
        hi = "" if t == float("inf") else (f"\"slope_pct\" < {t:g}" if cmp == "gte" else f"\"slope_pct\" <= {t:g}")
        if lower is None:
            title = f"under {t:g}%" if cmp == "gte" else f"{t:g}% or less"
        elif t == float("inf"):
            title = f"{lower[0]:g}% or more" if lower[1] == "gte" else f"over {lower[0]:g}%"
        else:
            title = f"{'' if lower[1] == 'gte' else 'over '}{lower[0]:g}% to {'under ' if cmp == 'gte' else ''}{t:g}%"
        out.append((colour, title, " AND ".join(x for x in (lo, hi) if x)))
        lower = (t, cmp)
    return out


_COMPASS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


def compass(bearing_deg: float) -> str:
    """Eight-point compass word of a bearing, degrees clockwise from north (``270`` -> ``"W"``)."""
    return _COMPASS[int((float(bearing_deg) + 22.5) // 45) % 8]


def short_citation(text: str) -> str:
    """The citation as a label shows it: a town code from its ``§``; a state citation whole.

    ``"Town of Lake George Code §148-11I(2)(c)"`` gives ``"§148-11I(2)(c)"``;
    ``"6 NYCRR 646-4.14(a)(3)"`` stays as it is.
    """
    if "§" in text:
        return text[text.index("§"):]
    return text


def feet(x: float | None, nd: int = 1) -> str:
    """A distance in feet for a label: ``nd`` decimals without trailing zeros; ``"?"`` when unknown."""
    if x is None:
        return "?"
    return f"{x:.{nd}f}".rstrip("0").rstrip(".") if nd else f"{x:.0f}"


def finding_label(citation: str, measured_ft: float | None, required_ft: float | None, sep: str = ": ") -> str:
    """Map label of a finding: short citation, then ``measured / required ft`` when the required distance is known.

    ``sep`` joins the two (``"\\n"`` on the plugin's map, ``": "`` in findings.gpkg).
    """
    cite = short_citation(citation)
    if measured_ft is not None and required_ft is not None:
        return f"{cite}{sep}{measured_ft:.1f} / {feet(required_ft)} ft"
    if required_ft is not None:
        return f"{cite}{sep}? / {feet(required_ft)} ft"
    return cite


def device_label(device_type: str) -> str:
    """``dry_well`` as ``dry well``."""
    return str(device_type).replace("_", " ")


def move_text(move: Move | Mapping[str, object]) -> str:
    """``Move DW-1 6.0 ft toward 270° (W)``, or why no move is suggested (a :class:`~.review.Move`, or its findings.json dict)."""
    m = move if isinstance(move, Move) else Move.from_dict(move)
    if not m.possible:
        return f"{m.device_id}: no compliant position found ({m.reason or 'unknown reason'})"
    b = float(m.bearing_deg or 0.0)
    return f"Move {m.device_id} {float(m.distance_ft or 0.0):.1f} ft toward {b:.0f}° ({compass(b)})"


def move_arrow_label(move: Move) -> str:
    """The label of a move's arrow on the map: ``DW-1: 6.0 ft W``."""
    return f"{move.device_id}: {float(move.distance_ft or 0):.1f} ft {compass(float(move.bearing_deg or 0.0))}"


# --------------------------------------------------------------------------- layer schemas (QGIS-free: name, type)

#: Fields of the siting envelope layer (``str``, ``int`` or ``float``), the same in envelope.gpkg, Processing and the dock.
ENVELOPE_SCHEMA: tuple[tuple[str, type], ...] = (
    ("device_type", str),
    ("high_traffic", int),
    ("project_class", str),
    ("site_parcel", str),
    ("area_sqft", float),
    ("rules", str),
    ("not_checked", str),
)
#: Fields of the excluded-zones layer.
EXCLUDED_SCHEMA: tuple[tuple[str, type], ...] = (
    ("rule_id", str),
    ("citation", str),
    ("reason", str),
    ("required_ft", float),
    ("kind", str),
    ("target_layer", str),
    ("target_id", str),
    ("area_sqft", float),
)
#: Fields of the needs-professional-design layer.
DESIGN_SCHEMA: tuple[tuple[str, type], ...] = (
    ("rule_id", str),
    ("citation", str),
    ("reason", str),
    ("threshold_pct", float),
    ("status", str),
    ("area_sqft", float),
)


#: Words for each elevation unit a user may declare (:data:`~stormwater_plugin.core.units.USER_Z_UNITS`).
_Z_UNIT_WORDS: dict[str, str] = {"m": "metres", "ft": "feet", "us-ft": "US survey feet"}
#: The elevation-unit choice of the dock and of Processing: (label, value); ``None`` reads the file's unit, else assumes.
Z_UNIT_CHOICES: tuple[tuple[str, str | None], ...] = (
    ("From the file, else assumed", None),
    *((_Z_UNIT_WORDS[u], u) for u in USER_Z_UNITS),
)
