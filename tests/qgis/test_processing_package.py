"""Issue 24 item 9: "Check site plan" reads a site package (one GeoPackage, roles by layer name), so a batch row is one cell."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import DEMO_DEM, DEMO_GPKG

REPO = Path(__file__).resolve().parents[2]


def _demo() -> tuple[Path, Path]:
    if not DEMO_GPKG.is_file() or not DEMO_DEM.is_file():
        pytest.skip("resources/demo/site.gpkg or dem.tif does not exist yet (built by scripts/make_demo_site.py)")
    return DEMO_GPKG, DEMO_DEM


def _counts(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))["counts"]


def test_site_package_gives_the_same_findings_as_its_thirteen_layers(provider, tmp_path):
    import processing
    from qgis.core import QgsVectorLayer

    from stormwater_plugin.core.roles import ROLES

    gpkg, dem = _demo()
    common = {"DEM": str(dem), "Z_UNITS": 1, "FINDINGS": "memory:"}
    by_package = processing.run("stormwater_review:checksiteplan", {**common, "SITE_PACKAGE": str(gpkg), "OUTPUT_JSON": str(tmp_path / "a.json")})
    layers = {r.upper(): f"{gpkg}|layername={r}" for r in ROLES if QgsVectorLayer(f"{gpkg}|layername={r}", r, "ogr").isValid()}
    assert len(layers) == len(ROLES)
    by_layers = processing.run("stormwater_review:checksiteplan", {**common, **layers, "OUTPUT_JSON": str(tmp_path / "b.json")})
    assert _counts(tmp_path / "a.json") == _counts(tmp_path / "b.json")
    for key in ("VIOLATIONS", "UNDETERMINED", "ADVISORIES", "PASSES"):
        assert by_package[key] == by_layers[key]
    assert by_package["PASSES"] > 0


def test_a_role_parameter_wins_over_the_package_layer_of_that_role(provider, tmp_path):
    import processing

    gpkg, dem = _demo()
    common = {"DEM": str(dem), "Z_UNITS": 1, "FINDINGS": "memory:", "SITE_PACKAGE": str(gpkg)}
    processing.run("stormwater_review:checksiteplan", {**common, "OUTPUT_JSON": str(tmp_path / "whole.json")})
    # the wells role given as another layer (the shoreline): the package's four wells are not read
    processing.run("stormwater_review:checksiteplan", {**common, "WELLS": f"{gpkg}|layername=shoreline", "OUTPUT_JSON": str(tmp_path / "w.json")})
    whole = json.loads((tmp_path / "whole.json").read_text())
    swapped = json.loads((tmp_path / "w.json").read_text())
    def wells(doc: dict) -> set:
        return {str(ref.get("id")) for f in doc["findings"] for ref in (f.get("subject"), f.get("other")) if ref and ref.get("layer") == "wells"}

    assert wells(whole)  # the package's wells are checked when no wells layer is given
    assert not wells(swapped) & wells(whole)


def test_package_layer_named_after_a_role_with_a_suffix_is_refused_not_skipped(provider, tmp_path):
    import processing
    from qgis.core import QgsProcessingException, QgsVectorFileWriter, QgsVectorLayer

    gpkg, dem = _demo()
    copy = tmp_path / "site.gpkg"
    shutil.copy(gpkg, copy)
    wells = QgsVectorLayer(f"{gpkg}|layername=wells", "wells", "ogr")
    opts = QgsVectorFileWriter.SaveVectorOptions()
    opts.layerName = "wells_existing"
    opts.actionOnExistingFile = QgsVectorFileWriter.ActionOnExistingFile.CreateOrOverwriteLayer
    from qgis.core import QgsProject

    err = QgsVectorFileWriter.writeAsVectorFormatV2(wells, str(copy), QgsProject.instance().transformContext(), opts)
    assert err[0] == QgsVectorFileWriter.WriterError.NoError, err
    del wells  # a layer left to the interpreter's exit outlives QGIS and crashes the process there
    message = ""
    try:
        processing.run("stormwater_review:checksiteplan", {"DEM": str(dem), "Z_UNITS": 1, "FINDINGS": "memory:", "SITE_PACKAGE": str(copy)})
    except QgsProcessingException as exc:
        message = str(exc)  # the message only: the exception's frames hold the algorithm's context and layers
    assert "wells_existing" in message


def test_notification_list_requires_parcels_as_a_layer_or_in_the_package(provider, tmp_path):
    import processing
    from qgis.core import QgsProcessingException

    gpkg, dem = _demo()
    with pytest.raises(QgsProcessingException, match="parcels"):
        processing.run("stormwater_review:notificationlist", {"DEVICES": f"{gpkg}|layername=devices", "OUTPUT": "memory:"})


def _qgis_process() -> str | None:
    for path in ("/usr/bin/qgis_process.bin", "/usr/bin/qgis_process"):
        if os.access(path, os.X_OK):
            return path
    return None


@pytest.mark.skipif(_qgis_process() is None, reason="needs qgis_process")
def test_qgis_process_checks_a_site_package_given_as_one_parameter(tmp_path):
    import shapely

    gpkg, dem = _demo()
    profile = tmp_path / "home" / ".local/share/QGIS/QGIS3/profiles/default"
    plugin = profile / "python/plugins/stormwater_plugin"
    plugin.mkdir(parents=True)
    for entry in (REPO / "stormwater_plugin").iterdir():
        (plugin / entry.name).symlink_to(entry)
    (plugin / "metadata.txt").symlink_to(REPO / "metadata.txt")
    (profile / "QGIS").mkdir()
    (profile / "QGIS" / "QGIS3.ini").write_text("[PythonPlugins]\nstormwater_plugin=true\n")
    site_packages = str(Path(shapely.__file__).resolve().parents[1])  # the shapely these tests run with
    env = dict(os.environ, HOME=str(tmp_path / "home"), QT_QPA_PLATFORM="offscreen", PYTHONPATH=site_packages)
    env.pop("QGIS_CUSTOM_CONFIG_PATH", None)
    out_json = tmp_path / "findings.json"
    run = subprocess.run([_qgis_process(), "run", "stormwater_review:checksiteplan", "--", f"SITE_PACKAGE={gpkg}", f"DEM={dem}", "Z_UNITS=1",
                          f"FINDINGS={tmp_path / 'f.gpkg'}", f"OUTPUT_JSON={out_json}"], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    counts = _counts(out_json)
    assert sum(counts.values()) > 0 and counts["pass"] > 0
    assert "VIOLATIONS:" in run.stdout
