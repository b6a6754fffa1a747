"""The findings table: grouped by rule, filtered by status, with the regulation's words as tooltips."""

from __future__ import annotations

from qgis.PyQt.QtCore import Qt, pyqtSignal
from qgis.PyQt.QtGui import QBrush, QColor
from qgis.PyQt.QtWidgets import QComboBox, QHBoxLayout, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from ..core.model import CheckResult, Finding, Status
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
COLUMNS = ("Rule / status", "Device / subject", "Measured to", "Measured ft", "Required ft", "Message")
_FINDING_ROLE = Qt.UserRole + 1


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:.1f}"


class FindingsTree(QWidget):
    """Counts, a status filter and a tree of findings grouped by rule.

    Signals
    -------
    finding_activated(object)
        A finding row was clicked; carries the :class:`Finding`.
    """

    finding_activated = pyqtSignal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: CheckResult | None = None
        self.subject_filter: str | None = None
        self.counts = QLabel(self.tr("No check run yet."))
        self.counts.setWordWrap(True)
        self.filter = QComboBox()
        for label, _ in FILTERS:
            self.filter.addItem(self.tr(label))
        self.filter.currentIndexChanged.connect(self.refresh)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels([self.tr(c) for c in COLUMNS])
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.itemClicked.connect(self._clicked)
        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Show")))
        top.addWidget(self.filter, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.counts)
        lay.addLayout(top)
        lay.addWidget(self.tree, 1)

    def set_result(self, result: CheckResult | None) -> None:
        """Show a new result (``None`` clears)."""
        self.result = result
        self.subject_filter = None
        self.refresh()

    def show_subject(self, subject_id: str | None) -> None:
        """Show only the findings about one feature (``None``: all)."""
        self.subject_filter = subject_id
        self.refresh()

    def statuses(self) -> tuple[str, ...]:
        return FILTERS[max(0, self.filter.currentIndex())][1]

    def refresh(self) -> None:
        """Rebuild the tree from the result, the status filter and the subject filter."""
        self.tree.clear()
        if self.result is None:
            self.counts.setText(self.tr("No check run yet."))
            return
        c = self.result.counts()
        parts = [f"<b style='color:{STATUS_COLOURS[s]}'>{c[s]} {s}</b>" for s in ("violation", "undetermined", "advisory", "pass")]
        head = f"{self.result.pack_title} — {self.result.project_class} project ({self.result.class_source})"
        self.counts.setText(head + "<br>" + " · ".join(parts))
        wanted = self.statuses()
        groups: dict[str, QTreeWidgetItem] = {}
        for f in self.result.findings:
            if f.status.value not in wanted:
                continue
            if self.subject_filter is not None and (f.subject is None or f.subject.id != self.subject_filter):
                continue
            parent = groups.get(f.rule_id)
            if parent is None:
                parent = QTreeWidgetItem([f.rule_id, "", "", "", "", f.citation.text])
                parent.setToolTip(0, f"<b>{f.citation.text}</b><p>{f.citation.excerpt}</p>")
                parent.setToolTip(5, parent.toolTip(0))
                parent.setFirstColumnSpanned(False)
                self.tree.addTopLevelItem(parent)
                groups[f.rule_id] = parent
            parent.addChild(self._item(f))
        for rule_id, parent in groups.items():
            n = parent.childCount()
            worst = min((parent.child(i).data(0, _FINDING_ROLE).status for i in range(n)), key=lambda s: s.rank)
            parent.setText(0, f"{rule_id} ({n})")
            parent.setForeground(0, QBrush(QColor(STATUS_COLOURS[worst.value])))
            parent.setExpanded(worst is not Status.PASS)
        self._add_notes()
        for col, width in enumerate((230, 90, 110, 80, 80)):
            self.tree.setColumnWidth(col, width)

    def _item(self, f: Finding) -> QTreeWidgetItem:
        other = f"{f.other.layer} {f.other.id}" if f.other else ""
        subject = f.subject.id if f.subject else ""
        item = QTreeWidgetItem([f.status.value, subject, other, _num(f.measured_ft), _num(f.required_ft), f.message])
        item.setData(0, _FINDING_ROLE, f)
        item.setForeground(0, QBrush(QColor(STATUS_COLOURS[f.status.value])))
        tip = f"<p>{f.message}</p><p><b>{f.citation.text}</b>: “{f.citation.excerpt}”</p>"
        for col in range(len(COLUMNS)):
            item.setToolTip(col, tip)
        item.setTextAlignment(3, int(Qt.AlignRight | Qt.AlignVCenter))
        item.setTextAlignment(4, int(Qt.AlignRight | Qt.AlignVCenter))
        return item

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
            for n in r.rules_not_checked:
                child = QTreeWidgetItem([n["rule_id"], "", "", "", "", n["reason"]])
                child.setToolTip(5, f"{n['citation']}: {n['reason']}")
                top.addChild(child)
            self.tree.addTopLevelItem(top)

    def _clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        f = item.data(0, _FINDING_ROLE)
        if isinstance(f, Finding):
            self.finding_activated.emit(f)
