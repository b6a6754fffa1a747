"""The letter's files written together: the DOCX, the PDF beside it and ``letter.json``.

All three are rendered first, then staged beside their targets and renamed together
(:mod:`stormwater_plugin.services.safe_files`): a reader never finds a new DOCX beside an old
letter.json (which would give the next round wrong numbers), and a failure part-way leaves the earlier
files as they were.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from ..services.letter import Letter
from ..services.output_manifest import Part, publish, read_manifest
from ..services.safe_files import discard, stage
from .letter_docx import letter_docx_bytes
from .letter_pdf import letter_pdf_bytes
from .letter_template import LetterTemplate


def write_letter_files(letter: Letter, docx_path: Path, json_paths: Sequence[Path], template: LetterTemplate | None = None,
                       notes: list[str] | None = None) -> list[Path]:
    """Write the letter's DOCX at ``docx_path``, its PDF beside it and its letter.json at each of ``json_paths``.

    Only over files the folders' manifests say the tool wrote
    (:mod:`stormwater_plugin.services.output_manifest`, command ``letter``). A folder without a manifest whose
    letter.json folder holds an earlier release's letter.json is read as that release's: its DOCX and PDF of
    these names are replaced. What the run did to such a folder is appended to ``notes``.

    Returns
    -------
    list of Path
        The files written (DOCX, PDF, then the JSON files).

    Raises
    ------
    OSError
        A file cannot be written; none of them has then been replaced.
    ForeignFilesError
        One of the files exists and the tool did not write it (named); none has been replaced.
    """
    docx_path = Path(docx_path)
    payloads: list[tuple[Path, bytes]] = [
        (docx_path, letter_docx_bytes(letter, template)),
        (docx_path.with_suffix(".pdf"), letter_pdf_bytes(letter, template)),
    ]
    text = (json.dumps(letter.as_dict(), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    for p in dict.fromkeys(Path(j) for j in json_paths):
        payloads.append((p, text))
    staged: list[tuple[str, Path]] = []
    try:
        for target, data in payloads:
            staged.append((stage(target, data), target))
    except BaseException:
        for tmp, _ in staged:
            discard(tmp)
        raise
    names = tuple(dict.fromkeys(t.name for t, _ in payloads))
    earlier_letter = any(read_manifest(t.parent) is None and t.is_file() for t, _ in payloads[2:])
    parts: dict[Path, Part] = {}
    for tmp, target in staged:
        part = parts.setdefault(target.parent, Part(target.parent, "letter", known=names,
                                                     legacy=True if earlier_letter and target.parent == docx_path.parent else None))
        part.files.append((target.name, tmp))
    said = publish(list(parts.values()))
    if notes is not None:
        notes.extend(said)
    return [t for t, _ in payloads]


__all__ = ["write_letter_files"]
