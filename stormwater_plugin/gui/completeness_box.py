"""The submission's completeness in the dock: what the package must show and what it misses, as a list to send back.

The list is the document's ``completeness`` section
(:func:`~stormwater_plugin.services.completeness.check_completeness`, computed in
the check's task as the command line computes it); this box only shows it.
"""

from __future__ import annotations

from typing import Any, Mapping

from qgis.gui import QgsCollapsibleGroupBox
from qgis.PyQt.QtWidgets import QApplication, QLabel, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout


class CompletenessBox(QgsCollapsibleGroupBox):
    """A collapsible group titled with the verdict, listing each applicable item: shown, or what is missing."""

    TITLE = "Submission completeness"

    def __init__(self) -> None:
        super().__init__(self.TITLE)
        self.setTitle(self.tr(self.TITLE))
        lay = QVBoxLayout(self)
        self.summary = QLabel(self.tr("Run the check: the list of what the submission must show appears here."))
        self.summary.setWordWrap(True)
        self.items = QTreeWidget()
        self.items.setHeaderLabels([self.tr("Item"), self.tr("Status")])
        self.items.setRootIsDecorated(True)
        self.items.setMinimumHeight(60)
        self.copy_button = QPushButton(self.tr("Copy the list to send back"))
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(self.copy_summary)
        lay.addWidget(self.summary)
        lay.addWidget(self.items, 1)
        lay.addWidget(self.copy_button)
        self.section: Mapping[str, Any] | None = None
        self.setCollapsed(True)

    def set_section(self, section: Mapping[str, Any] | None) -> None:
        """Show a document's ``completeness`` section (``None``: no check yet, or a review without one).

        A section equal to the one shown is left as it is: a live re-check after each edit of a device gives the same
        list (the tree rebuilt took the main thread ~0.6 ms per edit, and would fold the rows the reviewer opened).
        """
        if section is not None and self.section is not None and self.items.topLevelItemCount() and section == self.section:
            self.section = section
            return
        self.section = section
        self.items.clear()
        if not section:
            self.setTitle(self.tr(self.TITLE))
            self.summary.setText(self.tr("Run the check: the list of what the submission must show appears here."))
            self.copy_button.setEnabled(False)
            return
        missing = list(section.get("missing") or [])
        if section.get("complete"):
            self.setTitle(self.tr("Submission completeness: complete"))
        else:
            self.setTitle(self.tr("Submission completeness: incomplete ({0} missing)").format(len(missing)))
        if missing:  # one line per thing missing, not one long sentence
            self.summary.setText(self.tr("Missing:") + "\n" + "\n".join(f"• {m}" for m in missing))
        else:
            self.summary.setText(str(section.get("summary", "")))
        for item in section.get("items") or []:
            shown = item.get("status") == "shown"
            row = QTreeWidgetItem([str(item.get("what", item.get("id", ""))), self.tr("shown") if shown else self.tr("missing")])
            tip = f"{item.get('citation', '')}: {item.get('excerpt', '')}".strip(": ")
            row.setToolTip(0, tip)
            row.setToolTip(1, tip)
            for m in item.get("missing") or []:
                child = QTreeWidgetItem([f"{m}{item.get('applies_because', '')}", ""])
                child.setToolTip(0, tip)
                row.addChild(child)
            self.items.addTopLevelItem(row)
            row.setExpanded(not shown)
        self.items.resizeColumnToContents(1)
        self.copy_button.setEnabled(True)

    def copy_summary(self) -> str:
        """Put the list a reviewer sends back on the clipboard; returns it."""
        section = self.section or {}
        lines = [str(section.get("summary", ""))] + [f"- {m}" for m in section.get("missing") or []]
        text = "\n".join(line for line in lines if line)
        QApplication.clipboard().setText(text)
        return text
