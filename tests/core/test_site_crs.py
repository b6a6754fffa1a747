"""The working-CRS decisions of services.site_crs, made through a backend's CRS primitives (issue 38).

A fake backend stands for pyproj or QGIS: the decisions (the DEM's CRS when projected and conformal, else the
UTM zone of the site's centre; the words for findings.json; the area CRS) must not depend on which backend it is.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from shapely.geometry import box

from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.services.backend import CrsInfo, GridProjection
from stormwater_plugin.services.site_crs import (
    area_crs,
    boxes_lonlat,
    roles_lonlat,
    site_measure,
    site_working_crs,
    working_crs,
    working_crs_text,
)
from stormwater_plugin.services.working_crs import NoSiteLocation

#: name -> (projected, conformal, metres per unit); "deg" a longitude/latitude CRS, its x and y degrees.
KINDS = {"tm": (True, True, 1.0), "albers": (True, False, 1.0), "deg": (False, False, math.nan), "ft": (True, True, 0.3048)}


class FakeCrs:
    """Every CRS is identity on longitude/latitude: enough to see which decision was taken."""

    def describe(self, crs: str) -> CrsInfo:
        projected, conformal, unit = KINDS.get(crs, (True, True, 1.0))
        return CrsInfo(f"name of {crs}", "" if crs == "ft" else f"X:{crs}", projected, conformal, unit)

    def from_epsg(self, code: int) -> str:
        return f"EPSG:{code}"

    def to_lonlat(self, crs: str, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)

    def projection(self, crs: str) -> GridProjection | None:
        return None  # grid distances: scale factor 1

    def area_of_use(self, crs: str) -> tuple[float, float, float, float] | None:
        return None


FAKE = FakeCrs()


def _never() -> tuple[float, float] | None:
    raise AssertionError("the site is located only when the UTM zone is needed")


def test_a_projected_conformal_dem_is_the_working_crs_and_the_site_is_not_located() -> None:
    assert working_crs(FAKE, "tm", _never) == ("tm", "the DEM's CRS")


@pytest.mark.parametrize("dem", [None, "albers", "deg"])
def test_otherwise_the_utm_zone_of_the_sites_centre(dem: str | None) -> None:
    crs, why = working_crs(FAKE, dem, lambda: (-73.7, 43.5))
    assert crs == "EPSG:32618"
    assert ("not conformal" in why) == (dem == "albers")


def test_nothing_located_is_refused_never_a_guessed_zone() -> None:
    with pytest.raises(NoSiteLocation):
        working_crs(FAKE, None, lambda: None)


def test_the_zone_of_the_site_parcel_not_of_everything() -> None:
    """The site parcel is 7° west of the plan's far parcel: its zone, not the middle of all the data."""
    parcels = FeatureLayer.from_sequences("parcels", [box(-75.5, 43.0, -75.4, 43.1), box(-68.5, 43.0, -68.4, 43.1)], ["A", "B"],
                                          [{"is_site": True}, {}])
    assert site_working_crs(FAKE, None, {"parcels": parcels}, "deg", None) == ("EPSG:32618", "local UTM zone 18N, chosen from the site's centre")
    assert site_working_crs(FAKE, "tm", {"parcels": parcels}, "deg", None) is None


def test_other_roles_are_built_only_when_neither_parcels_nor_plan_locate_the_site() -> None:
    built: list[str] = []

    def layer(role: str) -> FeatureLayer:
        built.append(role)
        return FeatureLayer.from_sequences(role, [box(-73.8, 43.4, -73.6, 43.6)] if role != "parcels" else [])

    assert roles_lonlat(FAKE, ["parcels", "devices", "wetlands"], layer, "deg", None) == pytest.approx((-73.7, 43.5))
    assert built == ["parcels", "devices"]


def test_the_mean_of_the_boxes_centres() -> None:
    assert boxes_lonlat(FAKE, [((0, 0, 2, 2), "deg"), ((2, 2, 4, 4), "deg"), ((np.nan, 0, 1, 1), "deg")]) == (2.0, 2.0)
    assert boxes_lonlat(FAKE, []) is None


def test_the_words_for_findings_json_with_and_without_an_identifier() -> None:
    assert working_crs_text("NAD83 / UTM zone 18N", "EPSG:26918", "the DEM's CRS", 0.9997441) == (
        "NAD83 / UTM zone 18N (EPSG:26918), the DEM's CRS; distances on the ellipsoid (grid scale factor 0.999744)")
    assert working_crs_text("custom", "", "the DEM's CRS", 1.0) == "custom, the DEM's CRS; distances on the ellipsoid (grid scale factor 1.000000)"


def test_feet_per_unit_at_the_site() -> None:
    m = site_measure(FAKE, "ft", "the DEM's CRS", {}, None)
    assert (m.scale, m.unit_to_ft) == (1.0, 1.0)
    assert m.crs_name.startswith("name of ft, the DEM's CRS;")


def test_the_area_crs_is_the_first_projected_else_the_zone_of_the_first_box() -> None:
    assert area_crs(FAKE, [((0, 0, 1, 1), "deg"), ((0, 0, 1, 1), "albers")]) == "albers"
    assert area_crs(FAKE, [((-74.0, 43.0, -73.0, 44.0), "deg")]) == "EPSG:32618"
