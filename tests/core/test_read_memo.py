"""The live read's memo (services.live_read, issue 39): a value the conversions' keys are made of is kept for the next read."""

from __future__ import annotations

from stormwater_plugin.services.live_read import ReadMemo


def test_a_remembered_value_is_made_once_carried_to_the_next_read_and_never_counted_as_a_conversion():
    made: list[str] = []

    def text(name: str) -> str:
        made.append(name)
        return name.upper()

    first = ReadMemo()
    assert first.remember(("text", 1), lambda: text("a")) == "A"
    assert first.remember(("text", 1), lambda: text("a")) == "A"  # once per read
    assert first.remember(("text", 2), lambda: text("b")) == "B"  # another key: its own value
    second = ReadMemo(first.made)
    assert second.remember(("text", 1), lambda: text("a")) == "A"  # carried on
    assert made == ["a", "b"] and first.reused == first.converted == second.reused == second.converted == []
    third = ReadMemo(second.made)  # the second read did not ask for ("text", 2): it is dropped
    assert third.remember(("text", 2), lambda: text("b")) == "B" and made == ["a", "b", "b"]
