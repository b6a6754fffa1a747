"""The report model: everything the review report says, built once, rendered as HTML and PDF.

The model is a plain, JSON-ready dictionary. Figures are named in it
(``figures``: id, title, caption) and drawn separately by :mod:`.maps`, so the
builder needs neither matplotlib nor any QGIS class; the plugin can build the
same model from a run inside QGIS and hand it to a print layout.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Mapping, Sequence, cast

from ..__about__ import __version__
from ..core.checks.notification import owner_of
from ..core.model import CheckResult, FeatureLayer, InventoryRow, NotCheckedEntry, Status
from ..core.printable import printable_text
from ..core.roles import ROLE_NOUN
from ..core.rulepack import PackError, Rule, RulePack, load_pack, source_statement
from ..services.findings_doc import DocFinding, DocWarning, FindingsDocument, document_from_json
from ..services.presentation import STATUS_COLOUR_NAMES
from ..services.review import not_checked, rule_kinds
from .notification_csv import cleaned_warning, notification_rows
from .site_parcel import site_indices

#: Rendering order and words of the statuses, effective ones included.
STATUS_LABELS: dict[str, str] = {
    "violation": "Violation",
    "undetermined": "Undetermined",
    "advisory": "Advisory",
    "pass": "Pass",
    "accepted": "Accepted by reviewer",
    "waived": "Waived by reviewer",
}
_RANK = {s.value: s.rank for s in Status}

JURISDICTION_NAMES: dict[str, str] = {
    "lgpc": "Lake George Park Commission (6 NYCRR Part 646-4)",
    "lake-george": "Town of Lake George (Code Chapter 148)",
    "mamakating": "Town of Mamakating (Code Chapter 160)",
}


def _ft(x: Any, nd: int = 1) -> str:
    if x is None:
        return "—"
    v = float(x)
    return f"{v:.{nd}f} ft" if nd else f"{v:g} ft"


def _ref(d: Mapping[str, Any] | None) -> str:
    return f"{d['layer']} {d['id']}" if d else "—"


def _group_warnings(warnings: Sequence[DocWarning]) -> list[str]:
    """One line per distinct message; the layers it concerns listed once (13 "reprojected" lines become one)."""
    order: list[str] = []
    layers: dict[str, list[str]] = {}
    ids: dict[str, list[str]] = {}
    for w in warnings:
        msg = str(w.message)
        if msg not in layers:
            order.append(msg)
            layers[msg] = []
            ids[msg] = []
        if w.layer and w.layer not in layers[msg]:
            layers[msg].append(str(w.layer))
        ids[msg].extend(str(i) for i in w.ids)
    out = []
    for msg in order:
        text = msg[0].upper() + msg[1:] if msg else msg
        if layers[msg]:
            text = f"{', '.join(layers[msg])}: {msg}"
        if ids[msg]:
            shown = ids[msg][:12]
            text += f" ({', '.join(shown)}{', …' if len(ids[msg]) > len(shown) else ''})"
        out.append(text)
    return out


_OVERRIDE_FIELDS = ("key", "decision", "reason", "reviewer", "date", "status_when_made", "status_changed")


def _override(o: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """An override with every field present (None where the file left it out), so templates need no guards."""
    if not o:
        return None
    out = {k: o.get(k) for k in _OVERRIDE_FIELDS}
    out["status_changed"] = bool(out["status_changed"])
    return out


def _finding_row(f: DocFinding) -> dict[str, Any]:
    o = _override(f.override)
    return {
        "key": f.key,
        "subject": _ref(f.subject),
        "other": _ref(f.other),
        "measured": _ft(f.measured_ft),
        "required": _ft(f.required_ft, 0) if f.required_ft is not None else "—",
        "status": f.status,
        "status_label": STATUS_LABELS.get(f.status, f.status),
        "effective_status": f.effective_status,
        "effective_label": STATUS_LABELS.get(str(f.effective_status), f.status),
        "message": f.message,
        "override": o,
    }


def _rule_groups(findings: Sequence[DocFinding]) -> list[dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    for f in findings:
        g = groups.setdefault(
            f.rule_id,
            {
                "rule_id": f.rule_id,
                "kind": f.kind,
                "citation": f.citation,
                "excerpt": f.excerpt,
                "findings": [],
            },
        )
        g["findings"].append(_finding_row(f))
    out = list(groups.values())
    for g in out:
        g["findings"].sort(key=lambda r: (_RANK.get(r["status"], 9), r["subject"], r["other"]))
        worst = min((_RANK.get(r["status"], 9) for r in g["findings"]), default=9)
        g["worst_status"] = next((s for s, r in _RANK.items() if r == worst), "pass")
        g["counts"] = {s: sum(1 for r in g["findings"] if r["status"] == s) for s in _RANK}
    out.sort(key=lambda g: (_RANK.get(g["worst_status"], 9), g["citation"], g["rule_id"]))
    return out


def _site_parcel(layers: Mapping[str, FeatureLayer], site_ids: tuple[str, ...]) -> dict[str, str]:
    parcels = layers.get("parcels")
    site_id = "+".join(site_ids)  # as the document writes it
    idx = site_indices(parcels, site_ids)
    if parcels is None or not idx:
        return {"id": site_id or "not identified", "owner": "", "address": ""}
    owner, _mail, address = owner_of(parcels.attrs[idx[0]])
    return {"id": site_id or parcels.ids[idx[0]], "owner": owner, "address": address}


def _building_sites(doc: FindingsDocument, layers: Mapping[str, FeatureLayer]) -> list[dict[str, Any]]:
    computed: dict[str, Mapping[str, Any]] = {str(b["id"]): b for b in doc.building_sites}
    thresholds: dict[str, float] = {}
    distances: dict[str, float] = {}  # the rule's distance from the centre, feet (the pack's, via its finding)
    for f in doc.findings:
        if f.kind != "building_site_slope" or not f.subject:
            continue
        t = f.details.get("threshold_pct")
        d = f.details.get("distance_ft")
        if isinstance(t, (int, float)):
            thresholds.setdefault(str(f.subject["id"]), float(t))
        if isinstance(d, (int, float)) and d > 0:
            distances.setdefault(str(f.subject["id"]), float(d))
    ids = list(computed)
    layer = layers.get("building_sites")
    if layer is not None:
        ids += [i for i in layer.ids if i not in computed]
    out = []
    for n, bid in enumerate(ids):
        b = computed.get(bid)
        profile = [(float(a), float(s)) for a, s in (b.get("profile") or [])] if b else []
        profile = [(a, s) for a, s in profile if a == a and s == s]
        out.append(
            {
                "id": bid,
                "computed": b is not None and b.get("slope_100ft_pct") is not None,
                "slope_100ft_pct": b.get("slope_100ft_pct") if b else None,
                "azimuth_deg": b.get("azimuth_deg") if b else None,
                "status": b.get("status") if b else None,
                "message": (b.get("message") if b else "") or ("" if b else "slope not computed"),
                "profile": profile,
                "threshold_pct": thresholds.get(bid),
                "distance_ft": distances.get(bid),
                "figure": f"slope_{n}" if profile else None,
            }
        )
    return out


def _notification(doc: FindingsDocument, layers: Mapping[str, FeatureLayer]) -> dict[str, Any]:
    n: Mapping[str, Any] = doc.notification
    rows = notification_rows(n, layers.get("parcels"))
    # The radius is the pack's (the notification block carries it); without a notification rule there is none.
    radius = float(n["radius_ft"]) if n.get("radius_ft") is not None else None
    required = bool(n.get("radius_required"))
    listed_ids = sorted({p for r in rows for p in r["parcels"]})
    skipped = [r for r in doc.rules_not_checked if n.get("rule_id") and r.get("rule_id") == n.get("rule_id")]
    computed = bool(n.get("rule_id")) and not skipped
    reason = skipped[0].get("reason", "") if skipped else ("" if computed else "the rule pack has no notification rule")
    return {
        "citation": n.get("citation", ""),
        "rule_id": n.get("rule_id", ""),
        "radius_ft": radius,
        "radius_required": required,
        "scope": (
            "owners to notify: the rule pack sets no notification radius"
            if radius is None
            else f"owners of every parcel within {radius:g} ft of the site parcel"
            if required
            else f"owners of the parcels adjacent to the site parcel (the {radius:g} ft list is required for major projects only)"
        ),
        "rows": rows,
        "listed_parcels": listed_ids,
        "within_radius": list(n.get("within_500ft", []) or []),
        "adjacent": list(n.get("adjacent", []) or []),
        "missing_address": [r["owner"] or "(owner not recorded)" for r in rows if not r["mailing_address"]],
        "computed": computed,
        "not_computed_reason": reason,
    }


def _binds(f: DocFinding) -> tuple[str, ...]:
    """The classes a finding binds under when the class is open (``details.binds_if_class``); ``()`` under every class."""
    b: Any = f.details.get("binds_if_class") or ()
    return tuple(str(c) for c in b)


def _class_groups(findings: Sequence[DocFinding]) -> list[dict[str, Any]]:
    """One section per set of classes the class-dependent findings bind under: ``If the project is major``."""
    order = ("exempt", "minor", "major")
    by: dict[tuple[str, ...], list[DocFinding]] = {}
    for f in findings:
        if _binds(f):
            by.setdefault(_binds(f), []).append(f)
    keyed = sorted(by.items(), key=lambda kv: [order.index(c) if c in order else 9 for c in kv[0]])
    return [{"classes": list(k), "title": f"If the project is {' or '.join(k)}", "rule_groups": _rule_groups(v)} for k, v in keyed]


def build_report_model(
    result: CheckResult,
    layers: Mapping[str, FeatureLayer],
    unit_to_ft: float,
    *,
    doc: FindingsDocument | Mapping[str, Any],
    reviewer: str = "",
    reference: str = "",
    report_date: _dt.date | str | None = None,
    pack: RulePack | None = None,
) -> dict[str, Any]:
    """Build the report model of one check from its review: nothing is recomputed or decided here.

    Parameters
    ----------
    result : CheckResult
        The engine's result (its ``inventory``, the features the plot plan must show).
    layers : mapping of role to FeatureLayer
        The input layers in the working CRS (the site parcel's owner, the inventory's names).
    unit_to_ft : float
        Working-CRS unit in feet (unused by the model; the maps draw with it).
    doc : FindingsDocument or mapping
        The review's document (:attr:`stormwater_plugin.services.review.Review.document`): keys, decisions, stale
        decisions, comparison. A findings.json object made in this process is read into it (:func:`review_document`).
    pack : RulePack, optional
        The pack the check applied (the inventory's rules, the rules' kinds); without it, the document's jurisdiction's.
    reviewer, reference : str
        Reviewer's name and the file's reference number, for the header.
    report_date : date or str, optional
        Defaults to today.

    Returns
    -------
    dict
        JSON-ready; see the keys below (``header``, ``summary``,
        ``classification``, ``rule_groups``, ``building_sites``,
        ``inventory``, ``notification``, ``rules_not_checked``, ``warnings``,
        ``overrides``, ``figures``).
    """
    if report_date is None:
        report_date = _dt.date.today()
    date_text = report_date.isoformat() if isinstance(report_date, _dt.date) else str(report_date)
    doc = review_document(doc)
    findings = list(doc.findings)
    inv = _inventory(doc, result.inventory, layers, pack)
    notif = _notification(doc, layers)
    skipped = not_checked(cast("list[NotCheckedEntry]", list(doc.rules_not_checked)), str(doc.jurisdiction or result.jurisdiction),
                          rule_kinds(pack) if pack is not None else None)
    bsites = _building_sites(doc, layers)
    inp = dict(doc.inputs)
    return {
        "title": "Stormwater site-plan review",
        "header": _header(result, doc, _site_parcel(layers, result.site_parcel_ids), inp, reviewer, reference, date_text),
        "summary": _summary(result, doc),
        "classification": _classification(result, doc),
        "rule_groups": _rule_groups([f for f in findings if not _binds(f)]),
        "class_groups": _class_groups(findings),
        "building_sites": bsites,
        "inventory": inv,
        "notification": notif,
        "rules_not_checked": [n.as_dict() for n in skipped if not n.for_reviewer],
        "rules_for_reviewer": [n.as_dict() for n in skipped if n.for_reviewer],
        "rules_not_applicable": [_not_checked(r) for r in doc.rules_not_applicable],
        "warnings": _group_warnings(doc.warnings) + [w for w in [cleaned_warning(notif["rows"])] if w],
        "overrides": {"applied": _applied_overrides(findings), "stale": [_override(x) for x in doc.decisions.stale]},
        "figures": _figures(notif, bsites),
        "status_labels": STATUS_LABELS,
        "accuracy": _accuracy(doc, findings),
        "comparison": _comparison(doc.comparison),
    }


def review_document(doc: FindingsDocument | Mapping[str, Any]) -> FindingsDocument:
    """The review's typed document (a findings.json object made in this process, as a script may hand over, is read into it)."""
    return doc if isinstance(doc, FindingsDocument) else document_from_json(doc)


