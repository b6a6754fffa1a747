"""Archives (``.zip``, ``.kmz``) are decompressed within a size and ratio budget before GDAL parses them.

A 1.6 MB KMZ expanding to 1.5 GB took 3.2 GB of memory before it was refused. Every archive given as a site
package, a ``--layer`` or a context source is first streamed through the decompressor, 1 MiB at a time and
nothing kept, entry by entry: it is refused in one line (exit 2) as soon as its content passes
:data:`ARCHIVE_MAX_BYTES` in all, or one entry of more than :data:`RATIO_FLOOR_BYTES` expands more than
:data:`ARCHIVE_MAX_RATIO` times. The declared sizes are checked first (a cheap refusal); the stream check
catches an archive whose headers lie. Memory stays at one chunk per entry; time is bounded by the size budget.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from .errors import InputError

#: Most bytes an archive's content may expand to (512 MiB: a county's parcels as a shapefile are far less).
ARCHIVE_MAX_BYTES: int = 512 * 1024 * 1024

#: Largest expansion of one entry (uncompressed over compressed size): vector data compresses 5 to 20 times; a
#: decompression bomb a thousand times and more.
ARCHIVE_MAX_RATIO: float = 200.0

#: Entries smaller than this expanded are never judged by their ratio (a tiny file of one repeated byte is harmless).
RATIO_FLOOR_BYTES: int = 16 * 1024 * 1024

#: Bytes read from the decompressor at a time.
CHUNK: int = 1 << 20

#: Suffixes read as archives.
ARCHIVE_SUFFIXES: tuple[str, ...] = (".zip", ".kmz")


def _limit(name: str, default: float) -> float:
    value = os.environ.get(name)
    try:
        return float(value) if value else default
    except ValueError:
        return default


def archive_of(path: Path | str, text: str = "") -> Path | None:
    """The archive a source is read from (the file itself, or the archive inside a ``/vsizip/`` path), or ``None``."""
    typed = text or str(path)
    if typed.startswith("/vsizip/"):
        rest = typed[len("/vsizip/"):].lstrip("{")
        low = rest.lower()
        for suffix in ARCHIVE_SUFFIXES:
            at = low.find(suffix)
            if at >= 0:
                return Path(rest[: at + len(suffix)])
        return None
    p = Path(path)
    return p if p.suffix.lower() in ARCHIVE_SUFFIXES and p.is_file() else None


def check_archive(path: Path | str, text: str = "") -> None:
    """Refuse (:class:`~stormwater_plugin.headless.errors.InputError`) an archive beyond the budget; nothing for any other file."""
    archive = archive_of(path, text)
    if archive is None or not archive.is_file():
        return
    max_bytes = int(_limit("STORMWATER_ARCHIVE_MAX_BYTES", ARCHIVE_MAX_BYTES))
    max_ratio = _limit("STORMWATER_ARCHIVE_MAX_RATIO", ARCHIVE_MAX_RATIO)

    def refuse(what: str) -> InputError:
        return InputError(f"{archive}: {what}, beyond what a site's data needs (at most {max_bytes / 2**20:,.0f} MiB, "
                          f"{max_ratio:g} times compressed): a damaged or hostile archive? Unzip it and give the data file itself")

    try:
        with zipfile.ZipFile(archive) as zf:
            infos = zf.infolist()
            declared = sum(i.file_size for i in infos)
            if declared > max_bytes:
                raise refuse(f"its {len(infos)} entries expand to {declared / 2**20:,.0f} MiB")
            total = 0
            for info in infos:
                if info.is_dir():
                    continue
                seen = 0
                with zf.open(info) as fh:
                    while chunk := fh.read(CHUNK):
                        seen += len(chunk)
                        total += len(chunk)
                        if total > max_bytes:
                            raise refuse(f"its content expands past {max_bytes / 2**20:,.0f} MiB (at {info.filename})")
                        if seen > RATIO_FLOOR_BYTES and seen > max_ratio * max(info.compress_size, 1):
                            raise refuse(f"{info.filename} expands more than {max_ratio:g} times ({info.compress_size:,} bytes to "
                                         f"more than {seen:,})")
    except InputError:
        raise
    except (OSError, zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError) as exc:  # encrypted, truncated, unknown method
        raise InputError(f"{archive}: cannot be read as a zip archive ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from exc


__all__ = ["ARCHIVE_MAX_BYTES", "ARCHIVE_MAX_RATIO", "archive_of", "check_archive"]
