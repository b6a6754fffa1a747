"""The "Checks of a device" panel: a dock widget that stays open and is refilled on every click.

Like QGIS's *Identify Results*, the panel is added once to the main window's right dock area (tabbed or
stacked beside the review dock as the reviewer arranges it), shown again when a click comes after the
reviewer closed it, and refilled by each click of the *Inspect a device* map tool. It holds no result of
its own: it shows one :class:`~stormwater_plugin.gui.device_tool.DeviceReport` at a time and is emptied
when the project is cleared (the result it showed is gone).

:func:`remove_panel` takes it out of the main window and deletes it (plugin unload); nothing of it is
left for Qt to tear down at QGIS's exit.
"""

from __future__ import annotations

from typing import Any

from qgis.core import QgsProject
from qgis.gui import QgsDockWidget
from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtGui import QBrush, QColor
from qgis.PyQt.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from .styles import STATUS_COLOURS

#: The panel's object name (QGIS saves dock positions by object name).
OBJECT_NAME = "StormwaterDeviceChecks"
COLUMNS = ("Status", "Rule", "Other feature", "Measured ft", "Required ft", "Message")
#: What the empty panel says.
EMPTY_TEXT = "Click a device (or a distance line drawn for one) with the Inspect a device tool to list its checks."


def _num(x: float | None) -> str:
    """Measured feet to 0.1 ft; empty when unknown."""
    return "" if x is None else f"{x:.1f}"


def _req(x: float | None) -> str:
    """Required feet as the pack writes them: ``20``, ``2.5``."""
    return "" if x is None else f"{x:g}"


class InspectPanel(QgsDockWidget):
    """A docked table of one device's checks; refilled on every click, emptied when the project is cleared.

    Parameters
    ----------
    parent : QWidget, optional
        The main window.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(OBJECT_NAME)
        self.setWindowTitle(self.tr("Checks of a device"))
        self.setAllowedAreas(Qt.DockWidgetArea.LeftDockWidgetArea | Qt.DockWidgetArea.RightDockWidgetArea | Qt.DockWidgetArea.BottomDockWidgetArea)
        body = QWidget(self)
        self.header = QLabel(self.tr(EMPTY_TEXT))
        self.header.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([self.tr(c) for c in COLUMNS])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(True)
        self.table.verticalHeader().setVisible(False)
        head = self.table.horizontalHeader()
        for k in range(len(COLUMNS) - 1):
            head.setSectionResizeMode(k, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        lay = QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.header)
        lay.addWidget(self.table)
        self.setWidget(body)
        #: The :class:`~stormwater_plugin.gui.device_tool.DeviceReport` shown (typed loosely: device_tool imports this module).
        self.report: Any = None
        self._connected = False
        try:
            QgsProject.instance().cleared.connect(self.clear)
            self._connected = True
        except (TypeError, RuntimeError):  # pragma: no cover
            pass

    def set_report(self, report: Any) -> None:
        """Show ``report``'s checks (a ``DeviceReport``: ``title`` and ``lines``), replacing what was shown."""
        self.report = report
        self.header.setText(report.title)
        self.table.setRowCount(len(report.lines))
        for r, line in enumerate(report.lines):
            cells = (line.status, line.citation, line.other or "—", _num(line.measured_ft), _req(line.required_ft), line.message)
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 0:
                    item.setForeground(QBrush(QColor(STATUS_COLOURS.get(line.status.split(" ")[0], "#000000"))))
                if c in (3, 4):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                tip = line.finding.citation.excerpt if line.finding is not None and c == 1 else line.message
                item.setToolTip(tip or "")
                self.table.setItem(r, c, item)
        self.table.resizeRowsToContents()

    def clear(self, *_args: Any) -> None:
        """Empty the panel (the project was cleared: the result it showed is gone)."""
        self.report = None
        self.table.setRowCount(0)
        self.header.setText(self.tr(EMPTY_TEXT))

    def rows(self) -> list[list[str]]:
        """The table's text, row by row (for tests and copy)."""
        return [[self.table.item(r, c).text() for c in range(self.table.columnCount())] for r in range(self.table.rowCount())]

    def disconnect_project(self) -> None:
        """Stop listening to the project (before the panel is deleted)."""
        if self._connected:
            try:
                QgsProject.instance().cleared.disconnect(self.clear)
            except (TypeError, RuntimeError):
                pass
            self._connected = False


def add_panel(iface: Any) -> InspectPanel:
    """A new panel docked in the main window's right area (through ``iface`` when there is one).

    Parameters
    ----------
    iface : QgisInterface or None
        QGIS's interface; without one the panel is a floating dock widget (scripts).
    """
    parent = None
    if iface is not None:
        try:
            parent = iface.mainWindow()
        except Exception:
            parent = None
    panel = InspectPanel(parent)
    if iface is not None:
        try:
            iface.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, panel)
        except Exception:  # a mock interface: the panel floats
            pass
    return panel


def show_panel(panel: InspectPanel) -> None:
    """Show the panel (again, if the reviewer closed it) and bring its tab to the front."""
    if not panel.isVisible():
        panel.show()
    panel.raise_()


def remove_panel(panel: InspectPanel | None, iface: Any) -> None:
    """Take ``panel`` out of the main window and delete it (plugin unload); safe on ``None`` or a deleted panel."""
    if panel is None:
        return
    try:
        panel.disconnect_project()
        panel.hide()
        if iface is not None:
            try:
                iface.removeDockWidget(panel)
            except Exception:  # a mock interface without it
                pass
        window = panel.parentWidget()
        remover = getattr(window, "removeDockWidget", None)
        if remover is not None:  # a real main window (the interface's call is a no-op in some mocks)
            remover(panel)
        panel.setParent(None)
        panel.deleteLater()
    except RuntimeError:  # already deleted with its parent
        pass


__all__ = ["InspectPanel", "add_panel", "show_panel", "remove_panel", "OBJECT_NAME", "COLUMNS"]