def _header(
    result: CheckResult,
    doc: FindingsDocument,
    site_info: Mapping[str, str],
    inp: Mapping[str, Any],
    reviewer: str,
    reference: str,
    date_text: str,
) -> dict[str, Any]:
    """The header: jurisdiction, pack, site parcel (id, owner, address), reviewer, date, tool, CRS and input files."""
    return {
        "jurisdiction": doc.jurisdiction,
        "jurisdiction_name": JURISDICTION_NAMES.get(doc.jurisdiction, str(result.jurisdiction)),
        "pack_title": doc.rule_pack.title,
        "pack_version": doc.rule_pack.version,
        "text_encoded": source_statement(doc.rule_pack.source or result.pack_source, label=False),
        "site_parcel": site_info["id"],
        "site_owner": site_info["owner"],
        "site_address": site_info["address"],
        "reviewer": printable_text(reviewer) or "not given",
        "reference": printable_text(reference) or "not given",
        "date": date_text,
        "tool": f"stormwater-check {doc.tool.get('version', __version__)}",
        "working_crs": doc.working_crs or "",
        "site_package": inp.get("site") or "",
        "dem": inp.get("dem") or "none supplied",
        "dem_z": inp.get("dem_z") or "",
    }


def _summary(result: CheckResult, doc: FindingsDocument) -> dict[str, Any]:
    """Counts by status, reviewer decisions (overridden, stale) and the one-line verdict."""
    counts = dict(doc.counts or result.counts())
    oc: dict[str, int] = doc.decisions.counts.as_dict()
    unresolved = int(oc.get("violations_unresolved", counts.get("violation", 0)) or 0)
    verdict = (
        f"{counts.get('violation', 0)} violation(s) found"
        + (f", {int(oc.get('violations_overridden', 0))} accepted or waived by the reviewer" if oc.get("violations_overridden") else "")
        + (f"; {unresolved} remain." if counts.get("violation", 0) else ".")
    )
    return {
        "counts": {s: int(counts.get(s, 0)) for s in ("violation", "undetermined", "advisory", "pass")},
        "overridden": int(oc.get("overridden", 0)),
        "violations_overridden": int(oc.get("violations_overridden", 0)),
        "violations_unresolved": unresolved,
        "stale_overrides": int(oc.get("stale", 0)),
        "verdict": verdict,
        "note": doc.note,
    }


