"""The check refuses a plan that does not land on its parcel (issue 27): exit 2 and one line, never findings in the wrong place.

A DXF holds no CRS; a drawing whose stated CRS is wrong, or in local coordinates, lands thousands of feet
from its parcel. The command line's check, and :func:`stormwater_plugin.services.review.check` that the dock
and Processing call, refuse it (:mod:`stormwater_plugin.services.placement`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, box

from stormwater_plugin.cli import main
from stormwater_plugin.core.model import FeatureLayer, SiteInputs
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.services.placement import PLAN_OFF_PARCEL_FT, Placement, PlanOffParcel, plan_placement, plan_placement_problem
from stormwater_plugin.services.review import check

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"
demo = pytest.mark.skipif(not (DEMO / "site.gpkg").is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")
PARCELS = f"{DEMO / 'site.gpkg'}:parcels"


def _import(tmp: Path, name: str, offset: tuple[float, float]) -> Path:
    pytest.importorskip("ezdxf", reason="ezdxf builds the test drawings (Debian: python3-ezdxf)")
    from tests.headless.cad_drawings import demo_plan_dxf

    dxf = demo_plan_dxf(tmp / f"{name}.dxf", offset=offset)
    # no --parcels: the import cannot test where the plan lands, the check must
    assert main(["import-cad", str(dxf), "--crs", "EPSG:2260", "--out", str(tmp / f"{name}.gpkg")]) == 0
    return tmp / f"{name}.gpkg"


def _check(site: Path, out: Path, *extra: str) -> int:
    return main([str(site), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george", "--out", str(out), "--quiet", *extra])


@demo
def test_check_refuses_a_dxf_plan_4300_ft_off_its_parcel_with_exit_2_and_one_line(tmp_path, capsys):
    site = _import(tmp_path, "shifted", (4300.0, 0.0))
    capsys.readouterr()
    assert _check(site, tmp_path / "out", "--layer", f"parcels={PARCELS}") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "ft from parcel 171.15-1-23 (the site parcel" in err[0] and "local coordinates, or the wrong state-plane zone?" in err[0]
    assert not (tmp_path / "out" / "findings.json").exists()


@demo
def test_check_accepts_the_same_dxf_plan_on_its_parcel(tmp_path):
    site = _import(tmp_path, "placed", (0.0, 0.0))
    assert _check(site, tmp_path / "out", "--layer", f"parcels={PARCELS}") in (0, 1)
    doc = json.loads((tmp_path / "out" / "findings.json").read_text(encoding="utf-8"))
    assert doc["site_parcel"] == "171.15-1-23"


@demo
def test_the_demo_package_checks_as_before(tmp_path):
    assert _check(DEMO / "site.gpkg", tmp_path / "out") in (0, 1)


# --- the services policy (the dock and Processing call services.review.check) -----------------------------------


def _site(device_at: Point, *, is_site: bool = True) -> SiteInputs:
    parcels = FeatureLayer.from_sequences("parcels", [box(0, 0, 100, 100), box(100, 0, 200, 100)], ["171.15-1-23", "171.15-1-24"],
                                          [{"is_site": 1 if is_site else 0}, {"is_site": 0}])
    devices = FeatureLayer.from_sequences("devices", [device_at], ["DW-1"], [{"device_type": "dry_well"}])
    return SiteInputs(layers={"parcels": parcels, "devices": devices}, dem=None, unit_to_ft=1.0, crs_name="test ft")


def test_services_refuse_a_plan_4300_ft_from_its_site_parcel():
    msg = plan_placement_problem(_site(Point(4350.0, 50.0)).layers, 1.0)
    assert msg is not None and msg.startswith("the plan is 4,250 ft from parcel 171.15-1-23 (the site parcel; nearest: devices DW-1)")
    with pytest.raises(PlanOffParcel, match="wrong state-plane zone"):
        check(_site(Point(4350.0, 50.0)), load_pack("lake-george"), moves=False)


def test_services_measure_from_the_nearest_parcel_when_no_site_parcel_is_named():
    msg = plan_placement_problem(_site(Point(4350.0, 50.0), is_site=False).layers, 1.0)
    assert msg is not None and "4,150 ft from parcel 171.15-1-24 (the nearest of the parcel layer" in msg


def test_services_accept_work_on_or_just_past_the_site_parcel_boundary():
    assert plan_placement_problem(_site(Point(50.0, 50.0)).layers, 1.0) is None
    assert plan_placement_problem(_site(Point(-PLAN_OFF_PARCEL_FT + 1.0, 50.0)).layers, 1.0) is None
    assert plan_placement_problem(_site(Point(-PLAN_OFF_PARCEL_FT - 1.0, 50.0)).layers, 1.0) is not None
    check(_site(Point(50.0, 50.0)), load_pack("lake-george"), moves=False)


def test_services_refuse_nothing_without_parcels_or_without_a_plan():
    layers = _site(Point(4350.0, 50.0)).layers
    assert plan_placement_problem({"devices": layers["devices"]}, 1.0) is None
    assert plan_placement_problem({"parcels": layers["parcels"]}, 1.0) is None


def test_one_plan_layer_in_a_wrong_crs_is_not_a_refusal_when_the_rest_lies_on_the_parcel():
    layers = dict(_site(Point(50.0, 50.0)).layers)
    layers["building_sites"] = FeatureLayer.from_sequences("building_sites", [box(900_000, 0, 900_050, 50)], ["B-1"], [{}])
    assert plan_placement_problem(layers, 1.0) is None


# --- a CAD plan's own property line against the context catalog's tax parcels --------------------------------------


def _catalog(tmp: Path) -> Path:
    path = tmp / "catalog.json"
    path.write_text(json.dumps({"town": "Demo", "sources": [
        {"name": "tax parcels", "path": str(DEMO / "site.gpkg"), "layer": "parcels", "role": "parcels", "authority": "county RPS", "date": "2024",
         "status": "informational"},
    ]}), encoding="utf-8")
    return path


@demo
def test_check_with_a_context_catalog_refuses_a_cad_property_line_4300_ft_off_its_tax_parcel(tmp_path, capsys):
    site = _import(tmp_path, "shifted", (4300.0, 0.0))
    capsys.readouterr()
    assert _check(site, tmp_path / "out", "--context", str(_catalog(tmp_path))) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "the plan's property line is" in err[0] and "ft from parcel" in err[0] and "local coordinates, or the wrong state-plane zone?" in err[0]


@demo
def test_check_with_a_context_catalog_lands_the_cad_property_line_on_its_tax_parcel(tmp_path):
    site = _import(tmp_path, "placed", (0.0, 0.0))
    assert _check(site, tmp_path / "out", "--context", str(_catalog(tmp_path))) in (0, 1)
    doc = json.loads((tmp_path / "out" / "findings.json").read_text(encoding="utf-8"))
    assert doc["site_parcel"] == "171.15-1-23"
    assert any(w["code"] == "context_site_parcel" and "lands on parcel 171.15-1-23" in w["message"] for w in doc["warnings"])
    # the same findings as the import that met the tax parcels itself (import-cad --parcels)
    from tests.headless.cad_drawings import demo_plan_dxf

    dxf = demo_plan_dxf(tmp_path / "with_parcels.dxf")
    assert main(["import-cad", str(dxf), "--crs", "EPSG:2260", "--parcels", PARCELS, "--out", str(tmp_path / "with_parcels.gpkg")]) == 0
    assert _check(tmp_path / "with_parcels.gpkg", tmp_path / "out2") in (0, 1)
    other = json.loads((tmp_path / "out2" / "findings.json").read_text(encoding="utf-8"))

    def signature(d: dict) -> set[tuple]:
        return {(f["rule_id"], (f.get("subject") or {}).get("id"), (f.get("other") or {}).get("id"), f["status"]) for f in d["findings"]}

    assert signature(doc) == signature(other) and doc["counts"] == other["counts"]


_xy = st.integers(-50, 50).map(float)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["devices", "clearing"]), _xy, _xy, st.integers(0, 4)), min_size=1, max_size=6))
def test_the_distance_to_the_one_site_parcel_is_the_trees(features):
    """The site parcel alone is a candidate: each feature's distance to it, the first nearest named, as the tree finds them."""
    geoms = {"devices": [], "clearing": []}
    for role, x, y, w in features:
        geoms[role].append(Point(x, y) if role == "devices" else box(x, y, x + w + 1, y + w + 1))
    layers = {role: FeatureLayer.from_sequences(role, gs, [f"{role[0]}{k}" for k in range(len(gs))], [{} for _ in gs])
              for role, gs in geoms.items() if gs}
    layers["parcels"] = FeatureLayer.from_sequences("parcels", [box(0, 0, 10, 10), box(20, 0, 30, 10)], ["P-1", "P-2"],
                                                    [{"is_site": 1}, {"is_site": 0}])
    got = plan_placement(layers, 1.0)
    plan = [(f"{role} {layer.ids[i]}", g) for role in ("devices", "clearing") if (layer := layers.get(role)) is not None
            for i, g in enumerate(layer.geoms)]
    tree = shapely.STRtree([box(0, 0, 10, 10)])
    (which, _hit), dist = tree.query_nearest([g for _, g in plan], return_distance=True, all_matches=False)
    n = int(np.argmin(dist))
    assert got == Placement(float(dist[n]), "P-1", True, plan[int(which[n])][0])


