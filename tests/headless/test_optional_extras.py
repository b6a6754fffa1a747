"""Declared and true (issue 38 item 6): every library a command imports beyond the engine is declared in pyproject.toml, and
when one is missing the command ends in one line naming the extra to install, exit 2 (a missing module is simulated with
``sys.modules[name] = None``, which makes ``import name`` fail as it does where the library is not installed)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from stormwater_plugin.cli import main
from stormwater_plugin.services.optional import DISTRIBUTION, OPTIONAL, MissingLibrary, missing_message, require

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo"


def _hide(monkeypatch: pytest.MonkeyPatch, *modules: str, reload: tuple[str, ...] = ()) -> None:
    """Make each module (and every submodule already loaded) unimportable for the test; the project's modules in
    ``reload`` are imported afresh (so that their own imports meet the missing library)."""
    for name in reload:
        monkeypatch.delitem(sys.modules, name, raising=False)
    for name in list(sys.modules):
        if any(name == m or name.startswith(m + ".") for m in modules):
            monkeypatch.setitem(sys.modules, name, None)
    for m in modules:
        monkeypatch.setitem(sys.modules, m, None)


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in requirements}


@pytest.mark.parametrize("module", sorted(OPTIONAL))
def test_each_optional_library_is_declared_in_its_extra_or_the_core_dependencies(module):
    project = _pyproject()
    lib = OPTIONAL[module]
    declared = project["optional-dependencies"].get(lib.extra, []) if lib.extra else project["dependencies"]
    assert lib.distribution.lower() in _names(declared), (module, lib)


def test_the_extras_named_in_the_messages_are_the_ones_pyproject_declares():
    extras = set(_pyproject()["optional-dependencies"])
    assert {lib.extra for lib in OPTIONAL.values() if lib.extra} <= extras
    assert {"letter", "contours", "batch", "fast", "tiles"} <= extras


@pytest.mark.parametrize("module", sorted(OPTIONAL))
def test_require_names_the_extra_of_a_missing_library_on_one_line(monkeypatch, module):
    _hide(monkeypatch, module)
    with pytest.raises(MissingLibrary) as info:
        require(module, "the thing")
    text = str(info.value)
    lib = OPTIONAL[module]
    assert "\n" not in text and text.startswith(f"the thing needs {lib.distribution}: pip install ")
    if lib.extra:
        assert f'pip install "{DISTRIBUTION}[{lib.extra}]"' in text
    if lib.debian:
        assert f"apt-get install {lib.debian}" in text


def test_a_library_whose_own_dependency_is_missing_is_not_reported_as_an_extra(tmp_path, monkeypatch):
    (tmp_path / "brokenlib_for_test").mkdir()
    (tmp_path / "brokenlib_for_test" / "__init__.py").write_text("import no_such_module_anywhere_xyz\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as info:
        require("brokenlib_for_test", "the thing")
    assert not isinstance(info.value, MissingLibrary)


def test_a_module_the_table_does_not_know_is_named_as_it_is():
    assert missing_message("somelib", "the thing") == "the thing needs somelib: pip install somelib"


def _one_line(capsys: pytest.CaptureFixture[str], code: int, *words: str) -> str:
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert "Traceback" not in err and "bug" not in err, err
    assert all(w in err for w in words), err
    return err


@pytest.fixture(scope="module")
def review(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("review")
    assert main([str(DEMO / "site.gpkg"), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lgpc", "--out", str(out), "--quiet"]) in (0, 1)
    return out


def test_the_letter_without_python_docx_names_the_letter_extra(review, tmp_path, monkeypatch, capsys):
    _hide(monkeypatch, "docx")
    capsys.readouterr()
    err = _one_line(capsys, main(["letter", str(review), "--out", str(tmp_path / "letter.docx")]), '"stormwater-review[letter]"', "python-docx")
    assert err.startswith("stormwater-check letter: error: ") and len(err.splitlines()) == 1
    assert not (tmp_path / "letter.docx").exists()


def test_contours_dem_without_scipy_names_the_contours_extra(tmp_path, monkeypatch, capsys):
    from tests.headless.test_contours_dem import _package

    pkg = _package(tmp_path / "site.gpkg")
    _hide(monkeypatch, "scipy")
    err = _one_line(capsys, main(["contours-dem", str(pkg), "--out", str(tmp_path / "dem.tif")]), '"stormwater-review[contours]"', "scipy")
    assert err.startswith("stormwater-check contours-dem: error: ") and len(err.splitlines()) == 1


def test_the_batch_on_a_scheduler_without_dask_names_the_batch_extra(tmp_path, monkeypatch, capsys):
    _hide(monkeypatch, "distributed", reload=("stormwater_plugin.headless.batch_dask",))
    code = main(["batch", str(DEMO / "site.gpkg"), "--jurisdiction", "lgpc", "--scheduler", "local", "--workers", "1", "--out", str(tmp_path / "b")])
    err = _one_line(capsys, code, '"stormwater-review[batch]"', "--scheduler needs distributed")
    assert err.splitlines()[-1].startswith("stormwater-check batch: error: --scheduler needs distributed"), err  # after the plan's progress line


def test_the_report_without_matplotlib_names_the_library_and_keeps_the_findings(tmp_path, monkeypatch, capsys):
    _hide(monkeypatch, "matplotlib", reload=("stormwater_plugin.report.maps",))
    out = tmp_path / "o"
    code = main([str(DEMO / "site.gpkg"), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lgpc", "--out", str(out), "--report", "--quiet"])
    err = _one_line(capsys, code, "the report needs matplotlib: pip install matplotlib", "python3-matplotlib", "--no-report")
    assert err.splitlines()[1].strip() == "findings.json and findings.gpkg were written"
    assert (out / "findings.json").is_file()


def test_a_context_catalog_of_dem_tiles_without_gdal_names_the_tiles_extra(tmp_path, monkeypatch):
    from stormwater_plugin.headless import context_reader
    from stormwater_plugin.services.context_catalog import ContextSource

    for name in ("a.tif", "b.tif"):
        (tmp_path / name).write_bytes(b"")
    _hide(monkeypatch, "osgeo")
    src = ContextSource(name="dem", path=str(tmp_path / "*.tif"), role="dem")
    with pytest.raises(MissingLibrary, match=re.escape('"stormwater-review[tiles]"')):
        context_reader._dem_path(src, tmp_path, tmp_path)
