"""Five applications in a register: the demo and four variants of it, each with its own settings.

DW-1 moved 15 ft west clear of S-1 (its 14 ft move: 6 ft as drawn plus a dry well point's 8 ft reach), removed,
renamed; IT-1 moved.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.headless.sitefiles import edit_layer

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo"
FT_PER_M = 1 / 0.3048
SITE = "171.15-1-23"

#: Per-application settings; a field left out is empty in the register (and must be empty in the dock).
APPS = {
    "SW-2026-001": dict(applicant="J. Doe", address="12 Lake Rd", reviewer="A. Reviewer", reference="REF-001", dem_z_units="m",
                        accuracy="septic=10", device_type="infiltration_trench", status="under review"),
    "SW-2026-002": dict(applicant="K. Roe", address="14 Lake Rd", reviewer="B. Other", dem_z_units="ft", project_class="minor",
                        site_parcel=SITE, dem_accuracy_ft="0.5", status="received"),
    "SW-2026-003": dict(applicant="L. Poe", reference="REF-003", dem_z_units="us-ft", device_type="porous_pavement", status="incomplete"),
    "SW-2026-004": dict(applicant="M. Moe", reviewer="C. Third", project_class="major", accuracy="wells=15", status="received"),
    "SW-2026-005": dict(applicant="N. Noe", dem_z_units="m", site_parcel=SITE, status="comments sent"),
}


_edit = edit_layer


def _move(dev: str, dx_ft: float):
    def fn(f):
        if f["properties"]["id"] != dev:
            return f
        g = f["geometry"]
        if g["type"] != "Point":
            return f
        x, y = g["coordinates"]
        return {"geometry": {"type": "Point", "coordinates": (x + dx_ft / FT_PER_M, y)}, "properties": dict(f["properties"])}

    return fn


def _remove(dev: str):
    return lambda f: None if f["properties"]["id"] == dev else f


def _rename(dev: str, new: str):
    def fn(f):
        if f["properties"]["id"] != dev:
            return f
        return {"geometry": f["geometry"], "properties": {**dict(f["properties"]), "id": new}}

    return fn


EDITS = {
    "SW-2026-001": (),
    "SW-2026-002": (("devices", _move("DW-1", -15.0)),),
    "SW-2026-003": (("devices", _remove("DW-1")),),
    "SW-2026-004": (("devices", _rename("DW-1", "DW-9")),),
    "SW-2026-005": (("devices", _move("IT-1", -25.0)),),
}


def make_register(folder: Path) -> Path:
    """The register folder with five packages (each its own copy of the demo) and the demo DEM."""
    from stormwater_plugin.services.register import Application, Register

    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy2(DEMO / "dem.tif", folder / "dem.tif")
    reg = Register.create(folder, town="Town of Lake George")
    for app_id, kw in APPS.items():
        (folder / app_id).mkdir()
        gpkg = folder / app_id / "site.gpkg"
        shutil.copy2(DEMO / "site.gpkg", gpkg)
        for layer, fn in EDITS[app_id]:
            _edit(gpkg, layer, fn)
        reg.add(Application(id=app_id, jurisdiction="lake-george", package=f"{app_id}/site.gpkg", dem="dem.tif", received="2026-02-01", **kw))
    reg.save()
    return folder


def forbid_file_dialogs(monkeypatch) -> None:
    """Make any file dialog fail the test: the register's steps must never ask (a dialog would wait for a click)."""
    from qgis.PyQt.QtWidgets import QFileDialog

    def no_dialog(*_a, **_k):
        raise AssertionError("a file dialog was opened")

    for name in ("getExistingDirectory", "getOpenFileName", "getSaveFileName"):
        monkeypatch.setattr(QFileDialog, name, staticmethod(no_dialog))
