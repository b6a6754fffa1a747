"""What the desktop scripts share (each run by ``qgis --code`` under Xvfb; see scripts/desktop_profile.sh).

A :class:`Walk` keeps the log (``$WALK_OUT/<log name>``: steps, dialogs, failures, done), answers and records every
modal dialog QGIS shows (so "no prompt beyond QGIS's own" can be checked), records QGIS's own report of a plugin's
exception as a failure with its traceback, and runs its queue of steps one after another on QGIS's event loop: a
step returns the milliseconds to wait before the next one (``None``: the walk's default), and a step that raises
ends the walk through its ``finish`` step.
"""

import json
import os
import traceback
from pathlib import Path

import qgis.utils
from qgis.PyQt.QtCore import QTimer
from qgis.PyQt.QtWidgets import QApplication, QMessageBox


class Walk:
    """One scripted desktop session.

    Parameters
    ----------
    log_name : str
        The log's file name in ``$WALK_OUT``.
    answers : tuple of str
        The buttons a message box is answered with, first present first (names of ``QMessageBox.StandardButton``).
        A walk that saved its project answers QGIS's "save the current project?" with Yes; one that wants nothing
        written answers Discard.
    delay_ms : int
        The pause between two steps when a step names none, milliseconds.
    """

    def __init__(self, log_name, answers=("Discard", "Yes", "No", "Ok", "Cancel"), delay_ms=600):
        self.out = Path(os.environ.get("WALK_OUT", "walkthrough"))
        self.repo = Path(os.environ["WALK_REPO"])
        self.out.mkdir(parents=True, exist_ok=True)
        self.log_path = self.out / log_name
        self.log = {"steps": [], "dialogs": [], "failures": [], "done": False}
        self.answers = tuple(getattr(QMessageBox.StandardButton, name) for name in answers)
        self.delay_ms = delay_ms
        self.steps = []
        self.finish = None
        self._show_exception = qgis.utils.showException
        qgis.utils.showException = self._logged_exception
        self._watcher = QTimer()
        self._watcher.timeout.connect(self.answer_dialogs)
        self._watcher.start(200)

    def say(self, text):
        """Add ``text`` to the log and write the log out (a walk killed by its timeout leaves what it did)."""
        self.log["steps"].append(text)
        self.log_path.write_text(json.dumps(self.log, indent=1))

    def expect(self, ok, what):
        """Log a check; a failed one is also a failure."""
        if not ok:
            self.log["failures"].append(what)
        self.say(("ok: " if ok else "FAILED: ") + what)

    def answer_dialogs(self):
        """Record the modal dialog open now, if any, and answer it."""
        w = QApplication.activeModalWidget()
        if w is None:
            return
        text = w.text() if isinstance(w, QMessageBox) else w.windowTitle()
        self.log["dialogs"].append(text)
        self.say(f"dialog: {text[:300]}")
        if isinstance(w, QMessageBox):
            for role in self.answers:
                if w.button(role) is not None:
                    w.button(role).click()
                    return
        w.reject()

    def _logged_exception(self, etype, value, tb, msg, *args, **kwargs):
        """QGIS's own report of a plugin's exception (a dialog), recorded as a failure with its traceback."""
        self.log["failures"].append(f"{msg}: " + "".join(traceback.format_exception(etype, value, tb)))
        self.say(f"exception reported by QGIS: {msg}: {value}")
        return self._show_exception(etype, value, tb, msg, *args, **kwargs)

    def step(self, f):
        """Decorator: queue ``f`` as the walk's next step."""
        self.steps.append(f)
        return f

    def run_next(self):
        """Run the next step, then schedule the one after it."""
        if not self.steps:
            return
        f = self.steps.pop(0)
        try:
            delay = f()
        except Exception:
            self.log["failures"].append(traceback.format_exc())
            self.say("ERROR " + traceback.format_exc())
            self.steps[:] = [self.finish] if self.finish is not None else []
            delay = 100
        QTimer.singleShot(delay or self.delay_ms, self.run_next)

    def start(self, finish, after_ms=3000):
        """Begin ``after_ms`` after QGIS started; ``finish`` is the step an error jumps to."""
        self.finish = finish
        QTimer.singleShot(after_ms, self.run_next)
