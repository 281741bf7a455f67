"""Reading BibTeX a user hands us (a .bib file pulled by library_sync, text given to library_import): one reader.

The one non-obvious constraint: whatever arrives, the answer is entries or a typed ``invalid_argument`` naming the
file (``where``) and the rule, never a foreign exception. Bytes are read as UTF-8 (a BOM allowed); a file that is
not UTF-8 but reads as Windows-1252 text (Latin-1 and its superset, what older reference managers wrote) is read
that way (the stated fallback); anything else (binary data, control characters) is refused. A ``@string`` macro
used but never defined is refused with its name (bibtexparser raises ``UndefinedString``, a ``KeyError``), and a
file with more entries than ``max_entries`` is refused before anything is written, with both numbers.
"""

from __future__ import annotations

import re
import warnings

import bibtexparser
from bibtexparser.bibdatabase import UndefinedString
from bibtexparser.bparser import BibTexParser

from scholar.core.errors import InvalidArgumentError, TooLargeError

__all__ = ["NOT_TEXT", "TOO_MANY_ENTRIES", "UNDEFINED_STRING", "decode_bib", "read_bib", "split_names"]

NOT_TEXT = "bib_not_text"
UNDEFINED_STRING = "bib_undefined_string"
TOO_MANY_ENTRIES = "too_many_entries"
# C0 controls other than tab, newline and carriage return (and DEL): no text file holds them.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BOM = "\ufeff"


def _not_text(where: str, field: str | None, why: str) -> InvalidArgumentError:
    return InvalidArgumentError(
        f"{where} is not BibTeX text: {why}; a .bib file is UTF-8 (or Windows-1252/Latin-1) text",
        field=field,
        reason=NOT_TEXT,
        hint="Save the file as UTF-8 text (e.g. iconv -f latin1 -t utf-8 refs.bib), then try again.",
    )


def decode_bib(data: bytes | str, *, where: str, field: str | None = None) -> str:
    """The text of a .bib file: UTF-8, else Windows-1252 (the stated fallback), else refused.

    Raises:
        InvalidArgumentError: (reason ``bib_not_text``) the bytes are neither, or hold control characters.
    """
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            try:
                text = data.decode("cp1252")  # strict: the five bytes cp1252 leaves undefined still fail
            except UnicodeDecodeError as exc:
                raise _not_text(where, field, f"byte {exc.start} is neither UTF-8 nor Windows-1252") from exc
    else:
        text = data
    if found := _CONTROL.search(text):
        raise _not_text(where, field, f"it holds the control character {found.group()!r} at offset {found.start()}")
    return text.removeprefix(_BOM)


def read_bib(data: bytes | str, *, where: str, max_entries: int, field: str | None = None) -> list[dict[str, str]]:
    """The entries of a .bib file, as bibtexparser gives them (``ID``, ``ENTRYTYPE`` and lower-case field names).

    Args:
        data: the file's bytes, or text already decoded.
        where: how a message names the file (``refs.bib``, ``the bibtex argument``).
        max_entries: the most entries taken (the library's own bound); more is refused before any write.
        field: the tool argument holding the text, for the error envelope.

    Raises:
        InvalidArgumentError: not text (``bib_not_text``), or an undefined ``@string`` macro (``bib_undefined_string``).
        TooLargeError: more than ``max_entries`` entries (``bib_too_many_entries``).
    """
    text = decode_bib(data, where=where, field=field)
    with warnings.catch_warnings():
        # bibtexparser 1.4 builds its grammar with pyparsing's old argument names (deprecated in pyparsing 3.3).
        warnings.simplefilter("ignore", DeprecationWarning)
        parser = BibTexParser(common_strings=True, ignore_nonstandard_types=False)
        try:
            entries: list[dict[str, str]] = bibtexparser.loads(text, parser=parser).entries
        except UndefinedString as exc:
            raise InvalidArgumentError(
                f"{where} uses the @string macro {exc.args[0]!r}, which no @string in it defines",
                field=field,
                reason=UNDEFINED_STRING,
                details={"macro": str(exc.args[0])},
                hint=f'Add @string{{{exc.args[0]} = "…"}} before its first use, or write the value in braces.',
            ) from exc
    if len(entries) > max_entries:
        raise TooLargeError(
            f"{where} holds {len(entries)} entries; at most {max_entries} are read at once (a library holds at most "
            f"{max_entries} items): nothing was written; split the file",
            reason=TOO_MANY_ENTRIES,
            details={"entries": len(entries), "max": max_entries},
            hint="Split the file into parts of at most the limit and read each.",
        )
    return entries


def _split_top(text: str, separator: re.Pattern[str]) -> list[str]:
    """``text`` split at ``separator`` where it is outside braces (BibTeX's own rule for names)."""
    parts, depth, start, index = [], 0, 0, 0
    while index < len(text):
        char = text[index]
        depth += char == "{"
        depth -= char == "}" and depth > 0
        if depth == 0 and (found := separator.match(text, index)):
            parts.append(text[start:index])
            start = index = found.end()
            continue
        index += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_COMMA = re.compile(r"\s*,\s*")


def split_names(field: str) -> list[str]:
    """The display names ("Given Family") of a BibTeX name list, split as BibTeX does: at " and " and at commas
    outside braces ("{Athanasiou, Αθανασίου}, Kyriacos" is one author); braces are removed from the result."""
    names = []
    for name in _split_top(" ".join(field.split()), _AND):
        parts = [p.replace("{", "").replace("}", "") for p in _split_top(name, _COMMA)]
        # "Last, First" or "Last, Jr, First"; a name with no comma is already "First Last".
        ordered = parts if len(parts) == 1 else [parts[-1], parts[0], *parts[1:-1]]
        names.append(" ".join(p for p in ordered if p))
    return names
