"""Which CAD file a path holds, told from its first bytes, and the one line that says what to do with it.

A DWG, a binary DXF or an ASCII DXF given where GIS data belongs (the site package, a ``--layer``) or a
DWG or binary DXF given to ``import-cad`` is refused in one line naming the file, what it is and what to
do, never with a GDAL message ("Layer does not support counting", "not recognized as a supported file
format"). Both front ends ask :func:`cad_kind`; the words are :func:`as_gis_data_problem` and
:func:`for_import_problem`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

#: The first bytes of a binary DXF (AutoCAD's "DXB"-less binary form of DXF).
BINARY_DXF_MAGIC: bytes = b"AutoCAD Binary DXF"

#: What each kind is called in a message.
KIND_WORDS: dict[str, str] = {"dwg": "a DWG drawing", "binary_dxf": "a binary DXF drawing", "dxf": "a CAD drawing (DXF)"}


def cad_kind(path: Path | str) -> str | None:
    """``"dwg"``, ``"binary_dxf"`` or ``"dxf"`` when the file at ``path`` is one, else ``None`` (also for a folder or a virtual path).

    A DWG begins with its version string (``AC1015`` … ``AC1032``); a binary DXF with
    :data:`BINARY_DXF_MAGIC`; an ASCII DXF is a ``.dxf`` whose first group code is 0 or 999.
    """
    p = Path(path)
    try:
        if not p.is_file():
            return None
        with open(p, "rb") as fh:
            head = fh.read(64)
    except OSError:
        return None
    if len(head) >= 6 and head[:4] == b"AC10" and head[4:6].isdigit():
        return "dwg"
    if head.startswith(BINARY_DXF_MAGIC):
        return "binary_dxf"
    if p.suffix.lower() == ".dxf" or p.suffix.lower() == ".dwg":
        first = head.lstrip(b"\xef\xbb\xbf").lstrip().split(b"\n", 1)[0].strip()
        if first in (b"0", b"999"):
            return "dxf"
        if p.suffix.lower() == ".dwg":
            return "dwg"
    return None


def as_gis_data_problem(path: Path | str, kind: str, role: str | None = None) -> str:
    """The line refusing a CAD file given as the site package or as a role's ``--layer``."""
    where = f"the '{role}' layer" if role else "a site package"
    first = "save it as DXF in the CAD program, then " if kind == "dwg" else "save it as ASCII DXF in the CAD program, then " \
        if kind == "binary_dxf" else ""
    dxf = Path(path).with_suffix(".dxf").name
    return (f"{path}: {KIND_WORDS[kind]}, not GIS data, given as {where}: {first}import it with "
            f"`stormwater-check import-cad {dxf} --crs EPSG:… --out site.gpkg` (it sorts the drawing's CAD layers into roles) and check site.gpkg")


def for_import_problem(path: Path | str, kind: str) -> str | None:
    """The line refusing a drawing ``import-cad`` cannot read (DWG, binary DXF), or ``None`` for an ASCII DXF."""
    if kind == "dwg":
        return f"{path}: a DWG drawing, which the import cannot read: save it as DXF in the CAD program (Save As, DXF), then import the DXF"
    if kind == "binary_dxf":
        return (f"{path}: a binary DXF, which the import cannot read: save it as ASCII DXF in the CAD program (Save As, DXF, "
                "format ASCII), then import it again")
    return None


#: The first DXF version whose text is UTF-8 whatever its ``$DWGCODEPAGE`` says (AutoCAD 2007).
UTF8_FROM_VERSION: str = "AC1021"

#: Bytes of a drawing read at a time when its text is tested for UTF-8.
CHUNK_BYTES: int = 1 << 20


