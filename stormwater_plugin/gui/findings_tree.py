"""The findings table: grouped by rule, filtered by status, with the regulation's words as tooltips.

Beside each finding's computed status it shows the reviewer's decision
(``violation → waived``), and below the rules it lists the stale decisions
(decisions whose finding no longer exists) and the suggested moves.
"""

from __future__ import annotations

import html
from typing import Any, Collection, Mapping, Sequence

from qgis.PyQt.QtCore import Qt, pyqtSignal
from qgis.PyQt.QtGui import QBrush, QColor, QFont
from qgis.PyQt.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.model import CheckResult, Finding, Status
from ..qgis_bridge.results import short_citation
from ..services.compare import since_last_review
from ..services.findings_doc import FindingsDocument
from ..services.live import LAST_FULL_CHECK
from ..services.packs import RulePack, load_pack
from ..services.review import Move, not_checked, rule_kinds
from .envelope_task import move_text
from .styles import STATUS_COLOURS

#: (label, statuses shown) of the filter combo, first is the default.
FILTERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("All findings", ("violation", "undetermined", "advisory", "pass")),
    ("Problems (violation, undetermined)", ("violation", "undetermined")),
    ("Violations", ("violation",)),
    ("Undetermined", ("undetermined",)),
    ("Advisories", ("advisory",)),
    ("Passes", ("pass",)),
)
COLUMNS = ("Status / rule", "Device / subject", "Measured to", "Measured ft", "Required ft", "Message")
#: Least and most width (px) of each column but the message, sized to its content between them.
COLUMN_BOUNDS = ((110, 260), (45, 120), (70, 200), (55, 90), (55, 90))
FINDING_ROLE = Qt.ItemDataRole.UserRole + 1
#: On a finding row: its index in ``result.findings``; on a rule row: the rule id; on a move row: its index in ``moves``.
INDEX_ROLE = Qt.ItemDataRole.UserRole + 2
RULE_ROLE = Qt.ItemDataRole.UserRole + 3
MOVE_ROLE = Qt.ItemDataRole.UserRole + 4
#: A class group's row ("If the project is major"): the classes it stands for, comma-joined.
CLASS_GROUP_ROLE = Qt.ItemDataRole.UserRole + 5
_DECIDED_COLOUR = "#4d4d4d"
_MOVE_COLOUR = "#2166ac"


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:.1f}"


def _rule_titles(pack: RulePack | str) -> dict[str, str]:
    """Rule id -> title of ``pack`` (a name: its pack loaded, none when it cannot be)."""
    try:
        return {r.id: r.title for r in (pack if isinstance(pack, RulePack) else load_pack(pack)).rules}
    except Exception:
        return {}


def status_text(status: str, override: Mapping[str, Any] | None) -> str:
    """``violation`` or, with a decision, ``violation → waived``."""
    if not override:
        return status
    return f"{status} → {override.get('decision')}"


