"""Role guessing from layer names, fields and geometry types (no QGIS)."""

from stormwater_plugin.services.role_guess import LayerInfo, guess_roles, score, tokens


def test_tokens_split_names():
    assert tokens("Dry_Wells (2024)") == ["dry", "wells", "2024"]
    assert tokens("buildingSites") == ["building", "sites"]


def test_exact_role_names_win():
    infos = [LayerInfo(r, r, (), g) for r, g in (("parcels", "polygon"), ("wells", "point"), ("streams", "line"), ("building_sites", "polygon"))]
    out = guess_roles(infos)
    assert out["parcels"] == "parcels" and out["wells"] == "wells" and out["streams"] == "streams" and out["building_sites"] == "building_sites"
    assert out["wetlands"] is None


def test_nys_parcel_fields_identify_parcels_whatever_the_name():
    infos = [LayerInfo("a", "Warren_2023", ("PRINT_KEY", "SBL", "PRMY_OWNER", "MAIL_ADDR"), "polygon"), LayerInfo("b", "Layer 2", ("foo",), "polygon")]
    assert guess_roles(infos)["parcels"] == "a"


def test_dry_wells_are_devices_not_wells():
    infos = [LayerInfo("dw", "Proposed dry wells", (), "point"), LayerInfo("w", "Water supply wells", (), "point")]
    out = guess_roles(infos)
    assert out["devices"] == "dw"
    assert out["wells"] == "w"
    assert score("wells", infos[0]) == 0


def test_geometry_type_must_fit():
    # a point layer named "wetlands" cannot be the wetlands polygons
    assert score("wetlands", LayerInfo("x", "wetlands", (), "point")) == 0
    assert guess_roles([LayerInfo("x", "wetlands", (), "point")])["wetlands"] is None


def test_mixed_geometry_layers_fit_roles_that_take_several_types():
    info = LayerInfo("d", "devices", ("device_type",), "mixed")
    assert guess_roles([info])["devices"] == "d"
    assert score("parcels", LayerInfo("p", "parcels", (), "mixed")) == 0


def test_each_layer_used_once_best_match_first():
    infos = [LayerInfo("lake", "Lake George", (), "polygon"), LayerInfo("shore", "Lake George shoreline MHW", (), "line")]
    out = guess_roles(infos)
    assert out["waterbodies"] == "lake"
    assert out["shoreline"] == "shore"


def test_fields_alone_identify_devices_and_soils():
    infos = [LayerInfo("d", "proposed", ("device_type", "storage_gal"), "polygon"), LayerInfo("s", "ssurgo export", ("MUKEY", "hydgrp"), "polygon")]
    out = guess_roles(infos)
    assert out["devices"] == "d" and out["soils"] == "s"


def test_unrelated_layers_are_left_out():
    out = guess_roles([LayerInfo("o", "OpenStreetMap", (), "")])
    assert all(v is None for v in out.values())


def test_result_layers_are_never_guessed():
    """The plugin's own output ("35 ft no-cut buffer", "Siting envelope — dry well") is never an input role."""
    infos = [LayerInfo("buf", "Clearing", (), "polygon", result=True), LayerInfo("env", "Siting envelope — dry well", ("device_type",), "polygon", result=True)]
    out = guess_roles(infos)
    assert out["clearing"] is None and out["devices"] is None


def test_osm_style_water_names_are_recognised():
    infos = [LayerInfo("ww", "waterway", (), "line"), LayerInfo("cr", "Creeks", (), "line"), LayerInfo("nw", "natural=water", (), "polygon")]
    out = guess_roles(infos)
    assert out["streams"] in {"ww", "cr"}
    assert out["waterbodies"] == "nw"
    assert score("streams", infos[1]) >= 20 and score("streams", infos[0]) >= 20


def test_existing_buildings_are_not_proposed_building_sites():
    for name in ("buildings", "Existing structures", "OSM buildings", "Building footprints"):
        assert score("building_sites", LayerInfo("b", name, (), "polygon")) == 0, name
    assert score("building_sites", LayerInfo("b", "Proposed buildings", (), "polygon")) > 0
    assert guess_roles([LayerInfo("bs", "building_sites", (), "point")])["building_sites"] == "bs"
