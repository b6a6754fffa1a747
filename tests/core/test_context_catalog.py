"""The town's context catalog: parsed and validated from a dict (issue 27)."""

from __future__ import annotations

import datetime as dt

import pytest

from stormwater_plugin.services.context_catalog import CatalogError, Hint, parse_catalog


def _src(**kw):
    base = {"path": "parcels.shp", "role": "parcels", "authority": "NYS ITS", "date": "2018", "status": "informational"}
    base.update(kw)
    return base


def test_catalog_of_statewide_sources_maps_each_to_its_role():
    c = parse_catalog(
        {
            "town": "Bolton",
            "sources": [
                _src(hints={"septic": {"field": "SEWER_DESC", "values": ["Private"]}}),
                _src(name="NHD flowlines", path="NHD.gdb", layer="NHDFlowline", role="streams", where="FType IN (460, 558)",
                     fields={"class": "WQ_CLASS"}, authority="USGS", date="2023-05"),
                _src(name="DEC wetlands", path="dec.shp", role="wetlands", authority="NYSDEC", date="2001", status="regulatory", old_after_years=10),
                _src(name="lidar", path="tiles/*.tif", role="dem", z_units="m", authority="NYS GIS", date="2022"),
            ],
        }
    )
    assert c.roles() == ("parcels", "wetlands", "streams", "dem")
    streams = c.for_role("streams")[0]
    assert streams.where == "FType IN (460, 558)" and dict(streams.fields) == {"class": "WQ_CLASS"}
    assert c.for_role("parcels")[0].hints == (Hint("septic", "SEWER_DESC", ("Private",)),)
    dec = c.for_role("wetlands")[0]
    assert "NYSDEC" in dec.describe() and "2001" in dec.describe() and "regulatory" in dec.describe()
    assert "25 years old" in (dec.age_note(dt.date(2026, 1, 1)) or "")
    assert c.for_role("dem")[0].is_raster


def test_tax_roll_hint_matches_private_whatever_its_case_and_blanks():
    h = Hint("septic", "SEWER_DESC", ("Private",))
    assert h.matches(" PRIVATE ") and not h.matches("Comm/public") and not h.matches(None)


@pytest.mark.parametrize(
    "bad, words",
    [
        ({"town": "X", "sources": []}, "non-empty"),
        ({"town": "X", "sources": [_src(role="roads")]}, "unknown role 'roads'"),
        ({"town": "X", "sources": [_src(status="maybe")]}, "status"),
        ({"town": "X", "sources": [_src(authority=None)]}, "'authority' is required"),
        ({"town": "X", "sources": [_src(date="May 2001")]}, "YYYY"),
        ({"town": "X", "sources": [_src(wher="FType = 460")]}, "unknown key(s) wher"),
        ({"town": "X", "sources": [_src(role="streams", hints={"septic": {"field": "S", "values": ["P"]}})]}, "belong to a parcels source"),
        ({"town": "X", "sources": [_src(role="dem", z_units="yards")]}, "z_units"),
        ({"town": "X", "sources": [_src(), _src()]}, "unique"),
        ({"town": "X", "sources": [_src(fields={"class": 3})]}, "'fields'"),
    ],
)
def test_invalid_catalog_is_refused_naming_the_source_and_key(bad, words):
    with pytest.raises(CatalogError, match=None) as exc:
        parse_catalog(bad)
    assert words in str(exc.value)
