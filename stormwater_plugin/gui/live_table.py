"""The findings table after a live re-check: the rows that changed are rewritten, the table is not rebuilt.

Rebuilding the table (``FindingsTree.set_result``) costs the main thread about 20 ms on the demo (every row made
again, spanned, expanded, the columns fitted), most of the live loop's budget per edit. After an edit usually only
the edited device's rows change: when the new result gives the table the same layout (the same rule groups, in the
same order, with as many rows each, the same notes below), each row whose words changed is replaced by a new one
made as the table makes it, the others only take the new finding; the header is said again. Otherwise the table is
rebuilt as after Run. Either way the table shows what ``set_result`` would.
"""

from __future__ import annotations

from typing import Any, Mapping

from qgis.PyQt.QtWidgets import QTreeWidgetItem

from ..core.model import CheckResult, Finding
from ..services.findings_doc import FindingsDocument
from .findings_tree import CLASS_GROUP_ROLE, FINDING_ROLE, INDEX_ROLE, RULE_ROLE, FindingsTree

_Group = tuple[tuple[str, ...], str]


def show_live_findings(view: FindingsTree, result: CheckResult, doc: FindingsDocument | Mapping[str, Any] | None, comparison: Mapping[str, Any] | None,
                       since: Mapping[str, str]) -> bool:
    """Show ``result`` in ``view`` as ``set_result(result, doc)`` does, with ``comparison``'s marks; returns whether rows were rewritten in place."""
    old = _state(view)
    view.comparison, view.since = comparison, dict(since)
    if old is None or not _update(view, result, doc, old):
        view.set_result(result, doc)
        return False
    return True


def _state(view: FindingsTree) -> dict[str, Any] | None:
    if view.result is None or view.subject_filter is not None:
        return None
    return {"result": view.result, "keys": list(view.keys), "decisions": list(view.decisions), "since": dict(view.since),
            "stale": list(view.stale), "layout": _layout(view, view.result)}


def _layout(view: FindingsTree, result: CheckResult) -> dict[_Group, list[int]]:
    """The rows ``_rebuild`` shows, by rule group, in its order of discovery (the filters as they are)."""
    wanted, search = view.statuses(), view.search.text()
    # the last update's layout of this very result under the same filters (the table shows it still: the next update's old state)
    last = getattr(view, "_live_layout", None)
    if last is not None and last[0] is result and last[1] == wanted and last[2] == search:
        return last[3]  # type: ignore[no-any-return]
    searching = bool(search.split())  # no word in the search box: every finding matches (``matches``)
    groups: dict[_Group, list[int]] = {}
    for i, f in enumerate(result.findings):
        if f.status.value not in wanted or (searching and not view.matches(f)):
            continue
        binds = tuple(str(c) for c in (f.extra.get("binds_if_class") or ()))  # type: ignore[union-attr]
        groups.setdefault((binds, f.rule_id), []).append(i)
    view._live_layout = (result, wanted, search, groups)  # type: ignore[attr-defined]
    return groups


def _shape(result: CheckResult, layout: dict[_Group, list[int]]) -> list[tuple[_Group, int, int]]:
    return [(g, min(result.findings[i].status.rank for i in idx), len(idx)) for g, idx in layout.items()]


def _row(f: Finding, key: str, decision: Any, mark: str | None) -> tuple[Any, ...]:
    """What a row shows of a finding (its words, numbers, decision and mark)."""
    return (key, f.status, f.subject, f.other, f.measured_ft, f.required_ft, f.message, f.citation, decision, mark,
            bool(f.extra.get("near_limit")))


def _update(view: FindingsTree, result: CheckResult, doc: FindingsDocument | Mapping[str, Any] | None, old: dict[str, Any]) -> bool:
    before: CheckResult = old["result"]
    if before.jurisdiction != result.jurisdiction or before.warnings != result.warnings or before.rules_not_checked != result.rules_not_checked:
        return False
    layout = _layout(view, result)
    if _shape(before, old["layout"]) != _shape(result, layout):
        return False
    items = _rule_items(view)
    if set(items) != set(layout):
        return False
    view.result = result
    view._take_review(doc)
    if view.stale != old["stale"]:
        view.result = before  # the table as it was, rebuilt by the caller
        return False
    current = view.current()
    keep = current[1] if current else None
    _drop_moves(view)
    view.moves = []
    view._refreshing = True
    try:
        wider: set[int] = set()
        for group, idx in layout.items():
            parent = items[group]
            for j, i in enumerate(idx):
                child = parent.child(j)
                o = int(child.data(0, INDEX_ROLE))
                fo, fi, ko, ki = before.findings[o], result.findings[i], old["keys"][o], view.keys[i]
                if fo is fi:  # a finding the re-check kept (the same object): its row's words are its own, so only the rest may differ
                    same = ko == ki and old["decisions"][o] == view.decisions[i] and old["since"].get(ko) == view.since.get(ki)
                else:
                    same = _row(fo, ko, old["decisions"][o], old["since"].get(ko)) == _row(fi, ki, view.decisions[i], view.since.get(ki))
                if same:
                    if fo is not fi or o != i:  # the row holds the finding it shows, at its index
                        child.setData(0, FINDING_ROLE, fi)
                        child.setData(0, INDEX_ROLE, i)
                    continue
                item = view._item(i, result.findings[i])
                gone = parent.takeChild(j)
                parent.insertChild(j, item)
                # a column is fitted again only when a text of it grew (fitting reads each row of it: the message column, ms)
                wider.update(c for c in range(item.columnCount()) if len(item.text(c)) > len(gone.text(c)))
        view._show_counts()
        if wider:
            view.fit_columns(wider)
        if keep:
            view.select_key(keep)
    finally:
        view._refreshing = False
    return True


def _rule_items(view: FindingsTree) -> dict[_Group, QTreeWidgetItem]:
    """The rule groups of the table by (classes they bind under, rule id)."""
    out: dict[_Group, QTreeWidgetItem] = {}
    tree = view.tree
    for k in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(k)
        rule = top.data(0, RULE_ROLE)
        if rule is not None:
            out[((), str(rule))] = top
            continue
        binds = top.data(0, CLASS_GROUP_ROLE)
        if binds:
            for c in range(top.childCount()):
                child = top.child(c)
                if child.data(0, RULE_ROLE) is not None:
                    out[(tuple(str(binds).split(",")), str(child.data(0, RULE_ROLE)))] = child
    return out


def _drop_moves(view: FindingsTree) -> None:
    """Take out the suggested moves' group (the new result's moves are not known yet, as ``set_result`` without moves)."""
    for k in reversed(view.moves_group_rows()):
        view.tree.takeTopLevelItem(k)


__all__ = ["show_live_findings"]
