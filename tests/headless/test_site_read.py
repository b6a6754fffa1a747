"""The one read of a site (services.site_read) against a backend's layers: the decisions both adapters now share.

A fake backend in local feet (one CRS, nothing moved) holds the layers as plain lists, so each decision of the read is
tested apart from fiona and QGIS: the ids and id fields, a shapefile's truncated field names, a role's sources merged,
and a plan lying off its parcel.
"""

from __future__ import annotations

from typing import Any

import pytest
from shapely.geometry import Point, box

from stormwater_plugin.services.backend import SourceInfo
from stormwater_plugin.services.placement import PLAN_OFF_PARCEL_FT, PlanOffParcel
from stormwater_plugin.services.site_read import read_site

from .local_backend import LocalFrame, LocalLayers


class _Layers(LocalLayers):
    """Each role's sources as (name, geometries, records), in one local CRS of feet."""

    def __init__(self, layers: dict[str, list[tuple[str, list[Any], list[dict[str, Any]]]]]) -> None:
        self._layers = layers

    def sources(self) -> dict[str, list[SourceInfo]]:
        return {role: [SourceInfo(role, f"{name}.shp", name, "local", "local feet", len(recs), list(recs[0]) if recs else [], None, True, name,
                                  handle=(geoms, recs)) for name, geoms, recs in srcs] for role, srcs in self._layers.items()}

    def fetch(self, source: SourceInfo, box: Any = None) -> LocalFrame:
        geoms, recs = source.handle
        return LocalFrame(list(geoms), [dict(r) for r in recs], list(source.columns))


PARCEL = box(0, 0, 100, 100)


def _read(layers: dict[str, list[tuple[str, list[Any], list[dict[str, Any]]]]], site: str | None = None):
    return read_site(_Layers(layers), None, site, None, None, []).inputs


@pytest.mark.parametrize(("fields", "expected"), [
    ({"id": "P-1", "PRINT_KEY": "171.15-1-23"}, "P-1"),
    ({"print_key": "171.15-1-23", "pin": "99"}, "171.15-1-23"),
    ({"SBL": "171.15-1-23"}, "171.15-1-23"),
    ({"parcel_id": "A-7", "pin": "99"}, "A-7"),
    ({"PIN": "99"}, "99"),
    ({"owner": "Hartwell"}, "1"),
    ({"id": "", "pin": "99"}, "1"),  # a blank id field names the feature by its position, as every blank id does
])
def test_a_parcel_is_named_by_id_then_print_key_sbl_parcel_id_pin_else_its_position(fields, expected):
    """One id rule for both readers: the plugin's parcel id fields (parcel_id, pin) joined the command line's (print key, SBL)."""
    assert _read({"parcels": [("parcels", [PARCEL], [fields])]}).layers["parcels"].ids == [expected]


def test_a_feature_without_an_id_field_is_named_by_its_position_from_1_and_a_second_source_after_its_layer():
    """Never by a library's own feature id (QGIS numbers a shapefile's features from 0): the file's order, from 1."""
    inputs = _read({"parcels": [("parcels", [PARCEL], [{"id": "P-1"}])],
                    "devices": [("points", [Point(10, 10), Point(20, 20)], [{"device_type": "dry_well"}] * 2),
                                ("polys", [box(30, 30, 31, 31)], [{"device_type": "infiltration_trench"}])]})
    assert inputs.layers["devices"].ids == ["1", "2", "polys:1"]


def test_a_shapefiles_truncated_device_typ_is_read_as_device_type_and_said():
    """A shapefile cuts field names at 10 characters; QGIS loads it with the same names, so both readers match them."""
    inputs = _read({"parcels": [("parcels", [PARCEL], [{"id": "P-1"}])],
                    "devices": [("devices", [Point(10, 10)], [{"id": "DW-1", "DEVICE_TYP": "dry_well", "BOTTOM_ELE": 98.5}])]})
    attrs = inputs.layers["devices"].attrs[0]
    assert attrs["device_type"] == "dry_well" and attrs["bottom_elev_ft"] == 98.5
    assert any(w.code == "fields_matched" and "'DEVICE_TYP' as 'device_type'" in w.message for w in inputs.warnings)


@pytest.mark.parametrize(("gap_ft", "refused"), [(PLAN_OFF_PARCEL_FT - 0.1, False), (PLAN_OFF_PARCEL_FT, False), (PLAN_OFF_PARCEL_FT + 0.1, True)])
def test_a_plan_lying_off_its_parcel_is_refused_by_the_read_itself(gap_ft, refused):
    """The read refuses a plan whose nearest feature lies more than PLAN_OFF_PARCEL_FT from its parcel, for every front end."""
    layers = {"parcels": [("parcels", [PARCEL], [{"id": "P-1"}])],
              "devices": [("devices", [Point(100 + gap_ft, 50)], [{"id": "DW-1", "device_type": "dry_well"}])]}
    if refused:
        with pytest.raises(PlanOffParcel, match="from parcel P-1"):
            _read(layers)
    else:
        assert _read(layers).layers["devices"].ids == ["DW-1"]
