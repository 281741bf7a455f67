"""A tool's parameters as command-line arguments, read from its input schema (the catalogue's, as tools/list sends).

The rule for what is positional: the required parameters, in schema order, when at most one of them is a list and
that one comes last (``get-paper ID``, ``find-bridge-papers A B``, ``arxiv-get-papers ID...``); a tool with no
required parameter but a ``query`` takes the query positionally (``search "…"``). Everything else is an option
named after its parameter (``max_chars`` → ``--max-chars``): integers and numbers typed, enums as choices, booleans
as ``--flag`` / ``--no-flag``, lists as several values, objects as JSON. An option never given is left out of the
arguments (the tool's own default applies), so the schema's validation, not this module, has the last word.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from scholar.core.catalogue import ToolSpec

__all__ = ["add_parameters", "arguments_of", "command_name", "positional_names"]

QUERY = "query"
_SCALARS: dict[str, Any] = {"integer": int, "number": float, "string": str}
# Text parameters too large for a command line (over 128 KiB: "Argument list too long"): the option also takes a
# file's path, or - for stdin.
FROM_FILE = {("library_import", "jsonl")}
STDIN = "-"


def _text_or_file(raw: str) -> str:
    """``-``: stdin; an existing file's path: its text; else the text itself (a JSONL snapshot starts with ``{``)."""
    if raw == STDIN:
        return sys.stdin.read()
    path = Path(raw)
    if not raw.lstrip().startswith("{") and len(raw) < 4096 and path.is_file():
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise argparse.ArgumentTypeError(f"cannot read {raw}: {exc}") from exc
    return raw


def command_name(tool: str) -> str:
    """``get_paper`` → ``get-paper``."""
    return tool.replace("_", "-")


def positional_names(schema: dict[str, Any]) -> list[str]:
    """The parameters taken positionally (see the module docstring)."""
    properties: dict[str, Any] = schema.get("properties", {})
    required = [name for name in properties if name in schema.get("required", [])]
    if not required:
        return [QUERY] if QUERY in properties else []
    lists = [name for name in required if properties[name].get("type") == "array"]
    if len(lists) > 1 or (lists and lists[0] != required[-1]):
        return []
    return required


def _json_value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {raw[:60]!r}") from exc


def _value_type(prop: dict[str, Any]) -> Any:
    kind = prop.get("type")
    if kind in _SCALARS:
        return _SCALARS[kind]
    return _json_value  # an object, or a union the schema states as anyOf


def _help(prop: dict[str, Any], item: dict[str, Any]) -> str:
    text = prop.get("description", "")
    if "enum" in item:
        text += ("; " if text else "") + "one of: " + ", ".join(str(choice) for choice in item["enum"])
    if "default" in prop:
        text += f" (default: {json.dumps(prop['default'])})"
    return text.replace("%", "%%").strip()


def add_parameters(parser: argparse.ArgumentParser, spec: ToolSpec) -> None:
    """Add the tool's parameters to its subcommand's parser."""
    schema = spec.input_schema()
    positional = positional_names(schema)
    for name, prop in schema.get("properties", {}).items():
        is_list = prop.get("type") == "array"
        item = prop.get("items", {}) if is_list else prop
        kwargs: dict[str, Any] = {"help": _help(prop, item), "default": argparse.SUPPRESS}
        if prop.get("type") == "boolean":
            parser.add_argument(f"--{command_name(name)}", dest=name, action=argparse.BooleanOptionalAction, **kwargs)
            continue
        kwargs["type"] = _value_type(item)
        if (spec.name, name) in FROM_FILE:
            kwargs["type"] = _text_or_file
            kwargs["help"] += " (or a file's path, or - to read it from stdin)"
        if "enum" in item:
            kwargs["choices"] = item["enum"]
        if is_list:
            kwargs["nargs"] = "+"
        if name in positional:
            if name not in schema.get("required", []):
                kwargs["nargs"] = "?"
            parser.add_argument(name, metavar=name.upper(), **kwargs)
        else:
            parser.add_argument(f"--{command_name(name)}", dest=name, metavar=name.upper(),
                                required=name in schema.get("required", []), **kwargs)


def arguments_of(namespace: argparse.Namespace, spec: ToolSpec) -> dict[str, Any]:
    """The tool's arguments from a parsed command line: only what was given."""
    given = vars(namespace)
    return {name: given[name] for name in spec.input_schema().get("properties", {})
            if name in given and given[name] is not None}
