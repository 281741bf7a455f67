"""OPS full text (claims, description) → plain text, English preferred, the language reported.

OPS returns one ``claims`` / ``description`` element per language it holds; English is chosen when
present, else the first. Claims are joined one claim per paragraph; description paragraphs likewise.
"""

from __future__ import annotations

from typing import Any

from scholar.sources.epo_ops_biblio import NS, parse_xml


def _pick(nodes: list[Any]) -> Any | None:
    if not nodes:
        return None
    return next((n for n in nodes if (n.get("lang") or "").lower() == "en"), nodes[0])


def _paragraphs(node: Any, xpath: str) -> str:
    parts = []
    for item in node.xpath(xpath, namespaces=NS):
        lines = [" ".join(line.split()) for line in "".join(item.itertext()).split("\n")]
        block = "\n".join(line for line in lines if line)
        if block:
            parts.append(block)
    return "\n\n".join(parts)


def parse_claims(body: bytes) -> dict[str, str | None] | None:
    """``{"text", "language"}`` of the claims, or None when the answer holds none."""
    chosen = _pick(parse_xml(body, what="claims").xpath("//ft:claims", namespaces=NS))
    if chosen is None:
        return None
    text = _paragraphs(chosen, ".//ft:claim-text[not(ancestor::ft:claim-text)]")
    return {"text": text, "language": (chosen.get("lang") or "").lower() or None} if text else None


def parse_description(body: bytes) -> dict[str, str | None] | None:
    """``{"text", "language"}`` of the description, or None when the answer holds none."""
    chosen = _pick(parse_xml(body, what="description").xpath("//ft:description", namespaces=NS))
    if chosen is None:
        return None
    text = _paragraphs(chosen, "ft:p")
    return {"text": text, "language": (chosen.get("lang") or "").lower() or None} if text else None