class FindingsTree(QWidget):
    """Counts, a status filter and a tree of findings grouped by rule.

    Signals
    -------
    finding_activated(object)
        A finding row was clicked; carries the :class:`Finding`.
    move_activated(object)
        A suggested move was clicked; carries the :class:`~stormwater_plugin.services.review.Move`.
    selection_changed()
        The current row changed (the dock enables its decision buttons).
    """

    finding_activated = pyqtSignal(object)
    move_activated = pyqtSignal(object)
    selection_changed = pyqtSignal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: CheckResult | None = None
        self.subject_filter: str | None = None
        self._refreshing = False  # programmatic selection (refresh, select_key) never moves the map
        #: The comparison with the previous review (core.compare), or ``None``.
        self.comparison: Mapping[str, Any] | None = None
        self.since: dict[str, str] = {}
        #: The live re-check's state, after the class in the header; empty when there is nothing to say.
        self.live_note = ""
        self.keys: list[str] = []
        self.decisions: list[dict[str, Any] | None] = []
        self.stale: list[dict[str, Any]] = []
        self.moves: list[Move] = []
        self.titles: dict[str, str] = {}
        #: The pack the shown result's check applied, when the dock was given it (its rules' titles and kinds).
        self.pack: RulePack | None = None
        #: Said first above the table when the findings shown are of an earlier round's package.
        self.outdated = ""
        self.counts = QLabel(self.tr("No check run yet."))
        self.counts.setWordWrap(True)
        self.filter = QComboBox()
        for label, _ in FILTERS:
            self.filter.addItem(self.tr(label))
        self.filter.currentIndexChanged.connect(self.refresh)
        self.filter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.filter.setMinimumContentsLength(12)
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search (device, feature, rule, §…)"))
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip(self.tr("Show only the findings whose device, other feature, rule, citation or message contains these words (case ignored)."))
        self.search.textChanged.connect(lambda _t: self.refresh())
        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels([self.tr(c) for c in COLUMNS])
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        # several findings decided at once: Ctrl/Shift-click selects more rows; the current row still moves the map
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.itemClicked.connect(self._clicked)
        self.tree.currentItemChanged.connect(self._current_changed)
        self._activated: QTreeWidgetItem | None = None
        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Show")))
        top.addWidget(self.filter, 1)
        top.addWidget(self.search, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.counts)
        lay.addLayout(top)
        lay.addWidget(self.tree, 1)

    # -- data -------------------------------------------------------------------

    def set_result(self, result: CheckResult | None, doc: FindingsDocument | Mapping[str, Any] | None = None, moves: Sequence[Move] = (),
                   pack: RulePack | None = None) -> None:
        """Show a new result (``None`` clears).

        ``doc`` is its review's document (keys, decisions, stale; typed, or a findings.json object), ``moves`` its known
        moves, ``pack`` the pack the check applied (the rules' titles; without it, the result's jurisdiction's pack).
        """
        if result is not None and pack is not None:
            self.titles = _rule_titles(pack)
        elif result is not None and (self.result is None or self.result.jurisdiction != result.jurisdiction or not self.titles):
            self.titles = _rule_titles(result.jurisdiction)
        self.pack = pack
        self.result = result
        self.subject_filter = None
        self.moves = list(moves)
        self._take_review(doc)
        self.refresh()

    def set_comparison(self, comparison: Mapping[str, Any] | None) -> None:
        """Show what changed since the previous review (``None`` clears): counts above, a mark per finding."""

        self.comparison = comparison
        self.since = since_last_review(comparison) if comparison else {}
        self.refresh()

    def set_review(self, doc: FindingsDocument | Mapping[str, Any] | None) -> None:
        """New decisions for the same result (from its review's document, typed or a findings.json object)."""
        self._take_review(doc)
        self.refresh()

    def _take_review(self, doc: FindingsDocument | Mapping[str, Any] | None) -> None:
        n = len(self.result.findings) if self.result is not None else 0
        if isinstance(doc, FindingsDocument):
            if len(doc.findings) == n:
                self.keys = [f.key for f in doc.findings]
                self.decisions = [dict(f.override) if f.override else None for f in doc.findings]
            else:
                self.keys = [""] * n
                self.decisions = [None] * n
            self.stale = [dict(s) for s in doc.decisions.stale]
            self.review_counts = dict(doc.decisions.counts.as_dict())
            return
        fs = list((doc or {}).get("findings", []))
        if len(fs) == n:
            self.keys = [str(f.get("key", "")) for f in fs]
            self.decisions = [f.get("override") or None for f in fs]
        else:
            self.keys = [""] * n
            self.decisions = [None] * n
        self.stale = list((doc or {}).get("stale_overrides", []) or [])
        self.review_counts = dict((doc or {}).get("override_counts", {}) or {})

    def set_moves(self, moves: Sequence[Move] | None) -> None:
        """Show the suggested moves of the violating devices."""
        self.moves = list(moves or [])
        self.refresh()

    def set_review_moves(self, doc: FindingsDocument | Mapping[str, Any] | None, moves: Sequence[Move] | None) -> None:
        """New moves for the same result, with its review's document that now holds them: ``set_review`` then ``set_moves``.

        The moves arrive after every live edit that leaves a violation (they follow the findings): when the review's keys,
        decisions, stale decisions and counts are as the table shows them, only the moves' group is replaced where the rebuild
        puts it (first, or after the stale decisions), and the first column fitted again; otherwise the table is rebuilt once.
        Rebuilding the demo's table twice here held the main thread ~17 ms at each edit's moves.
        """
        before = (list(self.keys), list(self.decisions), list(self.stale), dict(getattr(self, "review_counts", {})))
        self._take_review(doc)
        self.moves = list(moves or [])
        if self.result is None or before != (self.keys, self.decisions, self.stale, self.review_counts) or not self._replace_moves():
            self.refresh()

    def _replace_moves(self) -> bool:
        """The moves' group of the table replaced by :attr:`moves`' (none: taken out); ``False`` when the table does not hold it where
        the rebuild puts it (the caller rebuilds)."""
        tree = self.tree
        at = 1 if self.stale else 0  # _rebuild adds the stale decisions' group, then the moves', before the rules'
        held = self.moves_group_rows()
        if held not in ([], [at]) or at > tree.topLevelItemCount():
            return False
        self._refreshing = True
        try:
            if held:
                tree.takeTopLevelItem(at)
            self._add_moves(at)
            self.fit_columns((0,))  # the moves' rows span the columns from the first: only its fit may change
        finally:
            self._refreshing = False
        return True

    def show_subject(self, subject_id: str | None) -> None:
        """Show only the findings about one feature (``None``: all)."""
        self.subject_filter = subject_id
        self.refresh()

    def matches(self, f: Finding) -> bool:
        """Whether a finding holds every word of the search box (in its ids, rule, citation or message; case ignored)."""
        words = self.search.text().lower().split()
        if not words:
            return True
        hay = " ".join(x for x in (f.subject.id if f.subject else "", f"{f.other.layer} {f.other.id}" if f.other else "", f.rule_id,
                                   self.titles.get(f.rule_id, ""), f.citation.text, f.message, f.status.value) if x).lower()
        return all(w in hay for w in words)

    def statuses(self) -> tuple[str, ...]:
        return FILTERS[max(0, self.filter.currentIndex())][1]

    def current(self) -> tuple[Finding, str, dict[str, Any] | None] | None:
        """The selected finding, its key and its decision (``None`` when no finding row is selected)."""
        item = self.tree.currentItem()
        if item is None:
            return None
        f = item.data(0, FINDING_ROLE)
        i = item.data(0, INDEX_ROLE)
        if not isinstance(f, Finding) or i is None:
            return None
        i = int(i)
        return f, self.keys[i] if i < len(self.keys) else "", self.decisions[i] if i < len(self.decisions) else None

    def selected(self) -> list[tuple[Finding, str, dict[str, Any] | None]]:
        """Every selected finding row (its finding, key and decision), in table order; rule and note rows are left out."""
        out = []
        chosen = {id(it) for it in self.tree.selectedItems()}
        for item in self._finding_items():
            if id(item) not in chosen:
                continue
            f, i = item.data(0, FINDING_ROLE), int(item.data(0, INDEX_ROLE))
            out.append((f, self.keys[i] if i < len(self.keys) else "", self.decisions[i] if i < len(self.decisions) else None))
        return out

    def select_key(self, key: str) -> bool:
        """Make the finding with ``key`` current (expanding its rule); ``False`` when it is not shown."""
        for item in self._finding_items():
            i = item.data(0, INDEX_ROLE)
            if i is not None and int(i) < len(self.keys) and self.keys[int(i)] == key:
                up = item.parent()
                while up is not None:  # its rule, and the class group holding the rule
                    up.setExpanded(True)
                    up = up.parent()
                self._refreshing = True
                try:
                    self.tree.setCurrentItem(item)
                finally:
                    self._refreshing = False
                self.tree.scrollToItem(item)
                return True
        return False

    def _rule_rows(self) -> list[QTreeWidgetItem]:
        """Every rule row: top-level ones and those inside a class group ("If the project is major")."""
        out = []
        for t in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(t)
            if top.data(0, RULE_ROLE):
                out.append(top)
            elif top.data(0, CLASS_GROUP_ROLE):
                out.extend(top.child(c) for c in range(top.childCount()) if top.child(c).data(0, RULE_ROLE))
        return out

    def _finding_items(self) -> list[QTreeWidgetItem]:
        out = []
        for top in self._rule_rows():
            for c in range(top.childCount()):
                if isinstance(top.child(c).data(0, FINDING_ROLE), Finding):
                    out.append(top.child(c))
        return out

    def rule_items(self) -> dict[str, QTreeWidgetItem]:
        """Rule id to its group row (a rule in a class group: that row)."""
        out: dict[str, QTreeWidgetItem] = {}
        for top in self._rule_rows():
            out.setdefault(str(top.data(0, RULE_ROLE)), top)
        return out

    # -- drawing ----------------------------------------------------------------

    def rule_label(self, f: Finding) -> str:
        """What a rule group shows: the short citation and the rule's title (the id is in the tooltip)."""
        title = self.titles.get(f.rule_id) or f.rule_id
        return f"{short_citation(f.citation.text)} {title}"

    def set_live_note(self, text: str, draw: bool = True) -> None:
        """The live re-check's state, shown after the class in the header: no row of its own, the table keeps the room.

        ``draw=False``: the header is drawn by the caller next (a live update shows its findings right after).
        """
        self.live_note = text
        if draw and self.result is not None:
            self._show_counts()

    def _show_counts(self) -> None:
        """The header: the class, the counts, what changed since the last review, the decisions."""
        assert self.result is not None
        c = self.result.counts()
        parts = [f"<b style='color:{STATUS_COLOURS[s]}'>{c[s]} {s}</b>" for s in ("violation", "undetermined", "advisory", "pass")]
        # the pack's title (long, and shown by the Rules field) in the tooltip: the table keeps the room
        head = f"{self.result.project_class} project ({self.result.class_source})"
        self.counts.setToolTip(f"{self.result.pack_title} — {head}")
        rc = getattr(self, "review_counts", {}) or {}
        extra = ""
        if self.comparison:
            cc = self.comparison.get("counts") or {}
            since = self.tr("Since the last full check") if self.comparison.get("previous") == LAST_FULL_CHECK else self.tr("Since the last review")
            extra += "<br>" + since + self.tr(": {0} resolved · {1} new · {2} still open · {3} changed").format(
                cc.get("resolved", 0), cc.get("new", 0), cc.get("still_open", 0), cc.get("changed", 0))
        if rc.get("overridden") or rc.get("stale"):
            extra = "<br>" + self.tr("Reviewer decisions: {0} · violations without a decision: {1}").format(rc.get("overridden", 0), rc.get("violations_unresolved", 0))
            if rc.get("stale"):
                extra += " · " + self.tr("<b>stale: {0}</b>").format(rc["stale"])
        question = getattr(self.result.classification, "question", "") if self.result.classification is not None else ""
        if question:  # an open class asks its one question first
            head += "<br><b>" + html.escape(question) + "</b>"
        stale = f"<b style='color:#b35806'>{self.outdated}</b><br>" if self.outdated else ""
        note = self.live_note
        self.counts.setText(stale + head + (f" · <i>{html.escape(note)}</i>" if note else "") + "<br>" + " · ".join(parts) + extra)

    def refresh(self) -> None:
        """Rebuild the tree from the result, the decisions, the status filter and the subject filter."""
        self._refreshing = True
        try:
            self._rebuild()
        finally:
            self._refreshing = False

    def _rebuild(self) -> None:
        current = self.current()
        keep_key = current[1] if current else None
        self.tree.clear()
        if self.result is None:
            self.counts.setText(self.tr("No check run yet."))
            return
        self._show_counts()
        wanted = self.statuses()
        groups: dict[tuple[tuple[str, ...], str], QTreeWidgetItem] = {}
        for i, f in enumerate(self.result.findings):
            if f.status.value not in wanted:
                continue
            if self.subject_filter is not None and (f.subject is None or f.subject.id != self.subject_filter):
                continue
            if not self.matches(f):
                continue
            binds = tuple(str(c) for c in (f.extra.get("binds_if_class") or ()))  # type: ignore[union-attr]
            parent = groups.get((binds, f.rule_id))
            if parent is None:
                parent = QTreeWidgetItem([self.rule_label(f)])
                parent.setData(0, RULE_ROLE, f.rule_id)
                parent.setToolTip(0, f"<b>{f.citation.text}</b> — {self.titles.get(f.rule_id, '')}<br><i>{f.rule_id}</i><p>{f.citation.excerpt}</p>")
                groups[(binds, f.rule_id)] = parent
            parent.addChild(self._item(i, f))
        self._add_stale()
        self._add_moves()
        ranked = []
        for (binds, _rid), parent in groups.items():
            n = parent.childCount()
            worst = min((parent.child(i).data(0, FINDING_ROLE).status for i in range(n)), key=lambda s: s.rank)
            parent.setText(0, f"{parent.text(0)} ({n})")
            parent.setForeground(0, QBrush(QColor(STATUS_COLOURS[worst.value])))
            ranked.append((worst.rank, binds, parent))
        searching = bool(self.search.text().strip())
        # rules with violations first, then undetermined, advisory, pass (engine order within each); the rules binding only under
        # some possible class go in one folded group per class, after the rest
        tops: dict[tuple[str, ...], QTreeWidgetItem] = {}
        order = ("exempt", "minor", "major")
        for binds in sorted({b for _r, b, _p in ranked if b}, key=lambda b: [order.index(c) if c in order else 9 for c in b]):
            top = QTreeWidgetItem([self.tr("If the project is {0}").format(" or ".join(binds))])
            top.setData(0, CLASS_GROUP_ROLE, ",".join(binds))
            top.setToolTip(0, self.tr("The class is not decided: these rules bind only if the project is {0}.").format(" or ".join(binds)))
            tops[binds] = top
        for _rank, binds, parent in sorted(ranked, key=lambda rp: rp[0]):
            if binds:
                tops[binds].addChild(parent)
            else:
                self.tree.addTopLevelItem(parent)
            parent.setFirstColumnSpanned(True)
            parent.setExpanded(_rank != Status.PASS.rank or searching)  # passes folded, one click away
        for top in tops.values():
            top.setText(0, f"{top.text(0)} ({sum(top.child(c).childCount() for c in range(top.childCount()))})")
            self.tree.addTopLevelItem(top)
            top.setFirstColumnSpanned(True)
            top.setExpanded(searching)
        self._add_notes()
        self.fit_columns()
        if keep_key:
            self.select_key(keep_key)

    def fit_columns(self, columns: Collection[int] | None = None) -> None:
        """Each column (of ``columns``; ``None``: all) as wide as its content (nothing cut at the dock's default width),
        within bounds that keep the message column in reach; the table scrolls sideways beyond them."""
        for col, (low, high) in enumerate(COLUMN_BOUNDS):
            if columns is not None and col not in columns:
                continue
            self.tree.resizeColumnToContents(col)
            self.tree.setColumnWidth(col, max(low, min(high, self.tree.columnWidth(col))))

    def _item(self, i: int, f: Finding) -> QTreeWidgetItem:
        other = f"{f.other.layer} {f.other.id}" if f.other else ""
        subject = f.subject.id if f.subject else ""
        decision = self.decisions[i] if i < len(self.decisions) else None
        status = status_text(f.status.value, decision)
        key = self.keys[i] if i < len(self.keys) else ""
        if key in self.since and self.since[key] != "still open":
            status += f" · {self.since[key]}"
        if f.extra.get("near_limit"):
            status += " · near limit"
        item = QTreeWidgetItem([status, subject, other, _num(f.measured_ft), _num(f.required_ft), f.message])
        item.setData(0, FINDING_ROLE, f)
        item.setData(0, INDEX_ROLE, i)
        item.setForeground(0, QBrush(QColor(STATUS_COLOURS[f.status.value])))
        tip = f"<p>{f.message}</p><p><b>{f.citation.text}</b>: “{f.citation.excerpt}”</p>"
        if decision:
            tip += self.tr("<p><b>Reviewer decision: {0}</b> by {1} on {2}: {3}</p>").format(
                decision.get("decision"), decision.get("reviewer", ""), decision.get("date", "?"), decision.get("reason", "")
            )
            if decision.get("status_changed"):
                tip += self.tr("<p>The decision was made when the finding was {0}; it is {1} now.</p>").format(decision.get("status_when_made"), f.status.value)
            font = QFont(item.font(0))
            font.setItalic(True)
            for col in range(len(COLUMNS)):
                item.setFont(col, font)
            for col in range(1, len(COLUMNS)):
                item.setForeground(col, QBrush(QColor(_DECIDED_COLOUR)))
        if i < len(self.keys) and self.keys[i]:
            tip += f"<p><small>key: {self.keys[i]}</small></p>"
        for col in range(len(COLUMNS)):
            item.setToolTip(col, tip)
        item.setTextAlignment(3, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        item.setTextAlignment(4, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return item

    def moves_group_rows(self) -> list[int]:
        """The top-level rows of the table holding a suggested moves' group (none, or the one)."""
        tree = self.tree
        return [k for k in range(tree.topLevelItemCount()) if (top := tree.topLevelItem(k)).childCount() and top.child(0).data(0, MOVE_ROLE) is not None]

    def _add_moves(self, at: int | None = None) -> None:
        """The suggested moves' group, added last (``at``: inserted at that top-level index)."""
        if not self.moves:
            return

        top = QTreeWidgetItem([self.tr("Suggested moves") + f" ({len(self.moves)})"])
        top.setForeground(0, QBrush(QColor(_MOVE_COLOUR)))
        if at is None:
            self.tree.addTopLevelItem(top)
        else:
            self.tree.insertTopLevelItem(at, top)
        top.setFirstColumnSpanned(True)
        for k, m in enumerate(self.moves):
            child = QTreeWidgetItem([move_text(m)])
            child.setData(0, MOVE_ROLE, k)
            child.setToolTip(0, f"<p>{m.message}</p><p><small>{m.method or ''}</small></p>")
            child.setForeground(0, QBrush(QColor(_MOVE_COLOUR if m.possible else STATUS_COLOURS["undetermined"])))
            top.addChild(child)
            child.setFirstColumnSpanned(True)
        top.setExpanded(True)

    def _add_stale(self) -> None:
        if not self.stale:
            return
        top = QTreeWidgetItem([self.tr("Stale decisions (their finding no longer exists; not applied)") + f" ({len(self.stale)})"])
        top.setForeground(0, QBrush(QColor(STATUS_COLOURS["undetermined"])))
        self.tree.addTopLevelItem(top)
        top.setFirstColumnSpanned(True)
        for s in self.stale:
            text = f"{s.get('decision')}: {s.get('key')} — {s.get('reason', '')} ({s.get('reviewer', '')}, {s.get('date', '?')})"
            child = QTreeWidgetItem([text])
            child.setToolTip(0, text)
            top.addChild(child)
            child.setFirstColumnSpanned(True)
        top.setExpanded(True)

    def _add_notes(self) -> None:
        r = self.result
        if r is None:
            return
        if r.warnings:
            top = QTreeWidgetItem([self.tr("Data warnings") + f" ({len(r.warnings)})"])
            for w in r.warnings:
                ids = f" ({', '.join(w.ids[:8])})" if w.ids else ""
                child = QTreeWidgetItem([w.code, w.layer or "", "", "", "", w.message + ids])
                child.setToolTip(5, w.message + ids)
                top.addChild(child)
            self.tree.addTopLevelItem(top)
        if r.rules_not_checked:
            top = QTreeWidgetItem([self.tr("Rules not checked") + f" ({len(r.rules_not_checked)})"])
            for n in not_checked(r.rules_not_checked, r.jurisdiction, rule_kinds(self.pack) if self.pack is not None else None):
                # the rule's title and section, as the law names it; the internal id only in the tooltip
                title = self.titles.get(n.rule_id) or n.rule_id
                label = f"{n.citation} {title}".strip() if n.citation else title
                child = QTreeWidgetItem([label, "", "", "", "", n.reason])
                child.setFirstColumnSpanned(False)
                child.setToolTip(0, f"{label}\n{n.rule_id}")
                child.setToolTip(5, f"{n.citation}: {n.reason}")
                top.addChild(child)
            self.tree.addTopLevelItem(top)

    def _current_changed(self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        """Arrow keys (and clicks) move the map like a click does, as QGIS's Identify results do."""
        self.selection_changed.emit()
        self._activated = None
        if current is not None and not self._refreshing:
            self._activate(current)
            self._activated = current

    def _clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        if item is self._activated:  # the press already moved the map for this item
            self._activated = None
            return
        self._activate(item)

    def _activate(self, item: QTreeWidgetItem) -> None:
        f = item.data(0, FINDING_ROLE)
        if isinstance(f, Finding):
            self.finding_activated.emit(f)
            return
        k = item.data(0, MOVE_ROLE)
        if k is not None and 0 <= int(k) < len(self.moves):
            self.move_activated.emit(self.moves[int(k)])
