"""The role contract (core/roles.py): each set holds the roles its name says, and the tables cover every role."""

from __future__ import annotations

import pytest

from stormwater_plugin.core import roles as R


def test_every_role_table_has_one_entry_per_role_of_the_contract():
    for table in (R.ROLE_NOUN, R.ROLE_GEOMETRIES, R.ROLE_FAMILY, R.LAYER_NAME_HINTS, R.FIELD_NAME_HINTS):
        assert tuple(table) == R.ROLES


@pytest.mark.parametrize("name", [n for n in R.__all__ if n.endswith("_ROLES")])
def test_every_role_set_names_roles_of_the_contract_once(name):
    value = getattr(R, name)
    members = list(value.values()) if isinstance(value, dict) else list(value)
    extra = {"dem"} if name == "CATALOG_ROLES" else set()
    assert set(members) <= set(R.ROLES) | extra
    assert isinstance(value, (dict, frozenset)) or len(members) == len(set(members))


def test_the_one_family_of_a_role_is_its_only_accepted_geometry():
    assert R.ROLE_FAMILY == {
        "parcels": "polygon", "building_sites": None, "devices": None, "wells": None, "septic": None, "wetlands": "polygon", "shoreline": None,
        "waterbodies": "polygon", "streams": None, "clearing": "polygon", "disturbance": "polygon", "impervious": "polygon", "soils": "polygon",
    }


def test_the_sets_hold_the_roles_they_held_where_they_were_stated_before():
    """Pinned: gathering the sets in one module changed none of them (order kept where a caller reads it in order)."""
    assert R.PLAN_ROLES == ("building_sites", "devices", "clearing", "disturbance", "impervious")
    assert R.PLAN_OBJECT_ROLES == ("devices", "building_sites")
    assert R.SHARED_ROLES == ("parcels", "wells", "septic", "wetlands", "shoreline", "waterbodies", "streams", "soils")
    assert R.CONTEXT_ROLES == ("wells", "septic", "wetlands", "shoreline", "waterbodies", "streams", "soils")
    assert set(R.TERRAIN_EXTENT_ROLES) == {"devices", "building_sites", "septic", "wells", "clearing", "disturbance", "impervious"}
    assert R.AFFECTED_AREA_ROLES == ("disturbance", "clearing", "impervious")
    assert R.AREA_ONLY_ROLES == frozenset({"parcels", "clearing", "disturbance", "impervious", "soils"})
    assert set(R.POLYGON_ROLES) == {"parcels", "wetlands", "waterbodies", "clearing", "disturbance", "impervious", "soils"}
    assert set(R.FOOTPRINT_ROLES) == {"devices", "septic", "building_sites", "wells"}
    assert R.OPEN_WATER_ROLES == ("shoreline", "waterbodies", "streams")
    assert R.WATER_ROLES == ("shoreline", "waterbodies", "streams", "wetlands")
    assert R.LAWN_ROLES == ("clearing", "disturbance", "impervious")
    assert R.MUST_DRAW_ROLES == ("parcels", "devices")
    assert R.CATALOG_ROLES == R.ROLES + ("dem",)
    assert R.PARCEL_HINT_ROLES == {"septic": "septic", "wells": "wells"}


def test_the_plan_and_the_context_are_apart_and_the_parcels_are_neither():
    assert not set(R.PLAN_ROLES) & set(R.CONTEXT_ROLES)
    assert set(R.PLAN_ROLES) | set(R.CONTEXT_ROLES) | {"parcels"} == set(R.ROLES)
    assert set(R.PLAN_OBJECT_ROLES) <= set(R.PLAN_ROLES)
    assert set(R.AREA_ONLY_ROLES) <= set(R.POLYGON_ROLES)
