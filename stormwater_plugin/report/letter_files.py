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
from ..services.safe_files import commit, discard, stage
from .letter_docx import letter_docx_bytes
from .letter_pdf import letter_pdf_bytes
from .letter_template import LetterTemplate


def write_letter_files(letter: Letter, docx_path: Path, json_paths: Sequence[Path], template: LetterTemplate | None = None) -> list[Path]:
    """Write the letter's DOCX at ``docx_path``, its PDF beside it and its letter.json at each of ``json_paths``.

    Returns
    -------
    list of Path
        The files written (DOCX, PDF, then the JSON files).

    Raises
    ------
    OSError
        A file cannot be written; none of them has then been replaced.
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
    commit(staged)
    return [t for t, _ in payloads]


__all__ = ["write_letter_files"]
