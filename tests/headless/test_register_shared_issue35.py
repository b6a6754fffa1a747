"""Issue 35 item 3: the register is a shared file: concurrent clerks lose nothing; mode, owner and one backup kept."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from stormwater_plugin.cli import main
from stormwater_plugin.services import safe_files
from stormwater_plugin.services.register import Application, Register, RegisterError

REPO = Path(__file__).resolve().parents[2]

#: One clerk: twelve `register add` commands, each a full read, merge and write of the register.
_CLERK = """
import sys
from stormwater_plugin.cli import main
folder, who = sys.argv[1], sys.argv[2]
for n in range(12):
    code = main(["register", "add", folder, f"{who}-{n:02d}", "--applicant", f"clerk {who}", "--received", "2026-03-01"])
    assert code == 0, code
"""


def _big_register(folder: Path, n: int) -> None:
    reg = Register(folder)
    reg.town = "Town of Lake George"
    for i in range(n):
        reg.add(Application(id=f"SW-{i:04d}", applicant=f"Applicant {i}", address=f"{i} Lake Shore Dr", received="2025-01-01"))
    reg.save()


def test_three_clerks_adding_twelve_applications_each_to_a_1500_entry_register_lose_none(tmp_path):
    folder = tmp_path / "register"
    _big_register(folder, 1500)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", _CLERK, str(folder), who], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
             for who in ("A", "B", "C")]
    errors = [p.communicate(timeout=300)[1].decode() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], errors
    ids = [a["id"] for a in json.loads((folder / "register.json").read_text(encoding="utf-8"))["applications"]]
    assert len(ids) == len(set(ids)) == 1500 + 36
    assert {f"{w}-{n:02d}" for w in "ABC" for n in range(12)} <= set(ids)


def test_a_save_keeps_another_writers_change_and_its_own(tmp_path):
    folder = tmp_path / "register"
    _big_register(folder, 3)
    mine, theirs = Register.open(folder), Register.open(folder)
    theirs.set_status("SW-0001", "under review")
    theirs.add(Application(id="SW-9000", received="2026-01-02"))
    theirs.save()
    mine.set_status("SW-0002", "denied", "2026-02-01")
    mine.save()
    back = Register.open(folder)
    assert [a.id for a in back.applications] == ["SW-0000", "SW-0001", "SW-0002", "SW-9000"]
    assert back.get("SW-0001").status == "under review" and back.get("SW-0002").status == "denied"


def test_two_writers_adding_the_same_id_the_second_is_refused_in_one_line(tmp_path):
    folder = tmp_path / "register"
    _big_register(folder, 1)
    a, b = Register.open(folder), Register.open(folder)
    a.add(Application(id="SW-7"))
    b.add(Application(id="SW-7"))
    a.save()
    try:
        b.save()
    except RegisterError as exc:
        assert "SW-7" in str(exc) and "\n" not in str(exc)
    else:
        raise AssertionError("the second SW-7 was written over the first")


def test_a_register_keeps_its_mode_and_one_backup_of_the_previous_version(tmp_path):
    folder = tmp_path / "register"
    assert main(["register", "add", str(folder), "SW-1", "--received", "2026-01-01"]) == 0
    reg_file = folder / "register.json"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(reg_file.stat().st_mode) == 0o666 & ~umask  # a new register: the usual mode, not 600
    os.chmod(reg_file, 0o664)  # shared with the clerks' group
    before = reg_file.read_text(encoding="utf-8")
    assert main(["register", "add", str(folder), "SW-2", "--received", "2026-01-02"]) == 0
    assert stat.S_IMODE(reg_file.stat().st_mode) == 0o664
    assert safe_files.backup_path(reg_file).read_text(encoding="utf-8") == before
    assert main(["register", "set-status", str(folder), "SW-2", "under review"]) == 0
    assert [a["id"] for a in json.loads(safe_files.backup_path(reg_file).read_text(encoding="utf-8"))["applications"]] == ["SW-1", "SW-2"]
    assert sorted(p.name for p in folder.iterdir()) == ["register.json", "register.json.bak", "register.json.lock"]
