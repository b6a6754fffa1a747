"""`make package` checks the zip as plugins.qgis.org checks an upload (scripts/package_plugin.py validate)."""

from __future__ import annotations

import importlib.util
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("package_plugin", ROOT / "scripts" / "package_plugin.py")
assert _spec and _spec.loader
pp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pp)

META = (
    "[general]\nname=Demo\nqgisMinimumVersion=3.22\nqgisMaximumVersion=4.99\ndescription=d\nabout=a\nversion=0.1.0\n"
    "author=A\nemail=a@stormwater-review.net\nrepository=https://code.stormwater-review.net/plugin\n"
    "tracker=https://code.stormwater-review.net/plugin/issues\nhomepage=https://stormwater-review.net\n"
)


def _zip(tmp_path: Path, files: dict[str, str], name: str = "p.zip") -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as zf:
        for n, text in files.items():
            zf.writestr(n, text)
    return path


def _good(**changes: str) -> dict[str, str]:
    files = {"demo/__init__.py": "def classFactory(iface):\n    pass\n", "demo/metadata.txt": META, "demo/LICENSE": "GPL"}
    files.update(changes)
    return files


def test_the_built_zip_passes_and_names_only_the_addresses_and_email(tmp_path):
    result = pp.validate(pp.build(tmp_path))
    assert result.errors == []
    missing = " ".join(result.missing)
    for field in ("repository=", "tracker=", "homepage=", "email="):
        assert field in missing
    assert len(result.missing) == 4


def test_the_shipped_metadata_drops_supports_qt6_and_keeps_qgis_4():
    meta = (ROOT / "metadata.txt").read_text(encoding="utf-8")
    assert "supportsQt6" not in meta and "qgisMaximumVersion=4.99" in meta
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").lstrip().startswith("GNU GENERAL PUBLIC LICENSE")


def test_a_complete_zip_is_ready(tmp_path):
    assert pp.validate(_zip(tmp_path, _good())) == pp.Validation([], [])


@pytest.mark.parametrize(
    ("files", "needle"),
    [
        ({"demo/__pycache__/x.cpython-311.pyc": ""}, "forbidden entries"),
        ({"demo/.git/config": ""}, "forbidden entries"),
        ({"demo/LICENSE": None}, "no LICENSE"),
        ({"other/x.py": ""}, "exactly one top folder"),
        ({"demo/metadata.txt": META.replace("https://code.stormwater-review.net/plugin/issues", "code.stormwater-review.net/issues")}, "well-formed"),
        ({"demo/metadata.txt": META.replace("a@stormwater-review.net", "a at stormwater")}, "not an e-mail"),
        ({"demo/metadata.txt": META + "supportsQt6=True\n"}, "supportsqt6"),
        ({"demo/metadata.txt": META.replace("qgisMaximumVersion=4.99", "qgisMaximumVersion=3.10")}, "below qgisMinimumVersion"),
        ({"demo/__init__.py": "x = 1\n"}, "classFactory"),
    ],
)
def test_each_repository_check_fails_a_bad_zip(tmp_path, files, needle):
    content = _good(**{k: v for k, v in files.items() if v is not None})
    for k in [k for k, v in files.items() if v is None]:
        content.pop(k)
    errors = pp.validate(_zip(tmp_path, content)).errors
    assert any(needle in e for e in errors), errors


def test_a_bad_top_folder_name_fails(tmp_path):
    files = {k.replace("demo/", "1 demo/"): v for k, v in _good().items()}
    assert any("top folder" in e for e in pp.validate(_zip(tmp_path, files)).errors)


def test_over_25_mb_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(pp, "MAX_ZIP_BYTES", 100)
    assert any("at most" in e for e in pp.validate(_zip(tmp_path, _good())).errors)


def test_missing_required_fields_are_named_for_upload(tmp_path):
    meta = "\n".join(line for line in META.splitlines() if not line.startswith(("tracker=", "repository=")))
    missing = pp.validate(_zip(tmp_path, _good(**{"demo/metadata.txt": meta}))).missing
    assert [m.split(" ")[1] for m in missing] == ["repository=", "tracker="]