# --- the check's site parcel kept per parcel layer (services.review._PICKS): each input of the key changes the answer ----


def _two_parcels(site: str | None) -> FeatureLayer:
    """Parcel A on the plan, parcel B 4,900 ft east; ``is_site`` on ``site`` (``None``: on neither)."""
    return FeatureLayer.from_sequences("parcels", [box(0, 0, 100, 100), box(5000, 0, 5100, 100)], ["A", "B"],
                                       [{"is_site": int(site == "A")}, {"is_site": int(site == "B")}])


def _on(parcels: FeatureLayer, site_parcel_id: str | None = None) -> SiteInputs:
    devices = FeatureLayer.from_sequences("devices", [Point(50.0, 50.0)], ["DW-1"], [{"device_type": "dry_well"}])
    return SiteInputs(layers={"parcels": parcels, "devices": devices}, dem=None, unit_to_ft=1.0, crs_name="test ft", site_parcel_id=site_parcel_id)


def test_the_check_refuses_by_the_site_parcel_named_at_this_check_not_the_one_kept_for_the_same_parcel_layer():
    pack, parcels = load_pack("lake-george"), _two_parcels(None)
    check(_on(parcels, "A"), pack, moves=False)  # parcel A kept for this layer and the id A
    with pytest.raises(PlanOffParcel, match="from parcel B"):
        check(_on(parcels, "B"), pack, moves=False)  # the same layer object, another id: the plan is 4,850 ft from B
    check(_on(parcels, "A"), pack, moves=False)


