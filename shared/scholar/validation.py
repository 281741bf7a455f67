"""Tool arguments: validated strictly against what the schema says; failures become ``invalid_argument``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from scholar.errors import InvalidArgumentError
from scholar.id_forms import TAKEN_BY, wrong_form
from scholar.ids import InvalidIdError, parse_paper_id

# The string rules an identifier of another kind breaks (a pattern, a length).
_STRING_RULES = frozenset({"string_pattern_mismatch", "string_too_long", "string_too_short"})

M = TypeVar("M", bound=BaseModel)


def validate_arguments(model: type[M], arguments: Mapping[str, Any] | None, *, tool: str) -> M:
    """Validate a tool's arguments exactly as its JSON Schema states, in the gateway and the family alike.

    Strict validation of the JSON form: ``"5"`` or ``true`` for an integer and ``"yes"`` for a boolean are
    refused, while what JSON can only spell as a string (dates, enum members) is read from its string, as
    the schema says. (Strict *python* mode would refuse those strings too.)

    Raises:
        InvalidArgumentError: the first failure names the field and the rule (all of them in ``details``).
    """
    try:
        return model.model_validate_json(json.dumps(dict(arguments or {}), allow_nan=False), strict=True)
    except ValueError as exc:  # ValidationError is a ValueError; json.dumps refuses NaN/Infinity
        if isinstance(exc, ValidationError):
            raise invalid_argument(exc, tool=tool) from exc
        raise InvalidArgumentError(f"{tool}: arguments hold a number JSON cannot carry (NaN or Infinity)",
                                   field="(arguments)") from exc


def invalid_argument(exc: ValidationError, *, tool: str) -> InvalidArgumentError:
    """The first failure as the message (field + rule), all failures in ``details.errors``.

    When the failing value is an identifier of a recognisable kind (a DOI given where a stored PDF is asked, a
    PDF reference where a patent number is), the refusal says what it is and which tool takes it
    (``scholar.id_forms``) rather than only the rule it broke.
    """
    problems = []
    for err in exc.errors(include_url=False):
        field = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        rule = err["msg"]
        if err["type"] == "extra_forbidden":
            rule = "is not a parameter of this tool"
        elif err["type"] == "missing":
            rule = "is required"
        problems.append({"field": field, "rule": rule})
    first = problems[0] if problems else {"field": "(arguments)", "rule": "invalid"}
    if (named := _named_form(exc, tool, first["field"], first["rule"])) is not None:
        named.details["errors"] = problems
        return named
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return InvalidArgumentError(
        f"{tool}: argument '{first['field']}' {first['rule']}{more}",
        field=first["field"],
        details={"errors": problems},
    )


def _named_form(exc: ValidationError, tool: str, field: str, rule: str) -> InvalidArgumentError | None:
    """The wrong-form refusal of the first failing value, when it is a string ``scholar.ids`` recognises."""
    errors = exc.errors(include_url=False)
    value = errors[0].get("input") if errors else None
    if not isinstance(value, str) or errors[0]["type"] not in _STRING_RULES:
        return None
    try:
        kind = parse_paper_id(value).kind
    except InvalidIdError:
        return None
    if TAKEN_BY[kind] == tool:  # the right kind, written against the rule: the rule itself is the message
        return None
    return wrong_form(value, kind, tool=tool, field=field, takes=f"a value that satisfies its rule ({rule})")
