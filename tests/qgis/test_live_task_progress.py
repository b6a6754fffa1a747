"""The live task's progress (issue 39): reported in steps of 10 %; the cancel of a stale run asked once the poll interval has passed
(a call into QGIS at each of 69 rules, or at each step, is the cost the interval saves)."""

from __future__ import annotations


def _task():
    from stormwater_plugin.gui.live_task import LiveTask
    from stormwater_plugin.qgis_bridge.snapshot import Snapshot

    class Source:  # no read happens here: only the progress is asked
        pass

    task = LiveTask.__new__(LiveTask)
    LiveTask.__init__(task, Source(), "lake-george", lambda _task: None)  # type: ignore[arg-type]
    assert not isinstance(task.source, Snapshot)
    return task


def test_the_live_progress_moves_in_steps_of_10_percent_and_reaches_the_last_rule():
    task = _task()
    shown = []
    for k in range(70):  # the engine's report before each of 69 rules and at the end
        assert task._progress(k / 69) is True
        shown.append(round(task.progress(), 6))
    changes = [p for n, p in enumerate(shown) if n == 0 or p != shown[n - 1]]
    assert len(changes) == 6  # 40 % to 95 %: one report per step of 10 %
    assert changes[0] == 40.0 and shown[-1] >= 90.0
    assert [int(p // 10) for p in changes] == list(range(4, 10))  # each step of 10 % once, in order


def test_a_cancelled_live_run_stops_at_the_next_rule_once_the_poll_interval_has_passed_whatever_the_step():
    task = _task()
    task.CANCEL_POLL_S = 0.0  # the interval passed at every rule
    assert task._progress(0.0) is True
    task.cancel()
    assert task._progress(1 / 69) is False  # within the same step of progress: the cancel is seen all the same


def test_a_cancelled_live_run_is_not_asked_again_within_the_poll_interval_even_at_a_new_step():
    task = _task()
    task.CANCEL_POLL_S = 3600.0  # the interval never passes in this test: only the first report asks
    assert task._progress(0.0) is True
    task.cancel()
    assert task._progress(1 / 69) is True  # asked within the interval: not asked again yet
    assert task._progress(20 / 69) is True  # a new step of progress (50 %): not asked either
    assert task.progress() >= 50.0


def test_the_live_reads_progress_moves_in_the_same_steps_and_the_checks_goes_on_from_it():
    """The read's reports (a dozen in a few milliseconds) are shown in steps of 10 % too, from 1 % to the read's share (40 %)."""
    task = _task()
    shown = []
    for k in range(13):
        task._read_progress(k / 12)
        shown.append(round(task.progress(), 6))
    for k in range(70):
        assert task._progress(k / 69) is True
        shown.append(round(task.progress(), 6))
    changes = [p for n, p in enumerate(shown) if n == 0 or p != shown[n - 1]]
    assert [int(p // 10) for p in changes] == list(range(0, 10))  # each step once, in order, the read's then the check's
    assert changes[0] == 1.0 and changes[4] == 40.0 and shown[-1] >= 90.0
