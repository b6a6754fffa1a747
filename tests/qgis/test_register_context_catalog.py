"""Issue 36 item 5: a register's ``context`` may be a context catalog (as on the command line); any error in it is said."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import DEMO_GPKG
from qgis.core import QgsProject

from stormwater_plugin.services.register import Register

pytestmark = pytest.mark.skipif(not DEMO_GPKG.is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")


@pytest.fixture()
def register_with(iface, qgis_new_project, tmp_path):
    from stormwater_plugin.gui.dock import ReviewDock

    def make(catalog: object):
        folder = tmp_path / "reg"
        (folder / "A").mkdir(parents=True)
        shutil.copy2(DEMO_GPKG, folder / "A" / "site.gpkg")
        shutil.copy2(DEMO_GPKG, folder / "county.gpkg")
        (folder / "catalog.json").write_text(json.dumps(catalog), encoding="utf-8")
        reg = Register.create(folder, context="catalog.json")
        from stormwater_plugin.services.register import Application

        reg.add(Application(id="A", jurisdiction="lake-george", package="A/site.gpkg"))
        reg.save()
        dock = ReviewDock(iface)
        messages: list[str] = []
        dock.message = lambda text, *a, **k: messages.append(text)
        dock.register_panel.open_register(folder)
        made.append(dock)
        return dock, messages

    made: list = []
    yield make
    for d in made:
        d.teardown()
    QgsProject.instance().removeAllMapLayers()
    QgsProject.instance().clear()


def test_a_catalog_context_loads_its_sources_with_their_filter(register_with):
    catalog = {"town": "Lake George", "sources": [
        {"name": "county wetlands", "path": "county.gpkg", "layer": "wetlands", "role": "wetlands", "status": "regulatory", "authority": "County", "date": "2024"},
        {"name": "tax parcels", "path": "county.gpkg", "layer": "parcels", "role": "parcels", "status": "informational", "where": "1 = 0", "authority": "County", "date": "2024"},
    ]}
    dock, messages = register_with(catalog)
    assert dock.register_panel.step(1) is not None
    names = {lyr.name() for lyr in QgsProject.instance().mapLayers().values()}
    assert {"wetlands (context)", "parcels (context)"} <= names
    parcels = QgsProject.instance().mapLayersByName("parcels (context)")[0]
    assert parcels.subsetString() == "1 = 0" and sum(1 for _ in parcels.getFeatures()) == 0
    assert not [m for m in messages if "context catalog" in m]


def test_an_invalid_catalog_is_said_not_ignored(register_with):
    dock, messages = register_with({"town": "Lake George", "sources": [{"name": "x", "path": "county.gpkg", "role": "wetland", "status": "regulatory"}]})
    assert dock.register_panel.step(1) is not None
    assert any("catalog.json: " in m and "unknown role 'wetland'" in m and "no context layer was loaded" in m for m in messages), messages


def test_a_missing_catalog_source_is_said(register_with):
    dock, messages = register_with({"town": "Lake George", "sources": [
        {"name": "county wetlands", "path": "gone.gpkg", "layer": "wetlands", "role": "wetlands", "status": "regulatory", "authority": "County", "date": "2024"}]})
    assert dock.register_panel.step(1) is not None
    assert any("county wetlands" in m and "cannot be read" in m for m in messages), messages
