"""gui/gc_pause.py (issue 24 item 5): the heap is frozen while any task runs, unfrozen after the last, whatever happens."""

from __future__ import annotations

import gc
import threading

import pytest

from stormwater_plugin.gui import gc_pause


class _Cycle:
    """An object in a reference cycle: only the collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_freeze_and_unfreeze_around_the_block() -> None:
    assert gc.get_freeze_count() == 0 and gc_pause.depth() == 0
    with gc_pause.frozen_heap():
        assert gc.get_freeze_count() > 0 and gc_pause.depth() == 1
    assert gc.get_freeze_count() == 0 and gc_pause.depth() == 0


def test_unfrozen_after_an_exception() -> None:
    with pytest.raises(RuntimeError), gc_pause.frozen_heap():
        raise RuntimeError("cancelled")
    assert gc.get_freeze_count() == 0 and gc_pause.depth() == 0


def test_overlapping_blocks_unfreeze_after_the_last() -> None:
    """Two tasks whose blocks overlap: the one ending first leaves the heap frozen for the other."""
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, int] = {}

    def first() -> None:
        with gc_pause.frozen_heap():
            first_in.set()
            second_in.wait(10)
        first_out.set()

    def second() -> None:
        first_in.wait(10)
        with gc_pause.frozen_heap():
            second_in.set()
            first_out.wait(10)
            seen["frozen_while_second_runs"] = gc.get_freeze_count()
            seen["depth"] = gc_pause.depth()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert seen["frozen_while_second_runs"] > 0 and seen["depth"] == 1
    assert gc.get_freeze_count() == 0 and gc_pause.depth() == 0


def test_nothing_leaks_garbage_frozen_in_the_block_is_collected_after() -> None:
    import weakref

    obj = _Cycle()
    ref = weakref.ref(obj)
    with gc_pause.frozen_heap():
        del obj
        gc.collect()
        assert ref() is not None  # frozen: not walked during the block
    gc.collect()
    assert ref() is None


def test_decorated_run_returns_its_value_and_unfreezes() -> None:
    class Task:
        @gc_pause.in_frozen_heap
        def run(self) -> bool:
            return gc.get_freeze_count() > 0

    assert Task().run() is True
    assert Task.run.__name__ == "run"
    assert gc.get_freeze_count() == 0


def test_disabled_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc_pause, "ENABLED", False)
    with gc_pause.frozen_heap():
        assert gc.get_freeze_count() == 0 and gc_pause.depth() == 0


def test_someone_elses_freeze_is_left_alone() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_pause.frozen_heap():
            pass
        assert gc.get_freeze_count() == frozen  # not unfrozen by the block
    finally:
        gc.unfreeze()
