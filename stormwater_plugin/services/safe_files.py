"""The one atomic-write and lock helper: every file the project writes for a town goes through here.

The register, the output folders (check, report, letter, compare, batch) and the dock's saved state of an
application share three promises: a reader never sees half a file (write to a temporary beside the target,
flush, fsync, then rename over it); the file keeps the mode (and, where permitted, the owner) it had, so a
colleague is never locked out by the tool's umask; and a writer that must not lose another writer's work
holds a lock while it re-reads, merges and writes. A backup of the previous version is kept on request.

Locks use :mod:`filelock` (POSIX and Windows alike). When it is not importable (a QGIS whose Python lacks it),
an OS lock on the same lock file stands in: ``fcntl`` on POSIX, ``msvcrt`` on Windows.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..core.errors import StormwaterError

#: Suffix of the lock file beside the locked file (``register.json`` -> ``register.json.lock``).
LOCK_SUFFIX = ".lock"
#: Suffix of the one backup kept of the previous version (``register.json`` -> ``register.json.bak``).
BACKUP_SUFFIX = ".bak"
#: How long a writer waits for another writer's lock by default, in seconds.
DEFAULT_LOCK_TIMEOUT_S = 30.0


class FileLockTimeout(StormwaterError, OSError):
    """Another process held the lock for longer than the caller would wait."""


def lock_path(path: Path) -> Path:
    """The lock file guarding ``path``."""
    path = Path(path)
    return path.with_name(path.name + LOCK_SUFFIX)


def backup_path(path: Path) -> Path:
    """Where the previous version of ``path`` is kept."""
    path = Path(path)
    return path.with_name(path.name + BACKUP_SUFFIX)


@contextlib.contextmanager
def locked(path: Path, timeout_s: float = DEFAULT_LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold the lock of ``path`` (its ``.lock`` file) for the ``with`` block.

    Parameters
    ----------
    path : Path
        The file to guard; the lock file is created beside it (its folder is created if missing).
    timeout_s : float
        Seconds to wait for another holder; :class:`FileLockTimeout` after that.
    """
    lock_file = lock_path(path)
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        import filelock
    except ImportError:  # a QGIS Python without filelock: the OS lock it would use
        with _os_lock(lock_file, timeout_s):
            yield
        return
    lock = filelock.FileLock(str(lock_file), timeout=timeout_s)
    try:
        lock.acquire()
    except filelock.Timeout as exc:
        raise FileLockTimeout(f"{path}: another process has held its lock for over {timeout_s:g} s; try again") from exc
    try:
        yield
    finally:
        lock.release()


@contextlib.contextmanager
def _os_lock(lock_file: Path, timeout_s: float) -> Iterator[None]:
    fd = os.open(str(lock_file), os.O_RDWR | os.O_CREAT, 0o666)
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            try:
                _try_lock(fd)
                break
            except OSError as exc:
                if time.monotonic() >= deadline:
                    raise FileLockTimeout(f"{lock_file}: another process has held this lock for over {timeout_s:g} s") from exc
                time.sleep(0.05)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


def _try_lock(fd: int) -> None:
    if os.name == "nt":  # pragma: no cover - Windows only
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _unlock(fd: int) -> None:
    if os.name == "nt":  # pragma: no cover - Windows only
        import msvcrt

        with contextlib.suppress(OSError):
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_UN)


def _keep_mode_and_owner(tmp: str, target: Path) -> None:
    """Give the temporary the target's mode and owner (a new file gets the usual mode: 0666 less the umask)."""
    try:
        st = os.stat(target)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        return
    os.chmod(tmp, st.st_mode & 0o7777)
    if hasattr(os, "chown"):
        with contextlib.suppress(OSError):  # only root (or the owner, to its own groups) may; the mode is kept anyway
            os.chown(tmp, st.st_uid, st.st_gid)


def stage(target: Path, data: bytes) -> str:
    """Write ``data`` to a temporary file beside ``target`` (same folder, so a rename is atomic); its path.

    The temporary carries the target's mode and owner and is flushed to disk. The caller renames it with
    :func:`commit` or removes it with :func:`discard`.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=str(target.parent))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        _keep_mode_and_owner(tmp, target)
    except BaseException:
        discard(tmp)
        raise
    return tmp


def discard(tmp: str) -> None:
    """Remove a staged temporary (nothing if it is gone)."""
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def commit(staged: Sequence[tuple[str, Path]], backup: bool = False, remove: Sequence[Path] = ()) -> None:
    """Rename staged temporaries over their targets together, with Ctrl-C and SIGTERM held back meanwhile.

    Parameters
    ----------
    staged : sequence of (temporary, target)
        From :func:`stage`. Either every target is replaced or (on an OS error part-way) the error is raised
        with the remaining temporaries removed.
    backup : bool
        Keep each target's previous version as ``<name>.bak`` (one backup, replaced each time).
    remove : sequence of Path
        Files removed first, in the same held-back window (an earlier run's outputs this run does not write,
        see :mod:`stormwater_plugin.services.output_manifest`); one already gone is no error.
    """
    held = hasattr(signal, "pthread_sigmask")
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM}) if held else None
    try:
        for path in remove:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        for tmp, target in staged:
            target = Path(target)
            if backup and target.exists():
                bak = backup_path(target)
                with contextlib.suppress(OSError):
                    bak.unlink()
                try:
                    os.link(target, bak)  # the old inode stays as the backup; no copy, nothing half-written
                except OSError:  # a file system without hard links
                    _copy(target, bak)
            os.replace(tmp, target)
    finally:
        for tmp, _ in staged:
            discard(tmp)
        if held and old_mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)


def _copy(src: Path, dst: Path) -> None:
    import shutil

    shutil.copy2(src, dst)


def write_bytes(path: Path, data: bytes, backup: bool = False) -> None:
    """Atomically replace ``path`` with ``data``, keeping its mode and owner (and a ``.bak`` of it on request)."""
    commit([(stage(Path(path), data), Path(path))], backup=backup)


def write_text(path: Path, text: str, backup: bool = False) -> None:
    """:func:`write_bytes` of UTF-8 text."""
    write_bytes(path, text.encode("utf-8"), backup=backup)


def write_json(path: Path, data: object, backup: bool = False) -> None:
    """:func:`write_bytes` of indented UTF-8 JSON with a final newline (non-ASCII kept as is)."""
    write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", backup=backup)


__all__ = ["BACKUP_SUFFIX", "DEFAULT_LOCK_TIMEOUT_S", "FileLockTimeout", "LOCK_SUFFIX", "backup_path", "commit", "discard",
           "lock_path", "locked", "stage", "write_bytes", "write_json", "write_text"]