def _classification(result: CheckResult, doc: FindingsDocument) -> dict[str, Any]:
    """Project class (given or computed), disturbed and new impervious areas (sq ft) and the reasons with their citations."""
    reasons = [
        {
            "citation": r.get("citation", ""),
            "excerpt": r.get("excerpt", ""),
            "status": r.get("status", ""),
            "status_label": STATUS_LABELS.get(str(r.get("status", "")), str(r.get("status", ""))),
            "message": r.get("message", ""),
        }
        for r in doc.classification.reasons
    ]
    c = doc.classification
    return {
        "project_class": c.project_class,
        "class_source": c.class_source,
        "computed_class": c.computed_class,
        "question": c.question or "",
        "disturbed_sqft": c.disturbed_sqft,
        "new_impervious_sqft": c.new_impervious_sqft,
        "reasons": reasons,
    }


def _applied_overrides(findings: Sequence[DocFinding]) -> list[dict[str, Any]]:
    """The findings a reviewer accepted or waived, each with its decision."""
    return [
        {
            "key": f.key,
            "rule_id": f.rule_id,
            "citation": f.citation,
            "status": f.status,
            "status_label": STATUS_LABELS.get(f.status, f.status),
            "message": f.message,
            **{k: v for k, v in (_override(f.override) or {}).items() if k != "key"},
        }
        for f in findings
        if f.override
    ]


