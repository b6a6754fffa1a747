"""A status's rank is its place among the statuses, worst first: the engine sorts findings and the table its groups by it."""

from __future__ import annotations

from stormwater_plugin.core.model import Status


def test_status_rank_is_its_place_worst_first():
    assert [s.rank for s in Status] == [list(Status).index(s) for s in Status] == [0, 1, 2, 3]
    assert Status.VIOLATION.rank < Status.UNDETERMINED.rank < Status.ADVISORY.rank < Status.PASS.rank
    assert Status("pass").rank == 3  # a status read back from a document ranks as its member
