"""DynamoDB's expression language, for the local backend: conditions, filters, key conditions, updates, projections.

The stores build their requests for DynamoDB (``#name`` and ``:value`` placeholders, typed attribute values); the
local backend answers the same requests, so it reads the same expressions. Only what the stores write is here:
comparisons, ``BETWEEN``, ``IN``, ``AND``/``OR``/``NOT``, parentheses, ``attribute_exists``,
``attribute_not_exists``, ``begins_with``, ``contains``; updates ``SET`` (with ``if_not_exists`` and ``+``/``-``),
``ADD`` and ``REMOVE``. An expression outside that subset is a ``ValueError`` (a request we built wrongly), never a
silent pass. Top-level attribute names only (our items have no nested paths in expressions).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any

Item = dict[str, dict[str, Any]]
_TOKEN = re.compile(r"\s*(<>|<=|>=|[=<>(),+\-]|[#:]?[A-Za-z_][A-Za-z0-9_.\-]*)")
_FUNCTIONS = ("attribute_exists", "attribute_not_exists", "begins_with", "contains", "if_not_exists")


def tokens(text: str) -> list[str]:
    out: list[str] = []
    position = 0
    text = text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match:
            raise ValueError(f"cannot read the expression at {text[position:position + 20]!r}")
        out.append(match.group(1))
        position = match.end()
    return out


def scalar(value: Mapping[str, Any] | None) -> Any:
    """A typed attribute value as a comparable Python value (numbers exact; None when absent)."""
    if value is None:
        return None
    (kind, raw), = value.items()
    if kind == "N":
        return Decimal(raw)
    if kind in ("SS", "BS"):
        return set(raw)
    if kind == "NS":
        return {Decimal(n) for n in raw}
    if kind == "NULL":
        return None
    return raw


class _Parser:
    """Recursive descent over one expression's tokens, resolving placeholders as it goes."""

    def __init__(self, text: str, names: Mapping[str, str] | None, values: Mapping[str, Any] | None) -> None:
        self.tokens = tokens(text)
        self.at = 0
        self.names = names or {}
        self.values = values or {}

    def peek(self, offset: int = 0) -> str | None:
        index = self.at + offset
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token.upper() != expected):
            raise ValueError(f"expected {expected or 'more'} in the expression, found {token!r}")
        self.at += 1
        return token

    def name(self) -> str:
        token = self.take()
        return self.names[token] if token.startswith("#") else token

    def operand(self) -> Callable[[Item], Any]:
        """A path, a ``:value`` or a function call; evaluated against an item to its typed value."""
        token = self.peek()
        if token is not None and token.startswith(":"):
            self.at += 1
            value = self.values[token]
            return lambda item: value
        if token in _FUNCTIONS and self.peek(1) == "(":
            return self.function()
        attribute = self.name()
        return lambda item: item.get(attribute)

    def operands(self) -> list[Callable[[Item], Any]]:
        """``( operand, operand … )``: a function's arguments, or IN's options."""
        self.take("(")
        found = [self.operand()]
        while self.peek() == ",":
            self.take(",")
            found.append(self.operand())
        self.take(")")
        return found

    def function(self) -> Callable[[Item], Any]:
        fn = self.take()
        args = self.operands()
        if fn == "if_not_exists":
            return lambda item: args[0](item) if args[0](item) is not None else args[1](item)
        return lambda item: _call(fn, [arg(item) for arg in args])

    # condition := conjunction (OR conjunction)*; conjunction := negation (AND negation)*; negation := NOT? primary
    def condition(self) -> Callable[[Item], bool]:
        return self._joined("OR", self.conjunction, any)

    def conjunction(self) -> Callable[[Item], bool]:
        return self._joined("AND", self.negation, all)

    def _joined(self, keyword: str, part: Callable[[], Callable[[Item], bool]],
                combine: Callable[[Iterable[bool]], bool]) -> Callable[[Item], bool]:
        parts = [part()]
        while (self.peek() or "").upper() == keyword:
            self.take()
            parts.append(part())
        if len(parts) == 1:
            return parts[0]
        return lambda item: combine(p(item) for p in parts)  # short-circuits as the generator is consumed

    def negation(self) -> Callable[[Item], bool]:
        if (self.peek() or "").upper() == "NOT":
            self.take()
            inner = self.negation()
            return lambda item: not inner(item)
        if self.peek() == "(":
            self.take("(")
            inner = self.condition()
            self.take(")")
            return inner
        return self.comparison()

    def comparison(self) -> Callable[[Item], bool]:
        called = self.peek() in _FUNCTIONS and self.peek(1) == "("
        left = self.operand()
        op = (self.peek() or "").upper()
        if op == "BETWEEN":
            self.take()
            low = self.operand()
            self.take("AND")
            high = self.operand()
            return lambda item: _between(scalar(left(item)), scalar(low(item)), scalar(high(item)))
        if op == "IN":
            self.take()
            options = self.operands()
            return lambda item: any(_compare("=", left(item), option(item)) for option in options)
        if op in ("=", "<>", "<", "<=", ">", ">="):
            self.take()
            right = self.operand()
            return lambda item: _compare(op, left(item), right(item))
        if not called:
            raise ValueError(f"a condition needs a comparison or a function, found {self.peek()!r}")
        return lambda item: bool(left(item))  # a function that is itself the condition

    def done(self) -> None:
        if self.peek() is not None:
            raise ValueError(f"unexpected {self.peek()!r} in the expression")


