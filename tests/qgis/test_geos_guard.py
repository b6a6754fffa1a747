"""Issue 24 item 1: a shapely whose wheel carries another GEOS than QGIS's never reaches a geometry call.

QGIS (the desktop and ``qgis_process``) loads its GEOS for the whole process; a pip
shapely 2.1/2.2 then resolves GEOS's C++ symbols to it and the first prepared
geometry call dies (signal 11). The plugin decides from file names and versions
(nothing is called) and refuses with one message naming the install command.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from stormwater_plugin.qgis_bridge import deps

REPO = Path(__file__).resolve().parents[2]
QGIS_GEOS_311 = (3, 11, 1)


def _wheel(tmp_path: Path, libs: list[str]) -> Path:
    package = tmp_path / "site" / "shapely"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    folder = tmp_path / "site" / "shapely.libs"
    folder.mkdir()
    for name in libs:
        (folder / name).write_bytes(b"")
    return package


def test_bundled_geos_version_is_read_from_the_wheel_library_name(tmp_path):
    package = _wheel(tmp_path, ["libgeos-d1e818bb.so.3.14.1", "libgeos_c-ac38a227.so.1.20.5"])
    facts = deps.shapely_facts(package, "2.2.0")
    assert facts.bundled_geos == (3, 14, 1)
    assert facts.version == "2.2.0"


def test_shapely_built_on_the_system_geos_carries_none(tmp_path):
    package = tmp_path / "shapely"
    package.mkdir()
    assert deps.shapely_facts(package, "2.0.7").bundled_geos is None


@pytest.mark.parametrize("version, geos", [("2.2.0", (3, 14, 1)), ("2.1.2", (3, 13, 1))])
def test_shapely_wheel_with_another_geos_minor_is_refused_beside_qgis_geos_3_11(version, geos):
    facts = deps.ShapelyFacts(version, "/somewhere/shapely", geos)
    text = deps.geos_problem(facts, QGIS_GEOS_311, "linux", global_geos=True)
    assert text is not None
    assert f"shapely {version}" in text and "GEOS 3.11.1" in text
    assert 'pip install --no-deps --upgrade --target ' in text and '"shapely>=2,<2.1"' in text
    assert "--break-system-packages" not in text


def test_shapely_2_0_wheel_with_geos_3_11_4_runs_beside_qgis_geos_3_11_1():
    facts = deps.ShapelyFacts("2.0.7", "/somewhere/shapely", (3, 11, 4))
    assert deps.geos_problem(facts, QGIS_GEOS_311, "linux", global_geos=True) is None


def test_system_built_shapely_and_a_private_qgis_geos_are_not_refused():
    assert deps.geos_problem(deps.ShapelyFacts("2.0.7", "/x", None), QGIS_GEOS_311, "linux", global_geos=True) is None
    # a Python that imported qgis.core holds QGIS's GEOS privately: no clash (the engine tests run so)
    assert deps.geos_problem(deps.ShapelyFacts("2.2.0", "/x", (3, 14, 1)), QGIS_GEOS_311, "linux", global_geos=False) is None


def test_windows_and_macos_are_not_refused_and_their_hints_say_untested():
    facts = deps.ShapelyFacts("2.2.0", "/x", (3, 14, 1))
    for platform in ("win32", "darwin"):
        assert deps.geos_problem(facts, QGIS_GEOS_311, platform, global_geos=True) is None
        assert "untested" in deps.INSTALL_HINTS[platform]


def test_debian_13_geos_3_13_names_apt_and_a_geos_without_wheel_names_a_source_build():
    assert "sudo apt install python3-shapely" in deps.install_command((3, 13, 1), "linux")
    assert "--no-binary shapely" in deps.install_command((3, 12, 2), "linux")


def _matrix_site(version: str) -> Path | None:
    venv = REPO / ".matrix" / f"shapely-{version}"
    found = sorted(venv.glob("lib/python3*/site-packages"))
    return found[0] if found and (found[0] / "shapely.libs").is_dir() else None


def _qgis_process() -> str | None:
    for path in ("/usr/bin/qgis_process.bin", "/usr/bin/qgis_process"):
        if os.access(path, os.X_OK):
            return path
    return None


@pytest.mark.skipif(_matrix_site("2.2.0") is None, reason="run scripts/qgis_shapely_matrix.sh once (it installs pip's shapely 2.2.0 in .matrix/)")
def test_the_crash_the_guard_prevents_is_real_with_qgis_geos_loaded_globally():
    code = ("import ctypes; ctypes.CDLL('libgeos_c.so.1', mode=ctypes.RTLD_GLOBAL)\n"
            "import shapely; from shapely.geometry import box\n"
            "p = box(0, 0, 10, 10); shapely.prepare(p); print(shapely.contains_xy(p, 5, 5))\n")
    env = dict(os.environ, PYTHONPATH=str(_matrix_site("2.2.0")))
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=120)
    assert run.returncode == -11  # signal 11: why the plugin must refuse before any geometry call


@pytest.mark.skipif(_matrix_site("2.2.0") is None or _qgis_process() is None, reason="needs qgis_process and .matrix/shapely-2.2.0")
def test_qgis_process_with_pip_shapely_2_2_refuses_with_one_message_instead_of_crashing(tmp_path):
    profile = tmp_path / "home" / ".local/share/QGIS/QGIS3/profiles/default"
    plugin = profile / "python/plugins/stormwater_plugin"
    plugin.mkdir(parents=True)
    for entry in (REPO / "stormwater_plugin").iterdir():
        (plugin / entry.name).symlink_to(entry)
    (plugin / "metadata.txt").symlink_to(REPO / "metadata.txt")
    (profile / "QGIS").mkdir()
    (profile / "QGIS" / "QGIS3.ini").write_text("[PythonPlugins]\nstormwater_plugin=true\n")
    demo = REPO / "resources" / "demo"
    env = dict(os.environ, HOME=str(tmp_path / "home"), QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(_matrix_site("2.2.0")))
    env.pop("QGIS_CUSTOM_CONFIG_PATH", None)  # pytest-qgis's own profile folder would hide the one made here
    run = subprocess.run([_qgis_process(), "run", "stormwater_review:checksiteplan", "--", f"DEVICES={demo / 'site.gpkg'}|layername=devices",
                          f"PARCELS={demo / 'site.gpkg'}|layername=parcels", f"FINDINGS={tmp_path / 'f.gpkg'}"],
                         env=env, capture_output=True, text=True, timeout=600)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert out.count("cannot share one process") == 1, out
    assert '"shapely>=2,<2.1"' in out


def test_missing_reportlab_is_said_with_its_install_command(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "reportlab" else real(name, *a))
    text = deps.reportlab_problem()
    assert text is not None and "reportlab" in text
    assert deps.REPORTLAB_HINTS["linux"] in text or "untested" in text


def test_no_install_route_needs_break_system_packages():
    """Debian's own shapely 2, or pip's --target into the QGIS profile's python folder (which pip allows under
    Debian's externally managed Python and QGIS reads first): never --break-system-packages."""
    texts = [*deps.INSTALL_HINTS.values(), *(deps.install_command(g, "linux", "~/p") for g in [(3, 11, 1), (3, 13, 1), (3, 15, 0), None])]
    assert not [t for t in texts if "break-system-packages" in t]
    assert "--target ~/.local/share/QGIS/QGIS3/profiles/default/python" in deps.INSTALL_HINTS["linux"].replace("{profile_python}", deps.DEFAULT_PROFILE_PYTHON)
    assert "--target ~/p " in deps.install_command((3, 11, 1), "linux", "~/p")


def test_the_profile_folder_is_this_qgis_profiles_python_folder(qgis_app):
    from qgis.core import QgsApplication

    folder = deps.profile_python_dir()
    expected = str(Path(QgsApplication.qgisSettingsDirPath()) / "python")
    assert folder.strip('"').replace("$HOME", str(Path.home())).replace("~", str(Path.home()), 1) == expected


def test_a_shapely_2_whose_version_says_nothing_is_taken_by_its_api():
    """Debian unstable's python3-shapely 2.2.0 reports __version__ '0+unknown': shapely 2's API decides."""
    from types import SimpleNamespace

    assert deps.is_shapely_2(SimpleNamespace(__version__="0+unknown", from_wkb=len, geos_version=(3, 15, 0)))
    assert not deps.is_shapely_2(SimpleNamespace(__version__="0+unknown"))
    assert deps.is_shapely_2(SimpleNamespace(__version__="2.0.7")) and not deps.is_shapely_2(SimpleNamespace(__version__="1.8.5", geos_version=(3, 11, 1)))
