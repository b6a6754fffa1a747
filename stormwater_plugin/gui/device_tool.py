"""Map tool "Inspect a device": click a device to list every check that applied to it, with distances.

The tool reads the dock's most recent result (``dock.result``, a
:class:`CheckResult`) and snapshot (``dock.snap``: the device geometries in
the working CRS ``dock.snap.crs``). A click is transformed from the canvas
CRS to the working CRS and matched to the nearest device within the canvas
search radius, else to the nearest finding drawn for a device (a distance
line or area on the result layers). The checks are listed in a small
non-modal dialog: status, rule citation, the other feature, measured and
required feet, and the message.

:meth:`DeviceInspectTool.inspect_at` takes a map point and does everything a
click does, so the tool can be driven without a mouse (tests, scripts).
:func:`pick_device` and :func:`device_report` are plain functions of the
result and the snapshot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from qgis.core import Qgis, QgsCoordinateReferenceSystem, QgsCoordinateTransform, QgsPointXY, QgsProject, QgsRectangle
from qgis.gui import QgsMapTool, QgsMapToolEmitPoint
from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtGui import QBrush, QColor
from qgis.PyQt.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.model import Finding, Status
from .styles import STATUS_COLOURS

DEVICES = "devices"
COLUMNS = ("Status", "Rule", "Other feature", "Measured ft", "Required ft", "Message")
_ORDER = {s.value: k for k, s in enumerate(Status)}


@dataclass
class CheckLine:
    """One check that applied to the device."""

    status: str
    rule_id: str
    citation: str
    other: str | None
    measured_ft: float | None
    required_ft: float | None
    message: str
    finding: Finding | None = None

    def as_text(self) -> str:
        """``violation  §148-11I(2)(c)  septic system S-1  14.0 / 20 ft``."""
        dist = ""
        if self.measured_ft is not None or self.required_ft is not None:
            dist = f"  {_num(self.measured_ft) or '?'} / {_req(self.required_ft) or '?'} ft"
        return f"{self.status}  {self.citation}  {self.other or '—'}{dist}"


@dataclass
class DeviceReport:
    """Every check of one device in one result."""

    device_id: str
    device_type: str | None
    jurisdiction: str
    lines: list[CheckLine] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in Status}
        for line in self.lines:
            key = line.status.split(" ")[0]
            out[key] = out.get(key, 0) + 1
        return out

    @property
    def title(self) -> str:
        kind = f" ({self.device_type})" if self.device_type else ""
        c = self.counts()
        parts = [f"{n} {s}" for s, n in c.items() if n]
        return f"Device {self.device_id}{kind}: {len(self.lines)} check(s)" + (f" — {', '.join(parts)}" if parts else "")


def _num(x: float | None) -> str:
    """Measured feet to 0.1 ft; empty when unknown."""
    return "" if x is None else f"{x:.1f}"


def _req(x: float | None) -> str:
    """Required feet as the pack writes them: ``20``, ``2.5``."""
    return "" if x is None else f"{x:g}"


def _ids(ref: Any) -> list[str]:
    return str(ref.id).split("+") if ref is not None else []


def _concerns(f: Finding, device_id: str) -> bool:
    for ref in (f.subject, f.other):
        if ref is not None and ref.layer == DEVICES and device_id in _ids(ref):
            return True
    return False


def device_report(result: Any, snap: Any, device_id: str, doc: Any = None) -> DeviceReport:
    """The checks of ``device_id``: findings whose subject (or other feature) is that device, worst first.

    With ``doc`` (the dock's annotated findings.json document, same order as
    the findings) a reviewer decision shows in the status: ``violation → waived``.
    """
    from ..qgis_bridge.results import short_citation

    device_type = None
    devices = snap.inputs.layers.get(DEVICES) if snap is not None else None
    if devices is not None:
        for ident, attrs in zip(devices.ids, devices.attrs):
            if ident == device_id:
                device_type = attrs.get("device_type") or None
                break
    rows = list((doc or {}).get("findings", []))
    decisions = [r.get("override") for r in rows] if len(rows) == len(result.findings) else [None] * len(result.findings)
    lines = []
    for f, decision in zip(result.findings, decisions):
        if not _concerns(f, device_id):
            continue
        if f.subject is not None and f.subject.layer == DEVICES and device_id in _ids(f.subject):
            other = f.other.noun if f.other is not None else None
        else:  # the device is the other feature: name the subject
            other = f.subject.noun if f.subject is not None else None
        status = f.status.value if not decision else f"{f.status.value} → {decision.get('decision')}"
        lines.append(CheckLine(status, f.rule_id, short_citation(f.citation.text), other, f.measured_ft, f.required_ft, f.message, f))
    lines.sort(key=lambda ln: (_ORDER.get(ln.status.split(" ")[0], 99), ln.citation, ln.other or ""))
    return DeviceReport(device_id, None if device_type is None else str(device_type), result.jurisdiction, lines)


def pick_device(result: Any, snap: Any, x: float, y: float, tolerance: float) -> str | None:
    """The device at a working-CRS point: the nearest device within ``tolerance`` (working units),
    else the device of the nearest finding geometry within it (a click on a distance line), else ``None``."""
    from shapely.geometry import Point

    if snap is None:
        return None
    p = Point(x, y)
    devices = snap.inputs.layers.get(DEVICES)
    best: tuple[float, str] | None = None
    if devices is not None:
        for ident, g in zip(devices.ids, devices.geoms):
            if g is None or g.is_empty:
                continue
            d = float(g.distance(p))
            if d <= tolerance and (best is None or d < best[0]):
                best = (d, ident)
    if best is not None:
        return best[1]
    if result is None:
        return None
    for f in result.findings:
        if f.geometry is None or f.geometry.is_empty:
            continue
        ref = f.subject if f.subject is not None and f.subject.layer == DEVICES else f.other if f.other is not None and f.other.layer == DEVICES else None
        if ref is None:
            continue
        d = float(f.geometry.distance(p))
        if d <= tolerance and (best is None or d < best[0]):
            best = (d, _ids(ref)[0])
    return best[1] if best is not None else None


class DeviceChecksDialog(QDialog):
    """A small non-modal table of one device's checks; refilled on every click."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("StormwaterDeviceChecks")
        self.setWindowTitle(self.tr("Checks of a device"))
        self.setModal(False)
        self.header = QLabel()
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
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.header)
        lay.addWidget(self.table)
        lay.addWidget(buttons)
        self.resize(860, 300)
        self.report: DeviceReport | None = None

    def set_report(self, report: DeviceReport) -> None:
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
                item.setToolTip(tip)
                self.table.setItem(r, c, item)
        self.table.resizeRowsToContents()

    def rows(self) -> list[list[str]]:
        """The table's text, row by row (for tests and copy)."""
        return [[self.table.item(r, c).text() for c in range(self.table.columnCount())] for r in range(self.table.rowCount())]