def test_the_check_refuses_by_the_parcel_layer_of_this_check_not_the_site_flag_kept_for_an_earlier_one():
    pack = load_pack("lake-george")
    check(_on(_two_parcels("A")), pack, moves=False)  # flagged A kept for that layer
    with pytest.raises(PlanOffParcel, match="from parcel B"):
        check(_on(_two_parcels("B")), pack, moves=False)  # another layer (the flag moved to B): found again
    flagged_a = _two_parcels("A")
    for _ in range(3):  # asked again of the same layer: the same answer
        check(_on(flagged_a), pack, moves=False)


# --- the check's witness: one feature of the plan on or near its parcel, then nothing to refuse (services.review) ---------


def _refused(inputs: SiteInputs) -> str | None:
    from stormwater_plugin.services.review import _refuse_plan_off_parcel

    try:
        _refuse_plan_off_parcel(inputs)
    except PlanOffParcel as exc:
        return str(exc)
    return None


@pytest.mark.parametrize(("first_ft", "refused"), [(PLAN_OFF_PARCEL_FT - 0.1, False), (PLAN_OFF_PARCEL_FT, False), (PLAN_OFF_PARCEL_FT + 0.1, True)])
def test_a_plan_whose_first_feature_lies_t_from_its_site_parcel_is_refused_only_past_t(first_ft, refused):
    """The first feature at t-0.1 ft, t and t+0.1 ft west of the site parcel (300 ft), a second farther: refused only past t."""
    devices = FeatureLayer.from_sequences("devices", [Point(-first_ft, 50.0), Point(-first_ft - 500.0, 50.0)], ["DW-1", "DW-2"], [{}, {}])
    inputs = SiteInputs(layers={"parcels": _site(Point(0, 0)).layers["parcels"], "devices": devices}, dem=None, unit_to_ft=1.0, crs_name="ft")
    assert (_refused(inputs) is not None) is refused
    assert _refused(inputs) == plan_placement_problem(inputs.layers, 1.0)


