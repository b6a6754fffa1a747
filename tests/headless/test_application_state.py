"""Issue 36 item 1: an application's saved state is written atomically with one backup, and never replaced by an empty project."""

from __future__ import annotations

import json

import pytest

from stormwater_plugin.services.application_state import StateWouldDropWork, decision_count, save_application_state, state_path
from stormwater_plugin.services.register import Application, Register
from stormwater_plugin.services.safe_files import backup_path

DECISIONS = json.dumps({"format": "stormwater-check-overrides", "version": 1, "overrides": [
    {"key": "a|devices:DW-1|septic:S-1", "decision": "waived", "reason": "Variance ZBA-2026-14", "reviewer": "J. Smith"},
    {"key": "b|devices:DW-2|-", "decision": "accepted", "reason": "tax-map sliver", "reviewer": "J. Smith"},
]})
REVIEW = json.dumps({"findings": [{"key": "a"}], "counts": {"violation": 3}})


@pytest.fixture()
def register(tmp_path):
    reg = Register.create(tmp_path / "reg")
    reg.add(Application(id="SW-1"))
    reg.save()
    return reg


def _saved(register):
    return json.loads(state_path(register, "SW-1").read_text(encoding="utf-8"))


def test_an_empty_project_is_never_saved_over_a_saved_review_and_its_decisions(register):
    save_application_state(register, "SW-1", {"last_review": REVIEW, "previous_review": "", "overrides": DECISIONS})
    before = state_path(register, "SW-1").read_bytes()
    with pytest.raises(StateWouldDropWork, match="no review.*2 decision"):
        save_application_state(register, "SW-1", {"last_review": "", "previous_review": "", "overrides": ""})
    assert state_path(register, "SW-1").read_bytes() == before


def test_decisions_are_not_dropped_unless_the_reviewer_cleared_them(register):
    save_application_state(register, "SW-1", {"last_review": REVIEW, "overrides": DECISIONS})
    with pytest.raises(StateWouldDropWork, match="no decisions"):
        save_application_state(register, "SW-1", {"last_review": REVIEW, "overrides": ""})
    assert decision_count(_saved(register)["overrides"]) == 2
    save_application_state(register, "SW-1", {"last_review": REVIEW, "overrides": ""}, decisions_cleared=True)
    assert _saved(register)["overrides"] == ""


def test_every_write_keeps_the_previous_version_and_other_entries(register):
    save_application_state(register, "SW-1", {"last_review": REVIEW, "overrides": ""})
    save_application_state(register, "SW-1", {"letters": {"1": {"comments": []}}})
    save_application_state(register, "SW-1", {"last_review": REVIEW, "overrides": DECISIONS})
    now = _saved(register)
    assert now["letters"] == {"1": {"comments": []}} and decision_count(now["overrides"]) == 2
    bak = json.loads(backup_path(state_path(register, "SW-1")).read_text(encoding="utf-8"))
    assert bak["overrides"] == "" and bak["letters"] == {"1": {"comments": []}}


def test_an_unchanged_state_does_not_replace_the_backup(register):
    save_application_state(register, "SW-1", {"last_review": "", "overrides": ""})
    save_application_state(register, "SW-1", {"last_review": REVIEW, "overrides": ""})
    save_application_state(register, "SW-1", {"last_review": REVIEW, "overrides": ""})
    bak = json.loads(backup_path(state_path(register, "SW-1")).read_text(encoding="utf-8"))
    assert bak["last_review"] == ""


def test_an_unreadable_saved_state_is_never_written_over(register):
    path = state_path(register, "SW-1")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(Exception, match="cannot be read"):
        save_application_state(register, "SW-1", {"last_review": REVIEW})
    assert path.read_text(encoding="utf-8") == "{not json"
