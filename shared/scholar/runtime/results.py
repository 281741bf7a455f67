"""The wire form of a tool result: optional fields without a value omitted, and one hard size cap.

Both rules hold for every tool because ``runtime.family`` applies them to every result it returns
(DESIGN §4, §9). An optional field (one with a default) that is ``None`` is left out, which its output
schema allows; a required field that may be ``None`` stays (its schema lists it as required).
The cap is measured on what the gateway sends: the JSON as ``structuredContent`` plus the same JSON,
escaped, as the text block (about twice the JSON), and it keeps the answer under Lambda's 6 MB
synchronous response limit.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from scholar.core.errors import TooLargeError

# Lambda's synchronous response limit is 6 MB (6,291,456 bytes); keep room for the JSON-RPC wrapper.
MAX_RESPONSE_BYTES = 5 * 1024 * 1024


def dump_result(model: BaseModel) -> dict[str, Any]:
    """The JSON form of a result model, without the optional fields that hold no value."""
    data = model.model_dump(mode="json", by_alias=True)
    _prune(model, data)
    return data


def _prune(value: Any, dumped: Any) -> None:
    if isinstance(value, BaseModel) and isinstance(dumped, dict):
        for name, field in type(value).model_fields.items():
            key = field.serialization_alias or field.alias or name
            if key not in dumped:
                continue
            inner = getattr(value, name, None)
            if inner is None:
                if not field.is_required():
                    del dumped[key]
                continue
            _prune(inner, dumped[key])
    elif isinstance(value, (list, tuple)) and isinstance(dumped, list) and len(value) == len(dumped):
        for item, out in zip(value, dumped, strict=True):
            _prune(item, out)
    elif isinstance(value, dict) and isinstance(dumped, dict):
        for key, item in value.items():
            if isinstance(key, str) and key in dumped:
                _prune(item, dumped[key])


def response_bytes(result: dict[str, Any]) -> int:
    """Bytes the gateway sends for ``result``: structuredContent plus the text block holding the same JSON."""
    text = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
    return len(text.encode()) + len(json.dumps(text, ensure_ascii=False).encode())


def enforce_cap(tool: str, result: dict[str, Any], advertised: int | None = None) -> dict[str, Any]:
    """Return ``result`` if it fits the hard cap and the size its tool advertises.

    ``advertised`` is the tool's ``max_result_chars`` (``_meta["anthropic/maxResultSizeChars"]``): its lists are
    cut to fit before this (scholar.core.budget), so this refusal is the proof that the hint is a cap, not the path
    an answer takes. The JSON of the whole result, extra blocks included, is at least what a client reads: the text
    block without them plus each block's text.

    Raises:
        TooLargeError: the response would exceed ``MAX_RESPONSE_BYTES``, or the answer its advertised size.
    """
    text = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
    if advertised is not None and len(text) > advertised:
        raise TooLargeError(
            f"the {tool} answer would be {len(text):,} characters, over the {advertised:,} it advertises",
            reason="result_over_advertised_size",
            hint="Ask for less: fewer identifiers, a smaller limit, or page with offset / next_offset.",
            details={"chars": len(text), "cap_chars": advertised},
        )
    n = len(text.encode())
    # Escaping at most sextuples a character (a control character becomes \u00XX): small answers need no
    # second pass, so the usual result costs one serialisation.
    if 7 * n + 2 <= MAX_RESPONSE_BYTES:
        return result
    size = response_bytes(result)
    if size > MAX_RESPONSE_BYTES:
        raise TooLargeError(
            f"the {tool} answer would be {size:,} bytes, over the {MAX_RESPONSE_BYTES:,}-byte response cap",
            reason="response_too_large",
            hint="Ask for less: a smaller limit or max_characters, or page with offset / next_offset.",
            details={"bytes": size, "cap_bytes": MAX_RESPONSE_BYTES},
        )
    return result
