"""One text-sanitising function for every output: control characters out of what a town prints, files and reads.

An owner's name, an applicant's, a reviewer's or a feature's id arrives from a file or a form and goes out
into the DOCX and PDF letters, the report, ``notification.csv`` and the terminal. Word's line break (a
vertical tab) makes a DOCX writer refuse the whole letter; a terminal escape sequence in an applicant's name
recolours or rewrites the clerk's terminal; a NUL ends a string in C libraries. :func:`printable_text` is the
one function every writer passes text through:

- an ANSI escape sequence (CSI ``ESC [ … letter``, OSC ``ESC ] … BEL``) is removed whole;
- a line or page break that is not ``\\n`` (vertical tab, form feed, CR, U+2028, U+2029, NEL) becomes a space,
  or ``\\n`` where the text may hold lines;
- a tab becomes a space (kept where the text may hold lines);
- every other C0 or C1 control character, DEL, a lone surrogate and U+FFFE/U+FFFF (none of which XML
  allows) is removed, a NUL included.

:func:`printable_changed` tells a writer whether a value was changed, so it can warn where it did.
"""

from __future__ import annotations

import re

#: ANSI escape sequences (CSI and OSC), removed whole: their parameters are no text of the value.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]?")

#: Line and page breaks other than ``\n``.
_BREAKS = re.compile("\r\n|[\r\x0b\x0c\x85\u2028\u2029]")

#: Everything else no output should carry: C0 and C1 controls (bar tab and newline, handled above), DEL,
#: lone surrogates and the non-characters XML excludes.
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def printable_text(value: object, *, multiline: bool = False) -> str:
    """``value`` as text fit for every output (see the module docstring).

    Parameters
    ----------
    value : object
        Any value; ``None`` is the empty text, anything else its ``str``.
    multiline : bool
        Whether the text may hold lines (a comment, an address block): breaks become ``\\n`` and tabs are
        kept; else (a name, an id, a cell) both become a space.

    Returns
    -------
    str
    """
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable() and "\x1b" not in text:  # the common case: nothing to do
        return text
    text = _ESCAPES.sub("", text)
    text = _BREAKS.sub("\n" if multiline else " ", text)
    if not multiline:
        text = text.replace("\n", " ").replace("\t", " ")
    return _CONTROLS.sub("", text)


def printable_changed(value: object, *, multiline: bool = False) -> bool:
    """Whether :func:`printable_text` changes ``value`` (a writer warns where it did)."""
    if value is None:
        return False
    text = value if isinstance(value, str) else str(value)
    return printable_text(text, multiline=multiline) != text


__all__ = ["printable_changed", "printable_text"]