def _figures(notif: Mapping[str, Any], bsites: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The figures' ids, titles and captions: site map, notification map (radius in ft), one slope rose per building site."""
    figures = [{"id": "site_map", "title": "Site map with findings", "caption": _site_map_caption()}]
    if notif["radius_ft"] is not None:  # no notification rule in the pack: no radius to draw
        figures.append({
            "id": "notification_map",
            "title": f"Neighbour notification: {notif['radius_ft']:g} ft from the site parcel",
            "caption": f"Site parcel (black), the {notif['radius_ft']:g} ft ring (dashed) and the parcels to notify (yellow, "
            "with their ids). Other parcels within the ring are outlined in grey.",
        })
    for b in bsites:
        if b["figure"]:
            figures.append(
                {
                    "id": b["figure"],
                    "title": f"Slope rose, building site {b['id']}",
                    "caption": (f"Slope over {b['distance_ft']:g} ft" if b.get("distance_ft") else "Slope") + " by direction (azimuth from grid north).",
                }
            )
    return figures


def _extents_text(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per plausible extent this site's findings read drawings with (findings.json ``accuracy.extents_used``).

    A document without the list (an earlier release's) lists none: every kind of the pack is not what the site used.
    """
    out: list[str] = []
    for row in rows:
        reach = "no plausible bound (must be drawn)" if row["half_extent_ft"] is None else f"{row['half_extent_ft'][0]:g} to {row['half_extent_ft'][1]:g} ft beyond the drawing"
        foot = "" if row["footprint_sqft"] is None or row["role"] in ("streams", "shoreline") else f", {row['footprint_sqft'][0]:,.0f} to {row['footprint_sqft'][1]:,.0f} sq ft worked"
        out.append(f"{row['role']} / {row['kind']} ({row['noun']}): {reach}{foot}")
    return out


def _accuracy(doc: FindingsDocument, findings: Sequence[DocFinding]) -> dict[str, Any]:
    """Near-limit findings (inside the data's stated accuracy) listed together, and the roles with no stated accuracy."""
    acc: dict[str, Any] = dict(doc.accuracy)
    near = [
        {
            "key": f.key,
            "citation": f.citation,
            "subject": _ref(f.subject),
            "other": _ref(f.other),
            "measured": _ft(f.measured_ft),
            "required": _ft(f.required_ft, 0) if f.required_ft is not None else "—",
            "margin": _ft(f.margin_ft),
            "accuracy": _ft(f.accuracy_ft),
            "status": f.status,
            "status_label": STATUS_LABELS.get(str(f.status), str(f.status)),
        }
        for f in findings
        if f.near_limit
    ]
    return {
        "near_limit": near,
        "extents": _extents_text(acc.get("extents_used") or []),
        "roles": dict(acc.get("roles") or {}),
        "unstated_roles": list(acc.get("unstated_roles") or []),
        "dem_vertical_ft": acc.get("dem_vertical_ft"),
    }


def _comparison(cmp: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The "since the last review" section: counts and the rows of each category."""
    if not cmp:
        return None

    def rows(cat: str) -> list[dict[str, str]]:
        out = []
        for e in cmp.get(cat, []) or []:
            old, new = e.get("old") or {}, e.get("new") or {}
            out.append({
                "citation": str(e.get("citation") or ""),
                "subject": _ref(e.get("subject")),
                "other": _ref(e.get("other")),
                "old": f"{old.get('status', '—')} {_ft(old.get('measured_ft'))}" if old else "—",
                "new": f"{new.get('status', '—')} {_ft(new.get('measured_ft'))}" if new else "—",
                "why": str(e.get("why") or ""),
            })
        return out

    return {
        "counts": dict(cmp.get("counts") or {}),
        "previous": str(cmp.get("previous") or ""),
        "project_class": cmp.get("project_class"),
        "renamed_features": list(cmp.get("renamed_features") or []),
        "resolved": rows("resolved"),
        "new": rows("new"),
        "still_open": rows("still_open"),
        "changed": rows("changed"),
        "decisions": list(cmp.get("decisions") or []),
    }


def _not_checked(r: Mapping[str, Any]) -> dict[str, str]:
    return {
        "rule_id": str(r.get("rule_id", "")),
        "citation": str(r.get("citation", "")),
        "title": str(r.get("title") or ""),
        "reason": str(r.get("reason", "")),
    }


def inventory_radius_ft(jurisdiction: str) -> float | None:
    """The inventory radius of the pack, feet: the largest ``distance_ft`` of its ``plot_plan_inventory`` rules.

    ``None`` when the pack has no such rule (or cannot be loaded): the report
    then lists no inventory rather than one at a distance no regulation sets.
    """
    found = [float(r.params["distance_ft"]) for r in _inventory_rules(jurisdiction) if r.params.get("distance_ft") is not None]
    return max(found) if found else None


def _inventory_rules(jurisdiction: str | RulePack) -> list[Rule]:
    """The pack's ``plot_plan_inventory`` rules (of the pack given, or loaded by name: none when it cannot be loaded)."""
    try:
        pack = jurisdiction if isinstance(jurisdiction, RulePack) else load_pack(jurisdiction)
    except PackError:
        return []
    return [r for r in pack.rules if r.kind == "plot_plan_inventory"]


#: The inventory's heading of each role (the plot plan's words); another role is headed by its noun.
INVENTORY_LABELS: dict[str, str] = {
    "building_sites": "Building site (proposed)",
    "impervious": "Impervious surface",
    "wells": "Well",
    "septic": "Septic system",
    "shoreline": "Shoreline (mean high-water)",
    "waterbodies": "Water body",
    "streams": "Stream",
    "wetlands": "Wetland",
    "devices": "Infiltration device",
}

#: Attribute shown beside the id, by role.
_NAME_FIELDS: dict[str, tuple[str, ...]] = {
    "shoreline": ("waterbody", "name"),
    "waterbodies": ("name",),
    "streams": ("name",),
    "wetlands": ("name", "class"),
    "devices": ("device_type",),
}


def _role_label(role: str) -> str:
    if role in INVENTORY_LABELS:
        return INVENTORY_LABELS[role]
    noun = ROLE_NOUN.get(role, role)
    return noun[:1].upper() + noun[1:]


def _feature_name(layer: FeatureLayer | None, fid: str, role: str) -> str:
    """The attribute shown beside a listed feature's id (its name, class or device type), ``""`` when there is none."""
    if layer is None or fid not in layer.ids:
        return ""
    low = {str(k).lower(): v for k, v in layer.attrs[layer.ids.index(fid)].items()}
    for n in _NAME_FIELDS.get(role, ("name",)):
        v = low.get(n)
        if v is not None and str(v).strip() and str(v).strip().lower() not in ("nan", "none", "null"):
            return str(v).strip()
    return ""


def _inventory(doc: FindingsDocument, rows: Sequence[InventoryRow], layers: Mapping[str, FeatureLayer],
               pack: RulePack | None = None) -> dict[str, Any]:
    """The plot-plan inventory as the check found it (``result.inventory``, rule kind ``plot_plan_inventory``), by role.

    The radius and the roles are the pack's rule's (``pack``, the one the check applied; else the document's
    jurisdiction's); a role the run was not given is ``absent`` (unknown), a role given with nothing within the
    radius ``empty``.
    """
    rules = _inventory_rules(pack if pack is not None else doc.jurisdiction)
    out: dict[str, Any] = {"radius_ft": None, "computed": False, "reason": "", "rows": [], "counts": {}, "absent": [], "empty": []}
    if not rules:
        out["reason"] = "the rule pack asks for no plot-plan inventory of the site's surroundings"
        return out
    found = [f for f in doc.findings if f.kind == "plot_plan_inventory"]
    # the engine keeps the inventory of the last such rule run (engine order)
    rule = next((r for r in rules if found and r.id == found[-1].rule_id), rules[-1])
    out["radius_ft"] = float(rule.params["distance_ft"])
    if not found:
        why = next((str(r.get("reason", "")) for r in doc.rules_not_applicable if r.get("rule_id") == rule.id), "")
        out["reason"] = f"the plot-plan rule does not apply ({why})" if why else "the plot-plan rule was not run"
        return out
    if any(r.get("rule_id") == rule.id for r in doc.rules_not_checked):
        out["reason"] = "the site parcel was not identified, so distances from it cannot be measured"
        return out
    out["computed"] = True
    roles = [str(r) for r in rule.params.get("roles", [])]
    order = {role: n for n, role in enumerate(roles)}
    listed: list[dict[str, Any]] = []
    for r in sorted(rows, key=lambda r: (order.get(r["layer"], len(order)), r["distance_ft"], r["id"])):
        role = str(r["layer"])
        listed.append({"category": _role_label(role), "layer": role, "id": r["id"], "name": _feature_name(layers.get(role), str(r["id"]), role),
                       "distance_ft": r["distance_ft"], "on_site": bool(r["on_site"])})
    for role in roles:
        label = _role_label(role)
        if layers.get(role) is None:
            out["absent"].append(label)
            continue
        out["counts"][label] = sum(1 for r in listed if r["layer"] == role)
        if not out["counts"][label]:
            out["empty"].append(label)
    out["rows"] = listed
    return out


def _site_map_caption() -> str:
    return (
        "Distance lines and encroaching areas coloured by status ("
        + ", ".join(f"{STATUS_COLOUR_NAMES[s]} {s}" for s in ("violation", "undetermined", "advisory", "pass"))
        + ", grey accepted or waived by the reviewer), labelled measured / required. Setback rings and buffers are drawn for display only; "
        "decisions use exact distances. North is grid north of the working CRS."
    )
