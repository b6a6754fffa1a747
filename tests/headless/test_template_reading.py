"""A template's empty layer says "not drawn", never "none" (issue 27): the absence of a finding never means compliant.

``stormwater-check new-site`` creates every role layer empty, with a ``site_statements`` table where the
applicant states the roles there are none of. The check refuses a template with nothing drawn (exit 2, one
line naming the package and what to draw), reads an empty template layer as not supplied (its rules
undetermined, never passed) unless its statement says none, and completeness lists it as not drawn.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import fiona
import pytest
from pyproj import Transformer
from shapely.geometry import MultiPolygon, mapping, shape
from shapely.ops import transform

from stormwater_plugin.cli import main
from stormwater_plugin.services.site_template import STATEMENTS_TABLE, undrawn_roles

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"
demo = pytest.mark.skipif(not (DEMO / "site.gpkg").is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")


@pytest.fixture()
def template(tmp_path: Path) -> Path:
    out = tmp_path / "site.gpkg"
    assert main(["new-site", "--jurisdiction", "lgpc", "--out", str(out)]) == 0
    return out


def _copy_demo(gpkg: Path, layer: str, ids: set[str] | None = None) -> None:
    """Draw the demo's features of ``layer`` (only ``ids``) into the template, in its NY East ftUS."""
    with fiona.open(str(DEMO / "site.gpkg"), layer=layer) as src:
        to_ny = Transformer.from_crs(src.crs_wkt, "EPSG:2260", always_xy=True)
        rows = [(shape(f.geometry), dict(f.properties)) for f in src if ids is None or f.properties.get("id") in ids]
    with fiona.open(str(gpkg), "a", layer=layer) as dst:
        keys = dst.schema["properties"]
        for g, p in rows:
            g = transform(to_ny.transform, g)
            if g.geom_type == "Polygon":
                g = MultiPolygon([g])
            dst.write({"geometry": mapping(g), "properties": {k: p.get(k) for k in keys}})


def _state_none(gpkg: Path, role: str) -> None:
    with sqlite3.connect(str(gpkg)) as con:
        con.execute(f"UPDATE {STATEMENTS_TABLE} SET none_present = 1 WHERE role = ?", (role,))


def _check(site: Path, out: Path, *extra: str) -> tuple[int, dict]:
    code = main([str(site), "--jurisdiction", "lgpc", "--out", str(out), "--quiet", *extra])
    doc = json.loads((out / "findings.json").read_text(encoding="utf-8")) if (out / "findings.json").is_file() else {}
    return code, doc


def test_the_template_has_one_unanswered_statement_per_role_layer(template):
    with sqlite3.connect(str(template)) as con:
        rows = con.execute(f"SELECT role, none_present FROM {STATEMENTS_TABLE}").fetchall()
        kind = con.execute("SELECT data_type FROM gpkg_contents WHERE table_name = ?", (STATEMENTS_TABLE,)).fetchone()
    assert {r for r, _ in rows} >= {"parcels", "devices", "wells", "septic"} and all(v is None for _, v in rows)
    assert kind == ("attributes",)


def test_check_of_an_empty_template_exits_2_with_one_line_naming_what_to_draw(template, tmp_path, capsys):
    code, _ = _check(template, tmp_path / "out")
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "is an empty site template: nothing is drawn" in err[0] and "site parcel (parcels, is_site)" in err[0] and "devices" in err[0]


@demo
def test_a_template_with_a_device_drawn_passes_no_setback_to_an_empty_undrawn_layer(template, tmp_path):
    _copy_demo(template, "parcels", {"171.15-1-23"})
    _copy_demo(template, "devices", {"DW-1"})
    code, doc = _check(template, tmp_path / "out")
    assert code in (0, 1)
    not_drawn = {w["layer"] for w in doc["warnings"] if w["code"] == "template_layer_not_drawn"}
    assert {"wells", "septic", "wetlands", "shoreline", "streams", "waterbodies"} <= not_drawn
    passes = [f for f in doc["findings"] if f["status"] == "pass" and f["kind"] in ("device_setback", "shoreline_no_cut_buffer")]
    assert passes == [], [f["message"] for f in passes]
    assert any("no well drawn (the template's wells layer is empty" in m for m in doc["completeness"]["missing"])


@demo
def test_a_role_stated_none_is_read_as_none_and_completeness_shows_it(template, tmp_path):
    _copy_demo(template, "parcels", {"171.15-1-23"})
    _copy_demo(template, "devices", {"DW-1"})
    _state_none(template, "wells")
    code, doc = _check(template, tmp_path / "out")
    assert code in (0, 1)
    not_drawn = {w["layer"] for w in doc["warnings"] if w["code"] == "template_layer_not_drawn"}
    assert "wells" not in not_drawn and "septic" in not_drawn
    assert not any("well drawn" in m or "no wells layer" in m for m in doc["completeness"]["missing"])


def test_a_template_whose_roles_come_from_layer_options_is_not_refused(template, tmp_path, capsys):
    code, _ = _check(template, tmp_path / "out", "--layer", f"devices={DEMO / 'site.gpkg'}:devices", "--layer", f"parcels={DEMO / 'site.gpkg'}:parcels")
    assert code in (0, 1), capsys.readouterr().err


def test_completeness_of_an_empty_template_lists_its_layers_as_not_drawn(template, capsys):
    assert main(["completeness", str(template), "--jurisdiction", "lgpc"]) == 1
    out = capsys.readouterr().out
    assert "no well drawn (the template's wells layer is empty" in out and "no device drawn" in out


def test_an_ordinary_package_empty_layer_still_says_none():
    # only a template (its statements table) reads an empty layer as not drawn; the decision itself:
    assert undrawn_roles({"wells": 0, "devices": 2, "septic": 0}, {"septic"}) == ["wells"]
