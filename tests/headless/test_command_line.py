"""One command group (issue 38 item 7): the options several commands share are declared once, the interface is the one the
command line always had (no command = the check, prefixes of long options, one-line usage errors, exit 2), and click stays
out of the QGIS plugin and out of the command line's first import."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from stormwater_plugin.cli import SUBCOMMANDS, main
from stormwater_plugin.headless.commands import COMMANDS, group

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "stormwater_plugin"
DEMO = ROOT / "resources" / "demo"


def test_the_command_names_are_the_ones_the_command_line_dispatches_on():
    assert SUBCOMMANDS == ("check", *COMMANDS)
    assert group.list_commands(None) == list(SUBCOMMANDS)  # type: ignore[arg-type]
    for name in SUBCOMMANDS:
        assert group.get_command(None, name) is not None, name  # type: ignore[arg-type]


def _declared_options() -> dict[str, set[str]]:
    """Each long option in a ``click.option(...)`` call of the package -> the modules declaring it."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("option", "version_option"):
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith("--"):
                        found.setdefault(arg.value, set()).add(str(path.relative_to(PACKAGE)))
    return found


@pytest.mark.parametrize("option", ["--jurisdiction", "--dem", "--dem-z-units", "--class", "--site-parcel", "--layer", "--out", "--quiet", "--version"])
def test_each_shared_option_is_declared_once(option):
    assert _declared_options()[option] == {"headless/command_line.py"}


def test_no_argparse_parser_is_left():
    assert [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if _imports(p, "argparse")] == []


def _imports(path: Path, library: str) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == library for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == library:
            return True
    return False


def _imports_click(path: Path) -> bool:
    return _imports(path, "click")


def test_the_qgis_plugin_core_and_services_never_import_click():
    bad = [str(p.relative_to(PACKAGE)) for layer in ("gui", "processing", "qgis_bridge", "core", "services", "report")
           for p in (PACKAGE / layer).rglob("*.py") if _imports_click(p)]
    assert bad == []
    assert not _imports_click(PACKAGE / "cli.py") and not _imports_click(PACKAGE / "__main__.py")  # loaded inside run_guarded


def _err(capsys: pytest.CaptureFixture[str], code: int) -> str:
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "usage:" not in err.lower(), err
    return err


@pytest.mark.parametrize("argv, words", [
    ([], ["stormwater-check: error:", "Missing option"]),  # --jurisdiction or --out: click 8.1 and 8.5 name a different one first
    ([str(DEMO / "site.gpkg"), "--jurisdiction", "nowhere", "--out", "x"], ["stormwater-check: error:", "invalid choice: 'nowhere'"]),
    (["check", str(DEMO / "site.gpkg"), "--jurisdiction", "lgpc"], ["stormwater-check: error:", "--out"]),
    (["envelope", "--jurisdiction", "lgpc", "--cell-ft", "x", "--out", "o"], ["stormwater-check envelope: error:", "--cell-ft"]),
    (["register"], ["stormwater-check register: error:", "ommand"]),
    (["register", "frobnicate", "r"], ["stormwater-check register: error:", "frobnicate"]),
    (["register", "set", "r", "A-1"], ["stormwater-check register set: error:", "FIELD=VALUE"]),
    (["compare", "a"], ["stormwater-check compare: error:", "NEW"]),
    (["letter", "r", "--out", "l.docx", "--bogus"], ["stormwater-check letter: error:", "--bogus"]),
    (["new-site", "--jurisdiction", "lgpc", "--out"], ["stormwater-check new-site: error:", "--out"]),
], ids=["nothing", "bad-jurisdiction", "no-out", "bad-float", "no-register-command", "unknown-register-command", "set-without-fields",
        "compare-one", "unknown-option", "out-without-value"])
def test_a_usage_error_is_one_line_naming_the_command_exit_2(capsys, argv, words):
    err = _err(capsys, main(argv))
    assert all(w in err for w in words), err


def test_help_and_version_exit_0(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "Usage: stormwater-check [OPTIONS] [SITE]" in out and "--jurisdiction" in out and "Other commands: slope-map" in out
    for name in COMMANDS:
        assert main([name, "-h"]) == 0, name
        assert f"stormwater-check {name}" in capsys.readouterr().out
    assert main(["--version"]) == 0 and capsys.readouterr().out.startswith("stormwater-check ")
    assert main(["envelope", "--version"]) == 0 and capsys.readouterr().out.startswith("stormwater-check ")


def test_a_long_option_may_still_be_shortened_to_a_unique_prefix(tmp_path, capsys):
    out = tmp_path / "o"
    code = main([str(DEMO / "site.gpkg"), "--dem", str(DEMO / "dem.tif"), "--juris", "lgpc", "--out", str(out), "--qu"])
    assert code in (0, 1), capsys.readouterr().err
    assert (out / "findings.json").is_file()
    assert len(capsys.readouterr().out.strip().splitlines()) == 1  # --qu: --quiet
    # ambiguous (--dem, --dem-z-units, --dem-vertical-accuracy-ft): refused, never guessed
    assert "--de" in _err(capsys, main([str(DEMO / "site.gpkg"), "--de", "x", "--jurisdiction", "lgpc", "--out", str(out)]))


def test_without_click_the_command_line_says_so_in_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "click", None)
    err = _err(capsys, main(["--help"]))
    assert err == "stormwater-check: error: the command line needs click: pip install click (Debian: apt-get install python3-click)"


def test_python_dash_m_runs_the_default_command_and_a_named_one(tmp_path):
    env_cmd = [sys.executable, "-m", "stormwater_plugin"]
    done = subprocess.run([*env_cmd, "--jurisdiction", "lgpc", "--quiet", str(DEMO / "site.gpkg"), "--dem", str(DEMO / "dem.tif"), "--out",
                           str(tmp_path / "o")], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    assert " violation, " in done.stdout and (tmp_path / "o" / "findings.json").is_file()
    done = subprocess.run([*env_cmd, "register", "list", str(tmp_path / "none")], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 2 and done.stderr.startswith("stormwater-check register: error: "), done.stderr
