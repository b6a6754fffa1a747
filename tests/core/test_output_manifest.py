"""The output folder's manifest (issue 35 item 2): replace and remove only what the tool wrote, all together."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stormwater_plugin.services import safe_files
from stormwater_plugin.services.output_manifest import MANIFEST_FILE, ForeignFilesError, Part, publish, read_manifest


def _run(folder: Path, command: str, files: dict[str, bytes], **kw: object) -> list[str]:
    return publish([Part(folder, command, files=[(n, safe_files.stage(folder / n, b)) for n, b in files.items()], **kw)])  # type: ignore[arg-type]


def test_a_stale_output_of_the_same_command_goes_and_another_commands_stays(tmp_path):
    _run(tmp_path, "check", {"findings.json": b"{}", "report.pdf": b"r1"}, remove_stale=True)
    _run(tmp_path, "letter", {"letter.json": b"{}"})
    _run(tmp_path, "check", {"findings.json": b"{}"}, remove_stale=True)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["findings.json", "letter.json"]
    files = read_manifest(tmp_path) or {}
    assert {n: r["command"] for n, r in files.items()} == {"findings.json": "check", "letter.json": "letter"}
    assert files["findings.json"]["bytes"] == 2 and len(str(files["findings.json"]["sha256"])) == 64


def test_a_file_the_tool_did_not_write_is_refused_by_name_and_nothing_changes(tmp_path):
    (tmp_path / "report.pdf").write_bytes(b"theirs")
    with pytest.raises(ForeignFilesError) as exc:
        _run(tmp_path, "check", {"findings.json": b"{}", "report.pdf": b"mine"})
    assert "report.pdf" in str(exc.value) and "findings.json" not in str(exc.value).split(":")[1]
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["report.pdf"]
    assert (tmp_path / "report.pdf").read_bytes() == b"theirs"
    assert not list(tmp_path.glob(".*.tmp"))


def test_replacing_a_geopackage_removes_its_sqlite_journal_files(tmp_path):
    _run(tmp_path, "check", {"findings.gpkg": b"one"})
    (tmp_path / "findings.gpkg-wal").write_bytes(b"journal of the old file")
    _run(tmp_path, "check", {"findings.gpkg": b"two"})
    assert not (tmp_path / "findings.gpkg-wal").exists() and (tmp_path / "findings.gpkg").read_bytes() == b"two"


def test_an_unreadable_manifest_is_refused_in_one_line(tmp_path):
    (tmp_path / MANIFEST_FILE).write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(Exception) as exc:
        _run(tmp_path, "compare", {"compare.json": b"{}"})
    assert MANIFEST_FILE in str(exc.value) and "\n" not in str(exc.value)
    assert json.loads((tmp_path / MANIFEST_FILE).read_text(encoding="utf-8")) == [1, 2]


def test_commit_removes_the_listed_files_in_the_same_window(tmp_path):
    old, new = tmp_path / "old.pdf", tmp_path / "new.json"
    old.write_bytes(b"x")
    safe_files.commit([(safe_files.stage(new, b"{}"), new)], remove=[old, tmp_path / "gone-already"])
    assert not old.exists() and new.read_bytes() == b"{}"