def dxf_header_values(path: Path | str, names: tuple[str, ...] = ("$ACADVER", "$DWGCODEPAGE"), max_lines: int = 200_000) -> dict[str, str]:
    """The values of the header variables ``names`` of an ASCII DXF (read up to the header's end)."""
    out: dict[str, str] = {}
    with open(path, "rb") as fh:
        prev: bytes | None = None
        wanted: str | None = None
        for n, raw in enumerate(fh):
            line = raw.strip()
            if wanted is not None and prev is not None and prev.strip().isdigit() and int(prev) not in (9,):
                out[wanted] = line.decode("latin-1")
                wanted = None
            elif line.decode("latin-1") in names and prev is not None and prev.strip() == b"9":
                wanted = line.decode("latin-1")
            if line == b"ENDSEC" or n > max_lines or len(out) == len(names):
                break
            prev = line
    return out


def _valid_utf8_with_non_ascii(path: Path | str) -> bool:
    """Whether the file's bytes are valid UTF-8 and hold at least one non-ASCII character (read in chunks)."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    non_ascii = False
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK_BYTES):
            if not non_ascii and not chunk.isascii():
                non_ascii = True
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError:
                return False
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return non_ascii


def dxf_text_encoding(path: Path | str) -> tuple[str | None, str | None]:
    """The encoding a DXF's text is to be read in (``None``: the drawing's own ``$DWGCODEPAGE``, GDAL's reading) and a note.

    AutoCAD 2007 and later (``$ACADVER`` AC1021 on) write DXF text in UTF-8 while ``$DWGCODEPAGE`` still says
    ANSI_1252, so GDAL, which follows the code page, turns "Puits-É1" into "Puits-Ã\x891": such a drawing is
    read as UTF-8. An older drawing whose bytes are valid UTF-8 with non-ASCII text (a converter's output) is
    read as UTF-8 too, and the note says the decoding is a guess.
    """
    head = dxf_header_values(path)
    version = head.get("$ACADVER", "")
    if version >= UTF8_FROM_VERSION:
        return "UTF-8", None
    if not _valid_utf8_with_non_ascii(path):
        return None, None
    page = head.get("$DWGCODEPAGE") or "no code page"
    return "UTF-8", (f"the drawing's text was decoded as UTF-8, a guess: it declares {version or 'no version'} and {page}, "
                     "but its bytes are UTF-8; check the accented names and ids it holds")


def dxf_entity_layers(path: Path | str, encoding: str | None = None) -> Counter[str]:
    """How many model-space and paper-space entities each CAD layer holds, from the ENTITIES section's layer group codes.

    A byte scan (memory-mapped, no entity parsed): for a large drawing it tells which layers the mapping
    would not sort at all, so GDAL can leave them unread (:func:`~stormwater_plugin.services.cad_plan.read_filter`).
    A value line reading "8" (a flag) is taken for a group code at times: names of digits only are therefore
    not counted, so a layer named so is never left unread; a count is used only to say how many entities a
    layer that was not read holds.
    """
    import mmap
    import re

    counts: Counter[bytes] = Counter()
    with open(path, "rb") as fh:
        if Path(path).stat().st_size == 0:
            return Counter()
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            start = re.search(rb"\n\s*2\r?\nENTITIES\r?\n", mm)
            if start is None:
                return Counter()
            end = re.compile(rb"\n\s*0\r?\nENDSEC\r?\n").search(mm, start.end())
            stop = end.start() if end else len(mm)
            for m in re.compile(rb"\n *8\r?\n([^\r\n]*)\r?\n").finditer(mm, start.end(), stop):
                name = bytes(m.group(1))
                if not name.strip().isdigit():  # a flag value 8 before a group code (" 70"): no layer; a layer named so is read by GDAL
                    counts[name] += 1
    # layer names decoded as GDAL decodes them: UTF-8 (dxf_text_encoding), else the code page AutoCAD's ANSI drawings use
    codec = "utf-8" if (encoding or "").upper().replace("_", "-") == "UTF-8" else "cp1252"
    return Counter({k.decode(codec, errors="replace"): v for k, v in counts.items()})


__all__ = ["BINARY_DXF_MAGIC", "dxf_entity_layers", "as_gis_data_problem", "cad_kind", "dxf_header_values", "dxf_text_encoding", "for_import_problem"]
