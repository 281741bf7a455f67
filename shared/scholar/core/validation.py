"""Tool arguments: validated strictly against what the schema says; failures become ``invalid_argument``."""

from __future__ import annotations

import json
import types
from collections.abc import Mapping
from functools import cache
from typing import Any, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from scholar.core.errors import InvalidArgumentError
from scholar.core.id_forms import TAKEN_BY, wrong_form
from scholar.core.ids import InvalidIdError, parse_paper_id

# The string rules an identifier of another kind breaks (a pattern, a length).
_STRING_RULES = frozenset({"string_pattern_mismatch", "string_too_long", "string_too_short"})

M = TypeVar("M", bound=BaseModel)


def validate_arguments(model: type[M], arguments: Mapping[str, Any] | None, *, tool: str) -> M:
    """Validate a tool's arguments exactly as its JSON Schema states, in the gateway and the family alike.

    Strict validation of the JSON form: ``"5"`` or ``true`` for an integer and ``"yes"`` for a boolean are
    refused, while what JSON can only spell as a string (dates, enum members) is read from its string, as
    the schema says. (Strict *python* mode would refuse those strings too.) A JSON ``null`` for an optional
    parameter is read as leaving it out (its schema is the plain type, not required: scholar.core.catalogue), so
    clients that send every parameter, unset ones as null, are served; a null for a required one is refused.

    Raises:
        InvalidArgumentError: the first failure names the field and the rule (all of them in ``details``).
    """
    given = dict(arguments or {})
    absent = _null_means_absent(model)
    given = {key: value for key, value in given.items() if not (value is None and key in absent)}
    try:
        return model.model_validate_json(json.dumps(given, allow_nan=False), strict=True)
    except ValueError as exc:  # ValidationError is a ValueError; json.dumps refuses NaN/Infinity
        if isinstance(exc, ValidationError):
            raise invalid_argument(exc, tool=tool) from exc
        raise InvalidArgumentError(f"{tool}: arguments hold a number JSON cannot carry (NaN or Infinity)",
                                   field="(arguments)") from exc


def invalid_argument(exc: ValidationError, *, tool: str) -> InvalidArgumentError:
    """The first failure as the message (field + rule), all failures in ``details.errors``.

    When the failing value is an identifier of a recognisable kind (a DOI given where a stored PDF is asked, a
    PDF reference where a patent number is), the refusal says what it is and which tool takes it
    (``scholar.core.id_forms``) rather than only the rule it broke.
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


@cache
def _null_means_absent(model: type[BaseModel]) -> frozenset[str]:
    """Optional parameters (by wire name) whose type has no null: a JSON null for them is the parameter left out.

    A parameter whose type admits None keeps its null (its model gives it a meaning, which for a default of None
    is the same as leaving it out).
    """
    return frozenset(
        field.alias or name for name, field in model.model_fields.items()
        if not field.is_required() and not _admits_none(field.annotation)
    )


def _admits_none(annotation: Any) -> bool:
    if annotation is None or annotation is type(None):
        return True
    if get_origin(annotation) in (Union, types.UnionType):
        return any(_admits_none(arg) for arg in get_args(annotation))
    return False


def _named_form(exc: ValidationError, tool: str, field: str, rule: str) -> InvalidArgumentError | None:
    """The wrong-form refusal of the first failing value, when it is a string ``scholar.core.ids`` recognises."""
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
