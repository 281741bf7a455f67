"""Extra content blocks: a picture or listing a tool returns beside its structured result.

The contract between a family and the gateway. A result model that can carry one declares
``extra_content: ExtraContentField = None`` (``EXTRA_CONTENT_FIELD``; the ``= None`` again beside the alias's own
default, so that the type checker's pydantic plugin sees the field is optional). The field is left out of the tool's
``outputSchema`` and omitted from the dump when unset; when present, the gateway takes it out of the result,
sends the remaining JSON as ``structuredContent`` (with its usual JSON text block first) and each block as one
more ``TextContent`` after it (an ``ExtraImage`` as an ``ImageContent``, an ``ExtraLink`` as a ``resource_link``
to the whole of a long answer). The structured result is therefore
the same whatever picture was asked for.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

EXTRA_CONTENT_FIELD = "extra_content"


class ExtraContent(BaseModel):
    """One text block sent after the JSON one (e.g. Mermaid, GraphML or DOT text)."""

    model_config = ConfigDict(defer_build=True)
    text: str
    media_type: str = Field(description="What the text is, e.g. text/vnd.mermaid, application/graphml+xml")


class ExtraImage(BaseModel):
    """One picture block (MCP ImageContent) sent after the JSON one, e.g. a figure rendered as PNG."""

    model_config = ConfigDict(defer_build=True)
    data: str = Field(description="The picture's bytes, base64")
    media_type: str = Field(description="What the picture is, e.g. image/png")


class ExtraLink(BaseModel):
    """A link to an MCP resource holding the whole of what the answer shows part of (MCP ``resource_link``)."""

    model_config = ConfigDict(defer_build=True)
    uri: str = Field(description="The resource's URI (scholar.core.resource_uris)")
    name: str
    title: str | None = None
    media_type: str = Field(description="What the resource is, e.g. text/markdown")


ExtraContentField = Annotated[
    SkipJsonSchema[list[ExtraContent | ExtraImage | ExtraLink] | None],
    Field(default=None, exclude_if=lambda value: value is None, description="Moved into extra content blocks"),
]


def _split(result: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if EXTRA_CONTENT_FIELD not in result:
        return result, []
    rest = {key: value for key, value in result.items() if key != EXTRA_CONTENT_FIELD}
    return rest, list(result[EXTRA_CONTENT_FIELD] or [])


def split_extra_content(result: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The result without its extra blocks, and the blocks (``[]`` when it has none).

    A polled task's answer (``get_task_result``'s ``result``) gives up its blocks the same way, so a figure read
    that ran as a task arrives as the same image block as one answered at once.
    """
    inner = result.get("result")
    polled: list[dict[str, Any]] = []
    if isinstance(inner, dict) and EXTRA_CONTENT_FIELD in inner:
        inner, polled = _split(inner)
        result = {**result, "result": inner}
    result, extra = _split(result)
    return result, extra + polled
