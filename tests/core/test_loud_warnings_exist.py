"""The dock says in its message bar the data warnings that can change findings: each one a warning the project emits."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "stormwater_plugin"
CONTROLLER = PACKAGE / "gui" / "dock_controller.py"


def _loud_codes() -> set[str]:
    for node in ast.walk(ast.parse(CONTROLLER.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "FINDING_CHANGING_WARNINGS" for t in node.targets):
            return {c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    raise AssertionError("FINDING_CHANGING_WARNINGS is not in gui/dock_controller.py")


def _emitted_codes() -> set[str]:
    """Every first argument of a ``Warning_(...)`` call in the package (the warning's code)."""
    codes = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Warning_" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    codes.add(first.value)
    return codes


#: Codes made at run time: ``core.vocabulary`` names a value it does not recognise ``f"{field}_unknown"``.
MADE_AT_RUN_TIME = {"device_type_unknown"}


def test_every_loud_warning_is_one_the_project_emits():
    assert _loud_codes() - _emitted_codes() - MADE_AT_RUN_TIME == set()


def test_a_layer_at_an_unknown_place_and_a_dem_that_is_no_elevation_model_are_said_loudly():
    assert {"layer_misplaced", "dem_not_elevation", "dem_too_large", "dem_outside", "no_dem"} <= _loud_codes()