def test_a_plan_whose_first_feature_is_far_but_another_on_its_parcel_is_not_refused():
    devices = FeatureLayer.from_sequences("devices", [Point(-4000.0, 50.0), Point(50.0, 50.0)], ["DW-1", "DW-2"], [{}, {}])
    inputs = SiteInputs(layers={"parcels": _site(Point(0, 0)).layers["parcels"], "devices": devices}, dem=None, unit_to_ft=1.0, crs_name="ft")
    assert _refused(inputs) is None


_PLACED = st.tuples(st.sampled_from(["devices", "clearing", "building_sites"]), st.integers(-1200, 1200).map(float), st.integers(-400, 400).map(float),
                    st.booleans())


@settings(max_examples=300, deadline=None)
@given(st.lists(_PLACED, max_size=5), st.lists(st.tuples(st.integers(-800, 800).map(float), st.booleans()), min_size=0, max_size=3),
       st.sampled_from([None, "P0", "P1", "nope"]), st.sampled_from([1.0, 0.3048, 3.2808333333333333, 0.9996]))
def test_the_witness_refuses_exactly_what_the_plan_measured_in_full_refuses(features, parcels, site_id, unit):
    """Property: the check's refusal (the witness first: one feature within the tolerance of the site parcel) is
    :func:`plan_placement_problem`'s, whatever the plan, the parcels, the site flag or id and the unit (t-1 ft to t+1 ft included)."""
    from stormwater_plugin.services.review import _one_feature_on_parcel

    layers: dict[str, FeatureLayer] = {}
    if parcels:
        layers["parcels"] = FeatureLayer.from_sequences("parcels", [box(x, 0, x + 100, 100) for x, _f in parcels], [f"P{n}" for n in range(len(parcels))],
                                                        [{"is_site": int(flag)} for _x, flag in parcels])
    by_role: dict[str, list] = {}
    for role, x, y, area in features:
        by_role.setdefault(role, []).append(box(x, y, x + 5, y + 5) if area else Point(x, y))
    for role, geoms in by_role.items():
        layers[role] = FeatureLayer.from_sequences(role, geoms, [f"{role[0]}{n}" for n in range(len(geoms))], [{} for _ in geoms])
    inputs = SiteInputs(layers=layers, dem=None, unit_to_ft=unit, crs_name="ft", site_parcel_id=site_id)
    want = plan_placement_problem(layers, unit, site_id)
    if _one_feature_on_parcel(inputs, {}):
        assert want is None
    assert _refused(inputs) == want
