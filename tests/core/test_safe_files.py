"""The one atomic-write and lock helper: whole files, kept modes, one backup, writers serialised."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import stat
from pathlib import Path

from stormwater_plugin.services import safe_files


def test_write_json_replaces_whole_file_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "register.json"
    target.write_text("{}\n")
    os.chmod(target, 0o664)
    safe_files.write_json(target, {"a": 1})
    assert json.loads(target.read_text()) == {"a": 1}
    assert stat.S_IMODE(target.stat().st_mode) == 0o664
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_backup_keeps_the_previous_version(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    safe_files.write_text(target, "one", backup=True)
    assert not safe_files.backup_path(target).exists()
    safe_files.write_text(target, "two", backup=True)
    assert target.read_text() == "two"
    assert safe_files.backup_path(target).read_text() == "one"


def test_commit_replaces_several_files_together(tmp_path: Path) -> None:
    a, b = tmp_path / "letter.docx", tmp_path / "letter.pdf"
    staged = [(safe_files.stage(a, b"docx"), a), (safe_files.stage(b, b"pdf"), b)]
    safe_files.commit(staged)
    assert a.read_bytes() == b"docx" and b.read_bytes() == b"pdf"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["letter.docx", "letter.pdf"]


def _add(path: str, n: int, tag: str) -> None:
    for i in range(n):
        with safe_files.locked(Path(path)):
            data = json.loads(Path(path).read_text()) if Path(path).exists() else []
            data.append(f"{tag}-{i}")
            safe_files.write_json(Path(path), data)


def test_locked_read_merge_write_loses_nothing_across_processes(tmp_path: Path) -> None:
    target = tmp_path / "list.json"
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_add, args=(str(target), 15, t)) for t in "abc"]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert len(json.loads(target.read_text())) == 45
