"""An output folder never holds two runs (issue 22, item 7).

Each configuration is the demo site checked into a folder the way it
happens: a plain re-check into the folder of an earlier ``--report`` run,
Ctrl-C during the writing, a second check into the same folder at once, a
full disk, a folder that cannot be written.
"""

from __future__ import annotations

import errno
import fcntl
import json

import pytest

from stormwater_plugin.cli import main
from stormwater_plugin.headless import writer
from stormwater_plugin.headless.writer import LOCK_NAME
from tests.headless.demo_dem import DEMO_DEM, DEMO_SITE


def _check(out, *extra):
    return main([str(DEMO_SITE), "--dem", str(DEMO_DEM), "--jurisdiction", "lake-george", "--out", str(out), "--quiet", *extra])


def _outputs(out):
    return sorted(p.name for p in out.iterdir() if not p.name.startswith("."))


@pytest.fixture(scope="module")
def report_run(tmp_path_factory):
    """The demo checked with --report: the folder a reviewer re-checks into."""
    out = tmp_path_factory.mktemp("runs") / "review"
    assert _check(out, "--report") == 1
    assert "report.html" in _outputs(out)
    return out


def _copy(folder, tmp_path):
    import shutil

    dst = tmp_path / "review"
    shutil.copytree(folder, dst)
    return dst


def test_plain_recheck_into_a_report_folder_removes_the_earlier_report(report_run, tmp_path):
    out = _copy(report_run, tmp_path)
    (out / "my-notes.txt").write_text("the reviewer's own file")
    assert _check(out) == 1
    assert _outputs(out) == ["findings.gpkg", "findings.json", "my-notes.txt"]
    assert not any(p.name.startswith(".partial-") for p in out.iterdir())


def test_ctrl_c_while_writing_leaves_the_earlier_run_untouched(report_run, tmp_path, monkeypatch, capsys):
    out = _copy(report_run, tmp_path)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr("stormwater_plugin.report.package.write_report_package", interrupted)
    assert _check(out, "--report") == 2
    after = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert after == before
    assert not any(p.name.startswith(".partial-") for p in out.iterdir())


def test_second_check_into_a_folder_being_written_exits_2_with_one_line(tmp_path, capsys):
    out = tmp_path / "busy"
    out.mkdir()
    with open(out / LOCK_NAME, "a+") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert _check(out) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(out) in err[0] and "another check" in err[0]
    assert _outputs(out) == []


def test_full_disk_while_writing_findings_gpkg_exits_2_naming_the_folder_and_keeps_the_earlier_run(report_run, tmp_path, monkeypatch, capsys):
    out = _copy(report_run, tmp_path)
    before = (out / "findings.json").read_bytes()
    real = writer.write_layer
    calls = []

    def full(path, name, *a, **k):
        calls.append(name)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, name, *a, **k)

    monkeypatch.setattr(writer, "write_layer", full)
    assert _check(out) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(out) in err[0] and "No space left on device" in err[0] and "bug" not in err[0]
    assert (out / "findings.json").read_bytes() == before and (out / "report.html").exists()


def test_unwritable_out_exits_2_with_one_line_not_a_bug(tmp_path, monkeypatch, capsys):
    out = tmp_path / "readonly"

    def denied(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(writer.tempfile, "mkdtemp", denied)
    assert _check(out) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(out) in err[0] and "Permission denied" in err[0] and "bug" not in err[0]


def test_out_is_a_file_exits_2_with_one_line(tmp_path, capsys):
    out = tmp_path / "afile"
    out.write_text("x")
    assert _check(out) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(out) in err[0]


def test_report_lines_name_the_output_folder_not_the_private_one(tmp_path, capsys):
    out = tmp_path / "named"
    main([str(DEMO_SITE), "--dem", str(DEMO_DEM), "--jurisdiction", "lake-george", "--out", str(out), "--report"])
    text = capsys.readouterr().out
    assert ".partial-" not in text and f"Report: {out / 'report.html'}" in text
    assert json.loads((out / "findings.json").read_text())["findings"]
