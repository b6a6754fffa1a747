"""Neighbour notification (6 NYCRR 646-4.13(a)(6)): adjacent owners always, 500 ft for major projects."""

from __future__ import annotations

import pytest
from shapely.geometry import box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import layer, run


def _parcels():
    geoms = [
        box(0, 0, 100, 100),  # S: the site
        box(100, 0, 200, 100),  # A: touches
        box(100.5, 100, 200, 200),  # B: 0.5 ft gap at the corner: adjacent within 1 ft
        box(0, 101.5, 100, 200),  # C: 1.5 ft gap: not adjacent
        box(599.9, 0, 700, 100),  # D: 499.9 ft
        box(600, 200, 700, 300),  # E: corner-to-corner about 509.9 ft: excluded
        box(-600, 0, -500, 100),  # F: exactly 500 ft: included
        box(-700.1, 0, -600.1, 100),  # G: 600.1 ft: excluded
    ]
    owners = [
        ("Site Owner", "1 Main St"),
        ("Abbott, Jane", "12 Shore Rd"),
        ("ZOË MÉNARD", "5 Rue Saint-Denis"),
        ("abbott jane", "12 Shore Rd."),  # same owner and address as A, differently written
        ("Baker LLC", "PO Box 9"),
        ("Far Away", "x"),
        ("Edge Case", "500 Line Rd"),
        ("Too Far", "y"),
    ]
    attrs = [
        {
            "PRINT_KEY": pk,
            "is_site": int(pk == "S"),
            "PRMY_OWNER": o,
            "MAIL_ADDR": m,
            "MAIL_CITY": "Bolton Landing",
            "MAIL_STATE": "NY",
            "MAIL_ZIP": "12814",
        }
        for pk, (o, m) in zip("SABCDEFG", owners)
    ]
    return layer("parcels", geoms, list("SABCDEFG"), attrs)


def _notification(project_class):
    result = run("lgpc", {"parcels": _parcels()}, project_class=project_class)
    return result, result.notification


def test_adjacent_owners_listed_for_minor_projects_within_the_1_ft_tolerance():
    _, n = _notification("minor")
    assert [p["id"] for p in n["adjacent"]] == ["A", "B"]
    assert n["radius_required"] is False
    assert sorted(p for o in n["owners"] for p in o["parcels"]) == ["A", "B"]


@pytest.mark.parametrize("pid,included", [("D", True), ("F", True), ("E", False), ("G", False)])
def test_500_ft_list_for_major_projects_boundary_646_4_13_a_6(pid, included):
    _, n = _notification("major")
    assert (pid in [p["id"] for p in n["within_500ft"]]) is included


def test_distances_are_edge_to_edge_in_feet():
    _, n = _notification("major")
    d = {p["id"]: p["distance_ft"] for p in n["within_500ft"]}
    assert d["A"] == 0.0 and d["C"] == 1.5 and d["D"] == 499.9 and d["F"] == 500.0


def test_owners_are_deduplicated_by_name_and_mailing_address_but_every_parcel_stays():
    _, n = _notification("major")
    abbott = [o for o in n["owners"] if o["owner"].lower().startswith("abbott")]
    assert len(abbott) == 1 and abbott[0]["parcels"] == ["A", "C"]
    assert [o["owner"] for o in n["owners"]][0].startswith("Abbott")
    assert any(o["owner"] == "ZOË MÉNARD" for o in n["owners"])
    assert "Bolton Landing, NY 12814" in abbott[0]["mailing_address"]


def test_the_site_parcel_is_never_listed():
    _, n = _notification("major")
    assert "S" not in [p["id"] for p in n["within_500ft"]]


def test_notification_finding_is_advisory_and_cited():
    result, _ = _notification("major")
    (f,) = [f for f in result.findings if f.rule_id == "lgpc.notification" and f.status is Status.ADVISORY]
    assert f.citation.text == "6 NYCRR 646-4.13(a)(6)"
    assert "within 500 ft" in f.message


def test_missing_owner_is_undetermined():
    parcels = _parcels()
    parcels.attrs[1]["PRMY_OWNER"] = None
    result = run("lgpc", {"parcels": parcels}, project_class="minor")
    assert any(f.status is Status.UNDETERMINED and f.subject and f.subject.id == "A" for f in result.findings)


def test_without_parcels_the_list_is_undetermined():
    result = run("lgpc", {}, project_class="minor")
    (f,) = [f for f in result.findings if f.rule_id == "lgpc.notification"]
    assert f.status is Status.UNDETERMINED


def test_a_parcels_layer_that_ends_inside_the_500_ft_radius_is_flagged_incomplete():
    parcels = layer("parcels", [box(0, 0, 100, 100), box(100, 0, 200, 100)], ["S", "A"], [{"is_site": 1, "PRMY_OWNER": "x", "MAIL_ADDR": "y"}, {"PRMY_OWNER": "a", "MAIL_ADDR": "b"}])
    result = run("lgpc", {"parcels": parcels}, project_class="major")
    assert any(f.status is Status.UNDETERMINED and "may be incomplete" in f.message for f in result.findings)


def test_a_parcels_layer_none_of_whose_parcels_could_be_placed_is_not_called_missing():
    # a wrong .prj: every parcel excluded with its own finding; the list's finding must not say no layer was supplied
    parcels = layer("parcels", [], [], [])
    parcels.no_geometry.update({"S": "lies where its CRS (WGS 84) cannot place it", "A": "lies where its CRS (WGS 84) cannot place it"})
    result = run("lgpc", {"parcels": parcels}, project_class="minor")
    (f,) = [f for f in result.findings if f.rule_id == "lgpc.notification" and f.subject is None]
    assert f.status is Status.UNDETERMINED
    assert "No parcels layer was supplied" not in f.message
    assert f.message.startswith("No feature of the parcels layer could be measured")
    named = {f.subject.id for f in result.findings if f.rule_id == "lgpc.notification" and f.subject is not None}
    assert named == {"S", "A"}


def test_an_empty_parcels_layer_is_called_empty():
    result = run("lgpc", {"parcels": layer("parcels", [], [], [])}, project_class="minor")
    (f,) = [f for f in result.findings if f.rule_id == "lgpc.notification"]
    assert f.message.startswith("The parcels layer is empty")
