"""The plugin's reading decisions that need no QGIS (issue 38): a template's statements asked once per package state,
the words of a mixed layer's part, features a CRS cannot place, features read again by id, a PROJ string's unit."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import numpy as np
from shapely.geometry import Point, box

from stormwater_plugin.core.units import METRE_PER_FT, METRE_PER_US_FT
from stormwater_plugin.services import template_layers
from stormwater_plugin.services.layer_source_text import layer_file_name, where_of_uri
from stormwater_plugin.services.proj_text import longlat_proj, proj_unit_m
from stormwater_plugin.services.read_progress import ReadProgress
from stormwater_plugin.services.refetch import NOT_MAPPED, matched_by_id
from stormwater_plugin.services.role_layer_status import RoleLayerStatus, part_warning
from stormwater_plugin.services.unplaceable import unplaceable_positions


def _package(path: Path, rows: list[tuple[str, int]]) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE IF NOT EXISTS site_statements (role TEXT, none_present INTEGER)")
    con.execute("DELETE FROM site_statements")
    con.executemany("INSERT INTO site_statements VALUES (?, ?)", rows)
    con.commit()
    con.close()


class _Layer:
    def __init__(self, uri: str, count: int) -> None:
        self._uri, self._count = uri, count

    def source(self) -> str:
        return self._uri

    def featureCount(self) -> int:  # noqa: N802 - QGIS API
        return self._count


def test_a_packages_statements_are_read_once_while_its_file_is_unchanged(tmp_path, monkeypatch):
    gpkg = tmp_path / "site.gpkg"
    _package(gpkg, [("wells", 1)])
    calls: list[Path] = []
    real = template_layers.read_statements
    monkeypatch.setattr(template_layers, "read_statements", lambda p: calls.append(p) or real(p))
    assert template_layers.statements_of(str(gpkg)) == frozenset({"wells"})
    assert template_layers.statements_of(str(gpkg)) == frozenset({"wells"})
    assert len(calls) == 1


def test_a_statement_written_since_is_read_again(tmp_path):
    gpkg = tmp_path / "site.gpkg"
    _package(gpkg, [("wells", 1)])
    assert template_layers.statements_of(str(gpkg)) == frozenset({"wells"})
    _package(gpkg, [("wells", 1), ("septic_systems", 1)])
    st = os.stat(gpkg)
    os.utime(gpkg, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a coarse clock: the write is seen as later
    assert template_layers.statements_of(str(gpkg)) == frozenset({"wells", "septic_systems"})


def test_an_empty_template_layer_is_not_drawn_and_one_stated_none_is_none(tmp_path):
    gpkg = tmp_path / "site.gpkg"
    _package(gpkg, [("wells", 1)])
    sources: dict[str, object] = {"wells": _Layer(f"{gpkg}|layername=wells", 0), "septic_systems": _Layer(f"{gpkg}|layername=septic_systems", 0),
                                  "parcels": _Layer(f"{gpkg}|layername=parcels", 3)}
    warnings: list = []
    template_layers.drop_undrawn_template_layers(sources, warnings)
    assert set(sources) == {"wells", "parcels"}
    assert warnings


def test_a_part_read_whole_is_said_only_when_the_whole_holds_more():
    more = RoleLayerStatus("plan", 5, "Point", 2, "/d/plan.gpkg|layername=plan")
    said = part_warning("plan_points", more, "/d/plan.gpkg|layername=plan|geometrytype=Point", expanded=True)
    assert said is not None and said.code == "layer_part_expanded" and "other 3 feature(s)" in said.message
    assert part_warning("plan_points", RoleLayerStatus("plan", 2, "Point", 2, "x"), "x", expanded=True) is None
    only = part_warning("plan_points", RoleLayerStatus("plan", 2, "Point", 2, "x"), "x", expanded=False)
    assert only is not None and only.code == "layer_part_only"


def test_an_ogr_uri_names_its_layer_as_the_command_line_does():
    assert where_of_uri("/d/site.gpkg|layername=wells|geometrytype=Point") == "/d/site.gpkg:wells"
    assert where_of_uri("/d/wells.shp") == "/d/wells.shp"
    assert layer_file_name("/d/site.gpkg:wells") == "wells"
    assert layer_file_name("/d/wells.shp") == "wells.shp"


def test_a_stray_feature_is_excluded_and_a_layer_none_of_whose_features_fits_is_misplaced():
    def to_lonlat(xs, ys):
        return np.asarray(xs) / 1000.0, np.asarray(ys) / 1000.0

    area = (-80.0, 40.0, -70.0, 45.0)
    fits, stray = box(-75000, 42000, -74990, 42010), Point(10000, 10000)
    assert unplaceable_positions([fits, None, stray], to_lonlat, area, geographic=False) == [2]
    assert unplaceable_positions([stray], to_lonlat, area, geographic=False) is None
    assert unplaceable_positions([None], to_lonlat, area, geographic=False) is None


def test_a_feature_the_second_read_cannot_map_has_no_geometry_and_says_why():
    unusable: dict[int, str] = {}
    out = matched_by_id([7, 8, 9], [Point(0, 0), None, Point(1, 1)], [7], [Point(5, 5)], unusable)
    assert out[0] == Point(5, 5) and out[1] is None and out[2] is None
    assert unusable == {2: NOT_MAPPED}


def test_progress_weighs_each_layer_by_its_features_once():
    seen: list[float] = []
    progress = ReadProgress([3, 0], seen.append)
    progress.fetched("a", 3)
    progress.fetched("a", 3)
    progress.fetched("b", 0)
    assert seen == [0.75, 1.0]


def test_a_proj_string_states_us_survey_feet():
    assert proj_unit_m("+proj=tmerc +units=us-ft +no_defs") == METRE_PER_US_FT
    assert proj_unit_m("+proj=tmerc +units=ft") == METRE_PER_FT
    assert proj_unit_m("+proj=tmerc +to_meter=0.3048006096") == 0.3048006096
    assert proj_unit_m("+proj=utm +zone=18 +units=m") is None
    assert longlat_proj("+proj=utm +zone=18 +datum=NAD83 +units=m +no_defs") == "+proj=longlat +datum=NAD83 +no_defs"
