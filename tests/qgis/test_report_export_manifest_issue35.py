"""Issue 35 item 2 in the dock: the review package is moved over the tool's own files only."""

from __future__ import annotations

import pytest

from stormwater_plugin.gui.report_export import move_into
from stormwater_plugin.services.output_manifest import ForeignFilesError, read_manifest


def _staged(tmp_path, n):
    staging = tmp_path / f".stormwater-report-{n}"
    staging.mkdir()
    for name in ("findings.json", "report.pdf"):
        (staging / name).write_text(f"{name} {n}", encoding="utf-8")
    return staging


def test_the_package_replaces_its_own_files_and_refuses_the_applicants_report(tmp_path):
    out = tmp_path / "SW-1"
    assert [p.name for p in move_into(_staged(tmp_path, 1), out)] == ["findings.json", "report.pdf"]
    move_into(_staged(tmp_path, 2), out)  # its own files: replaced
    assert (out / "report.pdf").read_text(encoding="utf-8") == "report.pdf 2"
    assert {r["command"] for r in (read_manifest(out) or {}).values()} == {"report"}
    other = tmp_path / "SW-2"
    other.mkdir()
    (other / "report.pdf").write_text("the applicant's", encoding="utf-8")
    staging = _staged(tmp_path, 3)
    with pytest.raises(ForeignFilesError, match="report.pdf"):
        move_into(staging, other)
    assert sorted(p.name for p in other.iterdir() if not p.name.startswith(".")) == ["report.pdf"]
    assert (other / "report.pdf").read_text(encoding="utf-8") == "the applicant's" and not staging.exists()