class DeviceInspectTool(QgsMapToolEmitPoint):
    """Click a device (or a finding drawn for one) to list its checks.

    Parameters
    ----------
    canvas : QgsMapCanvas
        The map canvas.
    dock_getter : callable
        Returns the object holding the latest ``result`` and ``snap`` (the review dock), or ``None``.
    iface : QgisInterface, optional
        For the message bar and the dialog's parent.
    """

    def __init__(self, canvas: Any, dock_getter: Callable[[], Any], iface: Any = None) -> None:
        super().__init__(canvas)
        self.canvas_ = canvas
        self.dock_getter = dock_getter
        self.iface = iface
        self.dialog: DeviceChecksDialog | None = None
        self.last_report: DeviceReport | None = None
        self.setCursor(Qt.CursorShape.WhatsThisCursor)

    def _dock(self) -> Any:
        try:
            return self.dock_getter()
        except Exception:
            return None

    def has_result(self) -> bool:
        dock = self._dock()
        return dock is not None and getattr(dock, "result", None) is not None and getattr(dock, "snap", None) is not None

    def canvasReleaseEvent(self, event: Any) -> None:  # noqa: N802 - QGIS API
        if event.button() != Qt.MouseButton.LeftButton:
            return
        self.inspect_at(self.toMapCoordinates(event.pos()))

    def _message(self, text: str, level: Any = Qgis.MessageLevel.Info) -> None:
        if self.iface is not None:
            try:
                self.iface.messageBar().pushMessage("Stormwater review", text, level, 6)
            except Exception:  # a mock interface without a message bar
                pass

    def _tolerance(self, point: QgsPointXY, xform: QgsCoordinateTransform | None, unit_to_ft: float) -> float:
        """The canvas search radius around ``point``, in working-CRS units (at least one foot)."""
        try:
            r = float(QgsMapTool.searchRadiusMU(self.canvas_))
        except Exception:
            r = 0.0
        tol = r
        if xform is not None and r > 0:
            try:
                rect = xform.transformBoundingBox(QgsRectangle(point.x() - r, point.y() - r, point.x() + r, point.y() + r))
                tol = max(rect.width(), rect.height()) / 2.0
            except Exception:
                tol = 0.0
        return max(tol, 1.0 / unit_to_ft) if tol == tol else 1.0 / unit_to_ft

    def inspect_at(self, point: QgsPointXY, crs: QgsCoordinateReferenceSystem | None = None, tolerance: float | None = None, show: bool = True) -> DeviceReport | None:
        """Everything a click does, at ``point`` in ``crs`` (default: the canvas CRS).

        Parameters
        ----------
        point : QgsPointXY
            The clicked map point.
        crs : QgsCoordinateReferenceSystem, optional
            Its CRS; the canvas's destination CRS by default.
        tolerance : float, optional
            Search radius in working-CRS units; the canvas search radius by default.
        show : bool
            Show the dialog and flash the device.

        Returns
        -------
        DeviceReport or None
            The device's checks, or ``None`` when no result exists or no device is there.
        """
        dock = self._dock()
        result = getattr(dock, "result", None) if dock is not None else None
        snap = getattr(dock, "snap", None) if dock is not None else None
        if result is None or snap is None:
            self._message(self.tr("Run the check first: there is no result to inspect."), Qgis.MessageLevel.Warning)
            return None
        if crs is None:
            crs = self.canvas_.mapSettings().destinationCrs()
        xform = None
        if crs is not None and crs.isValid() and crs != snap.crs:
            xform = QgsCoordinateTransform(crs, snap.crs, QgsProject.instance())
            try:
                working = xform.transform(point)
            except Exception:  # QgsCsException
                self._message(self.tr("That point cannot be placed in the working CRS."), Qgis.MessageLevel.Warning)
                return None
        else:
            working = QgsPointXY(point)
        tol = tolerance if tolerance is not None else self._tolerance(point, xform, float(snap.inputs.unit_to_ft))
        device_id = pick_device(result, snap, working.x(), working.y(), tol)
        if device_id is None:
            self._message(self.tr("No device of the last check here: click on a device or on a distance line drawn for one."))
            return None
        report = device_report(result, snap, device_id, getattr(dock, "doc", None))
        self.last_report = report
        if show:
            self.show_report(report)
            self._flash(snap, device_id)
        return report

    def show_report(self, report: DeviceReport) -> DeviceChecksDialog:
        if self.dialog is None:
            parent = None
            if self.iface is not None:
                try:
                    parent = self.iface.mainWindow()
                except Exception:
                    parent = None
            self.dialog = DeviceChecksDialog(parent)
        self.dialog.set_report(report)
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def _flash(self, snap: Any, device_id: str) -> None:
        from ..qgis_bridge.results import to_qgs

        devices = snap.inputs.layers.get(DEVICES)
        if devices is None:
            return
        geoms = [to_qgs(g, multi=False) for ident, g in zip(devices.ids, devices.geoms) if ident == device_id and g is not None]
        if geoms:
            try:
                self.canvas_.flashGeometries(geoms, snap.crs)
            except Exception:  # pragma: no cover - flashing is decoration
                pass

    def close_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None
