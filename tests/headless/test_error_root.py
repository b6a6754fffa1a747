"""Issue 23: the front ends catch the project's one error root (core/errors.StormwaterError) and show its message."""

from __future__ import annotations

import pytest

from stormwater_plugin.core.errors import StormwaterError
from stormwater_plugin.core.overrides import OverrideError
from stormwater_plugin.core.rulepack import PackError
from stormwater_plugin.headless.errors import run_guarded
from stormwater_plugin.services.working_crs import NoSiteLocation


@pytest.mark.parametrize("error", [PackError("pack x: rule y has no distance"), NoSiteLocation(),
                                   OverrideError("overrides.json: entry 3 has no key")])
def test_a_project_error_escaping_a_command_exits_2_with_its_message_and_is_not_called_a_bug(capsys, error):
    def command(argv):
        raise error

    assert isinstance(error, StormwaterError)
    assert run_guarded("stormwater-check", command, []) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0] == f"stormwater-check: error: {error}"
    assert "bug" not in err


def test_an_unexpected_error_is_still_reported_as_a_bug_without_a_traceback(capsys):
    def command(argv):
        raise KeyError("x")

    assert run_guarded("stormwater-check", command, []) == 2
    err = capsys.readouterr().err
    assert "KeyError" in err and "bug" in err and "Traceback" not in err


def test_project_errors_keep_their_other_bases():
    assert issubclass(PackError, ValueError) and issubclass(NoSiteLocation, ValueError)