def _call(fn: str, args: list[Any]) -> Any:
    if fn == "attribute_exists":
        return args[0] is not None
    if fn == "attribute_not_exists":
        return args[0] is None
    value, part = scalar(args[0]), scalar(args[1])
    if value is None:
        return False
    if fn == "begins_with":
        return isinstance(value, str | bytes) and value.startswith(part)
    if isinstance(value, str):  # contains on a string
        return part in value
    if isinstance(value, set):
        return part in value
    return any(scalar(element) == part for element in args[0].get("L", []))


def _compare(op: str, left: Any, right: Any) -> bool:
    if left is None or right is None or next(iter(left)) != next(iter(right)):
        return op == "<>" and not (left is None and right is None)  # differently typed or absent: only <> holds
    a, b = scalar(left), scalar(right)
    if op == "=":
        return bool(a == b)
    if op == "<>":
        return bool(a != b)
    try:
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    except TypeError:
        return False


def _between(value: Any, low: Any, high: Any) -> bool:
    if value is None or low is None or high is None:
        return False
    try:
        return bool(low <= value <= high)
    except TypeError:
        return False


def condition(text: str | None, names: Mapping[str, str] | None = None,
              values: Mapping[str, Any] | None = None) -> Callable[[Item], bool]:
    """A predicate over items for a condition, filter or key condition (always true when ``text`` is empty)."""
    if not text:
        return lambda item: True
    parser = _Parser(text, names, values)
    predicate = parser.condition()
    parser.done()
    return predicate


def projection(text: str | None, names: Mapping[str, str] | None = None) -> Callable[[Item], Item]:
    """The item cut to the attributes a ProjectionExpression names (the whole item when ``text`` is empty)."""
    if not text:
        return lambda item: item
    wanted = [(names or {}).get(part.strip(), part.strip()) for part in text.split(",")]
    return lambda item: {name: item[name] for name in wanted if name in item}


def _number(value: Decimal) -> dict[str, str]:
    text = format(value.normalize(), "f") if value == value.to_integral_value() else str(value)
    return {"N": text}


def _arithmetic(left: Any, op: str, right: Any) -> dict[str, str]:
    a, b = scalar(left), scalar(right)
    if not isinstance(a, Decimal) or not isinstance(b, Decimal):
        raise ValueError("an update's + and - need two numbers")
    return _number(a + b if op == "+" else a - b)


def update(text: str, names: Mapping[str, str] | None, values: Mapping[str, Any] | None, item: Item) -> Item:
    """The item after an UpdateExpression (a new dict; ``item`` is left as it was)."""
    parser = _Parser(text, names, values)
    new = dict(item)
    while parser.peek() is not None:
        clause = parser.take().upper()
        while True:
            if clause == "SET":
                target = parser.name()
                parser.take("=")
                value = parser.operand()(item)
                if parser.peek() in ("+", "-"):
                    op = parser.take()
                    value = _arithmetic(value, op, parser.operand()(item))
                if value is None:
                    raise ValueError(f"the update sets {target} from an attribute that does not exist")
                new[target] = value
            elif clause == "ADD":
                target = parser.name()
                delta = parser.operand()(item)
                current = new.get(target)
                if "N" in delta:
                    new[target] = delta if current is None else _arithmetic(current, "+", delta)
                else:  # a set
                    (kind, members), = delta.items()
                    new[target] = {kind: sorted(set((current or {}).get(kind, [])) | set(members))}
            elif clause == "REMOVE":
                new.pop(parser.name(), None)
            else:
                raise ValueError(f"unsupported update clause {clause!r}")
            if parser.peek() != ",":
                break
            parser.take(",")
    return new
