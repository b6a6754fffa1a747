"""The packaged zip: layout, and loading it through qgis.utils from a fresh plugins folder."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO


def _package_module():
    spec = importlib.util.spec_from_file_location("package_plugin", REPO / "scripts" / "package_plugin.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def plugin_zip(tmp_path_factory):
    return _package_module().build(tmp_path_factory.mktemp("dist"))


def test_zip_layout(plugin_zip):
    names = zipfile.ZipFile(plugin_zip).namelist()
    assert plugin_zip.name.startswith("stormwater_plugin-") and plugin_zip.suffix == ".zip"
    assert {n.split("/")[0] for n in names} == {"stormwater_plugin"}
    for required in ("stormwater_plugin/__init__.py", "stormwater_plugin/metadata.txt", "stormwater_plugin/resources/icon.svg",
                     "stormwater_plugin/resources/styles/findings_lines.qml", "stormwater_plugin/core/packs/lgpc.json",
                     "stormwater_plugin/processing/provider.py"):
        assert required in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc") or "/demo/" in n or "/tests/" in n]
    meta = zipfile.ZipFile(plugin_zip).read("stormwater_plugin/metadata.txt").decode()
    assert "icon=resources/icon.svg" in meta


def test_zip_carries_only_what_the_plugin_imports(plugin_zip):
    """No command line or headless edge (geopandas, rasterio) in the plugin; every packaged module's own imports are packaged too."""
    names = set(zipfile.ZipFile(plugin_zip).namelist())
    assert not [n for n in names if n.startswith("stormwater_plugin/headless/") or n in ("stormwater_plugin/cli.py", "stormwater_plugin/__main__.py")]
    assert "stormwater_plugin/core/packs/accuracy.json" in names and "stormwater_plugin/report/templates/report.html.j2" in names
    pp = _package_module()
    pkg = pp.ROOT / "stormwater_plugin"
    for path in pp.plugin_modules(pkg):
        for dotted in pp._imports(path, pkg):
            f = pp._module_file(pkg, dotted)
            if f is not None:
                assert f"stormwater_plugin/{f.relative_to(pkg).as_posix()}" in names, (path, dotted)


def test_zip_carries_every_rule_kind_handler(plugin_zip):
    """The engine loads each kind's handler by name (core/kinds.py), which no import names: every one is in the zip."""
    from stormwater_plugin.core.kinds import KINDS, handler_path

    names = set(zipfile.ZipFile(plugin_zip).namelist())
    modules = {handler_path(k)[0] for k in KINDS if handler_path(k) is not None}
    assert modules
    missing = sorted(m for m in modules if f"{m.replace('.', '/')}.py" not in names)
    assert missing == []


def _load_in_fresh_python(plugin_zip, tmp_path, **env_extra):
    plugins = tmp_path / "plugins"
    with zipfile.ZipFile(plugin_zip) as zf:
        zf.extractall(plugins)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["QT_QPA_PLATFORM"] = "offscreen"
    env.update(env_extra)
    proc = subprocess.run([sys.executable, str(Path(__file__).with_name("zip_loader.py")), str(plugins)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert line, proc.stdout + proc.stderr
    return plugins, json.loads(line[len("RESULT "):])


def test_zip_loads_through_qgis_utils(plugin_zip, tmp_path):
    plugins, out = _load_in_fresh_python(plugin_zip, tmp_path)
    assert out["problem"] is None
    assert out["available"] and out["loaded"] and out["started"], out
    assert out["module_file"].startswith(str(plugins)), out
    assert out["resources_dir"] == str(plugins / "stormwater_plugin" / "resources")
    assert out["icon_exists"]
    assert out["algorithms"] == ["checksiteplan", "comparereviews", "notificationlist", "setbackzones", "sitingenvelope", "slopeover100ft"]
    assert out["dock"] and out["unloaded"] and not out["provider_after_unload"]


def test_zip_loads_without_shapely_and_says_so(plugin_zip, tmp_path):
    """No shapely: the plugin still starts, names the package, registers nothing that would fail."""
    _, out = _load_in_fresh_python(plugin_zip, tmp_path, SW_BLOCK_SHAPELY="1")
    assert out["loaded"] and out["started"], out
    assert "shapely" in out["problem"] and "version 2" in out["problem"] and "pip install" in out["problem"]
    assert out["algorithms"] == [] and not out["dock"] and not out["shapely_imported"]
    assert out["unloaded"]
