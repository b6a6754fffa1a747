"""The output folder is locked from the start of a check, not only while it writes (issue 22, item 7).

Two checks into one ``--out`` at once: the second exits 2 at once, with one line naming the folder
and the process id of the run holding it, before reading any input. The holder is another process
(a run started first, still reading its inputs), or a run of this process.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time

import pytest

from stormwater_plugin.cli import main
from stormwater_plugin.headless.writer import LOCK_NAME
from tests.headless.demo_dem import DEMO_DEM, DEMO_SITE, ROOT
from tests.headless.sql_views import wells_with_endless_view

HOLD = """
import sys, time
from pathlib import Path
from stormwater_plugin.headless.writer import RunFolder
held = RunFolder(Path(sys.argv[1])).lock()  # kept: the lock lasts as long as the object
print("locked", flush=True)
time.sleep(120)
"""


def _check(out, *extra):
    return main([str(DEMO_SITE), "--dem", str(DEMO_DEM), "--jurisdiction", "lake-george", "--out", str(out), "--quiet", *extra])


def _lock_is_free(out) -> bool:
    with open(out / LOCK_NAME, "a+") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
        return True


@pytest.fixture
def holder(tmp_path):
    """A second process holding ``tmp_path / 'busy'`` the way a check does from its start."""
    out = tmp_path / "busy"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        yield out, proc.pid
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_second_check_into_a_folder_another_run_holds_exits_2_at_once_naming_the_folder_and_its_pid(holder, capsys, monkeypatch):
    out, pid = holder

    def never(*a, **k):
        raise AssertionError("the inputs were read although --out is held by another run")

    monkeypatch.setattr("stormwater_plugin.headless.reader.read_site", never)
    start = time.process_time()
    assert _check(out) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert str(out) in err[0] and f"another check (pid {pid})" in err[0] and "bug" not in err[0]
    assert time.process_time() - start < 5  # at once: no input read, no report
    assert sorted(p.name for p in out.iterdir()) == [LOCK_NAME]


def test_the_folder_is_locked_while_the_inputs_are_read_and_free_after_the_run(tmp_path, monkeypatch):
    from stormwater_plugin.headless import reader

    out = tmp_path / "review"
    real = reader.read_site
    seen = []

    def reading(*a, **k):
        seen.append((_lock_is_free(out), (out / LOCK_NAME).read_text().strip()))
        return real(*a, **k)

    monkeypatch.setattr(reader, "read_site", reading)
    assert _check(out) == 1
    assert seen == [(False, str(os.getpid()))]
    assert _lock_is_free(out) and (out / LOCK_NAME).read_text() == ""
    assert (out / "findings.json").exists()


def test_a_run_refused_on_its_input_gives_up_the_lock_and_leaves_no_new_folder(tmp_path, capsys):
    out = tmp_path / "new"
    code = main([str(tmp_path / "missing.gpkg"), "--jurisdiction", "lake-george", "--out", str(out), "--quiet"])
    assert code == 2 and "not found" in capsys.readouterr().err
    assert not out.exists()
    existing = tmp_path / "old"
    existing.mkdir()
    assert main([str(tmp_path / "missing.gpkg"), "--jurisdiction", "lake-george", "--out", str(existing), "--quiet"]) == 2
    assert _lock_is_free(existing)


def test_two_checks_into_one_out_the_second_exits_2_naming_the_first_still_reading(tmp_path, capsys):
    """Check A is slow reading its inputs (a wells view it counts for 10 s); check B into the same --out is refused at once."""
    view = wells_with_endless_view(tmp_path / "view.gpkg")
    out = tmp_path / "review"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STORMWATER_LAYER_READ_FEATURES": "1e12", "STORMWATER_LAYER_READ_SECONDS": "10"}
    first = subprocess.Popen([sys.executable, "-m", "stormwater_plugin", str(DEMO_SITE), "--dem", str(DEMO_DEM), "--jurisdiction", "lake-george",
                              "--layer", f"wells={view}:endless", "--out", str(out), "--quiet"], stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not ((out / LOCK_NAME).exists() and (out / LOCK_NAME).read_text().strip() == str(first.pid)):
            assert first.poll() is None, "the first check ended before it was seen holding the folder"
            time.sleep(0.05)
        assert (out / LOCK_NAME).read_text().strip() == str(first.pid)
        assert _check(out) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and str(out) in err[0] and f"pid {first.pid}" in err[0], err
        _, first_err = first.communicate(timeout=120)
        assert first.returncode == 2 and "layer 'wells'" in first_err  # A stops at its budget, naming the view
    finally:
        if first.poll() is None:
            first.kill()
            first.wait(timeout=30)
    assert not out.exists()  # A made the folder and wrote nothing: it is gone with its lock
