"""Map tool "Inspect a device": click a device to list every check that applied to it, with distances.

The tool reads the dock's most recent result (``dock.result``, a
:class:`CheckResult`) and snapshot (``dock.snap``: the device geometries in
the working CRS ``dock.snap.crs``). A click is transformed from the canvas
CRS to the working CRS and matched to the nearest device within the canvas
search radius, else to the nearest finding drawn for a device (a distance
line or area on the result layers). The checks are listed in a docked panel
(:mod:`stormwater_plugin.gui.inspect_panel`, like QGIS's *Identify Results*):
added to the right dock area on the first click, kept open and refilled on
every click; status, rule citation, the other feature, measured and required
feet, and the message.

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

from ..core.model import Finding, Status
from ..qgis_bridge.results import short_citation, to_qgs
from ..services.findings_doc import FindingsDocument
from .inspect_panel import COLUMNS, InspectPanel, _num, _req, add_panel, remove_panel, show_panel

DEVICES = "devices"
__all__ = ["COLUMNS", "CheckLine", "DeviceReport", "DeviceInspectTool", "device_report", "pick_device"]
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


def _ids(ref: Any) -> list[str]:
    return list(ref.ids) if ref is not None else []


def _concerns(f: Finding, device_id: str) -> bool:
    for ref in (f.subject, f.other):
        if ref is not None and ref.layer == DEVICES and device_id in _ids(ref):
            return True
    return False


def device_report(result: Any, snap: Any, device_id: str, doc: Any = None) -> DeviceReport:
    """The checks of ``device_id``: findings whose subject (or other feature) is that device, worst first.

    With ``doc`` (the dock's review document, typed or as a findings.json object, its findings in the result's
    order) a reviewer decision shows in the status: ``violation → waived``.
    """

    device_type = None
    devices = snap.inputs.layers.get(DEVICES) if snap is not None else None
    if devices is not None:
        for ident, attrs in zip(devices.ids, devices.attrs):
            if ident == device_id:
                device_type = attrs.get("device_type") or None
                break
    if isinstance(doc, FindingsDocument):
        decisions = [f.override for f in doc.findings] if len(doc.findings) == len(result.findings) else [None] * len(result.findings)
    else:
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


class DeviceInspectTool(QgsMapToolEmitPoint):
    """Click a device (or a finding drawn for one) to list its checks.

    Parameters
    ----------
    canvas : QgsMapCanvas
        The map canvas.
    dock_getter : callable
        Returns the object holding the latest ``result`` and ``snap`` (the review dock), or ``None``.
    iface : QgisInterface, optional
        For the message bar and the main window the panel docks in.
    """

    def __init__(self, canvas: Any, dock_getter: Callable[[], Any], iface: Any = None) -> None:
        super().__init__(canvas)
        self.canvas_ = canvas
        self.dock_getter = dock_getter
        self.iface = iface
        self.panel: InspectPanel | None = None
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
            Show the checks in the docked panel and flash the device.

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
        report = device_report(result, snap, device_id, getattr(dock, "document", None))
        self.last_report = report
        if show:
            self.show_report(report)
            self._flash(snap, device_id)
        return report

    @property
    def dialog(self) -> InspectPanel | None:
        """The panel (the name of the floating dialog it replaced, kept for scripts)."""
        return self.panel

    def show_report(self, report: DeviceReport) -> InspectPanel:
        """Show ``report`` in the docked panel: created and docked on the first call, reused (and shown again) after."""
        panel = self.panel
        if panel is not None:
            try:
                panel.objectName()  # deleted with the main window (QGIS closing)?
            except RuntimeError:
                panel = self.panel = None
        if panel is None:
            panel = self.panel = add_panel(self.iface)
        panel.set_report(report)
        show_panel(panel)
        return panel

    def _flash(self, snap: Any, device_id: str) -> None:
        devices = snap.inputs.layers.get(DEVICES)
        if devices is None:
            return
        geoms = [to_qgs(g, multi=False) for ident, g in zip(devices.ids, devices.geoms) if ident == device_id and g is not None]
        if geoms:
            try:
                self.canvas_.flashGeometries(geoms, snap.crs)
            except Exception:  # pragma: no cover - flashing is decoration
                pass

    def close_panel(self) -> None:
        """Remove the panel from the main window and delete it (plugin unload)."""
        panel, self.panel = self.panel, None
        remove_panel(panel, self.iface)

    #: The name the plugin's unload calls (the panel replaced a dialog).
    close_dialog = close_panel
