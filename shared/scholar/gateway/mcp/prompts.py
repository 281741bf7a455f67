"""prompts/list and prompts/get: the research workflows our users run, each a template of real tool calls.

A prompt is data: its arguments and its steps, each step one tool of the catalogue with its arguments, where a
value ``"{name}"`` is the prompt argument ``name`` (a step that needs an argument not given is left out, and a
``"{name?}"`` value is left out of its step instead), ``<…>`` marks what an earlier step's answer supplies, and
text in ``[[…]]`` is said only when the arguments it names were given. prompts/get renders the steps as calls an
agent can make as written, after validating each one with the tool's own input model exactly as tools/call would,
so a bad argument is -32602 naming it, and tests/gateway holds every step to the catalogue: a renamed tool or field
breaks the build, not the prompt. A prompt is listed where all its tools are reachable (read-only mode, keys) and
its first step's tool is listed on the connection (its profile and toolsets); a later step whose tool the connection
does not list is left out of the message, which names the tools left out and the URL that lists them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp import types
from mcp.shared.exceptions import MCPError

from scholar.core.catalogue import ALL_PROFILE, Selection, ToolSpec
from scholar.core.config import Settings
from scholar.core.errors import InvalidArgumentError
from scholar.core.numerals import ascii_int
from scholar.core.validation import validate_arguments
from scholar.families import all_tools, families
from scholar.gateway.mcp.tools import CATALOGUE_TTL_MS, visible

_PLACEHOLDER = re.compile(r"^\{([a-z_]+)(\??)\}$")
_NAMED = re.compile(r"\{([a-z_]+)\}")
_OPTIONAL_TEXT = re.compile(r"\[\[(.*?)\]\]")
_LIST_SEPARATOR = re.compile(r"[\s,;]+")
MAX_ARGUMENT_CHARS = 2_000
ArgumentKind = Literal["text", "integer", "list"]


@dataclass(frozen=True)
class Argument:
    """One prompt argument (MCP sends strings: ``kind`` says how a step reads it)."""

    name: str
    description: str
    required: bool = False
    kind: ArgumentKind = "text"
    default: str | None = None


@dataclass(frozen=True)
class Step:
    tool: str
    arguments: Mapping[str, Any]
    purpose: str


@dataclass(frozen=True)
class Prompt:
    name: str
    title: str
    description: str
    arguments: tuple[Argument, ...]
    goal: str
    steps: tuple[Step, ...]
    answer: str
    # The argument naming a family (toolset) whose tools the message lists, from the catalogue.
    lists_family: str | None = None
    tools: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tools", tuple(dict.fromkeys(step.tool for step in self.steps)))


PROMPTS: tuple[Prompt, ...] = (
    Prompt(
        name="literature_review",
        title="Literature review of a question",
        description="Survey what is known about a research question: the reviews and key papers, the newest "
        "preprints, read the best ones, keep them in a collection and export the bibliography.",
        arguments=(
            Argument("question", "The research question, as you would ask it", required=True),
            Argument("year_start", "Only papers from this year on", kind="integer"),
            Argument("category", "An arXiv category for the newest preprints, e.g. cs.LG"),
            Argument("collection", "Library collection to keep the papers in", default="literature-review"),
        ),
        goal="Write a literature review of: {question}",
        steps=(
            Step("search", {"query": "{question}", "intent": "survey", "limit": 20, "year_start": "{year_start?}"},
                 "the reviews and the most relevant papers, one ranked list from every scholarly source"),
            Step("search", {"query": "{question}", "intent": "foundational", "limit": 10},
                 "the older papers the field builds on"),
            Step("arxiv_search", {"query": "{question}", "category": "{category?}", "sort_by": "submitted"},
                 "the newest preprints[[ in {category}]]"),
            Step("read_paper", {"identifier": "<id of a result>", "outline": True},
                 "the headings of each paper worth reading, with their pages"),
            Step("read_paper", {"identifier": "<id of a result>", "section": "<a heading of its outline>"},
                 "the sections that answer the question (results, discussion)"),
            Step("library_add", {"identifier": "<id of a result>", "collection": "{collection}",
                                 "tags": ["literature-review"]}, "keep each paper you will cite"),
            Step("library_export", {"format": "bibtex", "collection": "{collection}"}, "the bibliography"),
        ),
        answer="Organise the review by theme, say where the papers agree and disagree, cite every claim with the "
        "paper it comes from, and name any source the searches reported as failed (failed_sources).",
    ),
    Prompt(
        name="related_work_section",
        title="Related-work section from a collection",
        description="Draft a related-work section from the papers of one of your library's collections, with "
        "the citations exported in the format you write in.",
        arguments=(
            Argument("collection", "The library collection the section draws on", required=True),
            Argument("topic", "What your own work is about (what the section relates the papers to)"),
            Argument("tag", "Only the collection's papers with this tag"),
            Argument("format", "Citation format of the bibliography: bibtex, csl-json or ris", default="bibtex"),
        ),
        goal="Draft a related-work section from my collection {collection}",
        steps=(
            Step("library_list", {"collection": "{collection}", "tag": "{tag?}", "limit": 100},
                 "the papers of the collection[[ tagged {tag}]]"),
            Step("library_search", {"query": "{topic}", "collection": "{collection}", "tag": "{tag?}"},
                 "which of them speak to the topic, with the passages that match"),
            Step("library_get", {"ids": ["<item_id>"]}, "the full records (abstracts, every author, venues)"),
            Step("read_paper", {"identifier": "<one of the item's ids>", "outline": True},
                 "the structure of the papers the section leans on most"),
            Step("search", {"query": "{topic}", "intent": "recent", "limit": 10},
                 "recent work the collection may be missing"),
            Step("generate_citations", {"paper_ids": ["<id of each paper the section cites>"],
                                        "citation_format": "{format}"}, "the bibliography of the section"),
        ),
        answer="Group the papers by approach, say for each group what it does and how it differs from the others"
        "[[ and from {topic}]], and cite with the keys of the generated bibliography.[[ List the papers the recent "
        "search on {topic} found that the collection lacks, separately.]]",
    ),
    Prompt(
        name="compare_papers",
        title="Compare papers",
        description="Compare several papers side by side: problem, method, data, results and limitations, and "
        "how each was received.",
        arguments=(
            Argument("papers", "The papers' identifiers (DOI, arXiv id, S2 id …), separated by commas", required=True,
                     kind="list"),
            Argument("aspect", "What to compare first, e.g. evaluation, datasets, assumptions"),
        ),
        goal="Compare these papers: {papers}[[, above all on {aspect}]]",
        steps=(
            Step("batch_resolve", {"identifiers": "{papers}"}, "every paper's record at once"),
            Step("read_paper", {"identifier": "<each paper's id>", "outline": True}, "each paper's headings"),
            Step("read_paper", {"identifier": "<each paper's id>", "section": "<the heading about the aspect>"},
                 "the sections to compare"),
            Step("get_citations", {"identifier": "<each paper's id>", "limit": 10}, "how each was received"),
        ),
        answer="Answer with a table (one column per paper; rows: [[{aspect}, ]]problem, method, data, results, "
        "limitations), then a paragraph on where they agree and where they conflict, citing pages.",
    ),
    Prompt(
        name="explain_paper",
        title="Explain a paper",
        description="Explain one paper: what problem it takes on, its idea, its evidence and its limits, with what it "
        "builds on and what came after.",
        arguments=(
            Argument("identifier", "The paper: DOI, arXiv id, S2 id, PMID:… or an id a search result listed",
                     required=True),
            Argument("audience", "Who the explanation is for", default="a graduate student in a neighbouring field"),
        ),
        goal="Explain the paper {identifier} to {audience}",
        steps=(
            Step("get_paper", {"identifier": "{identifier}"}, "its record: title, authors, venue, abstract"),
            Step("read_paper", {"identifier": "{identifier}", "outline": True}, "its headings with their pages"),
            Step("read_paper", {"identifier": "{identifier}", "pages": "1-10"},
                 "the text (pass next_pages as pages to read on)"),
            Step("get_references", {"identifier": "{identifier}", "limit": 10}, "what it builds on"),
            Step("get_citations", {"identifier": "{identifier}", "limit": 10}, "what came after it"),
        ),
        answer="Explain the problem, the key idea, the evidence and the limits in plain words, quote the pages you "
        "rely on, and place it among the papers it builds on and those that cite it.",
    ),
    Prompt(
        name="standards_for_requirement",
        title="Standards behind a requirement",
        description="Find the technical standards a requirement rests on (IETF, NIST, W3C, ETSI, ISO, IEC, IEEE), "
        "whether they are current, and the clauses that apply.",
        arguments=(
            Argument("requirement", "The requirement, as written (e.g. 'passwords must be stored hashed')",
                     required=True),
            Argument("body", "Only standards of this body: IETF, NIST, W3C, ETSI, ISO, IEC or IEEE"),
        ),
        goal="Find the standards behind this requirement: {requirement}",
        steps=(
            Step("search_standards", {"query": "{requirement}", "body": "{body?}", "status": "current"},
                 "the standards in force that match"),
            Step("resolve_standard_identifier", {"raw": "<a standard the requirement or a result names>"},
                 "a cited standard's canonical identifier, its status and its other versions"),
            Step("get_standard", {"identifier": "<id of a result>", "fetch_full_text": True},
                 "the text of an open standard, to find the clauses"),
            Step("search", {"query": "{requirement}", "limit": 10}, "papers that interpret or evaluate them"),
        ),
        answer="List each standard with its status (withdrawn or superseded ones with their successor), the "
        "clauses that apply to each part of the requirement, quoted, and what remains uncovered.",
    ),
    Prompt(
        name="explore_toolset",
        title="What a toolset can do",
        description="Show what one toolset (tool family) of this server offers, what this deployment has "
        "configured for it, and how to connect to it alone.",
        arguments=(
            Argument("toolset", "A toolset (tool family): papers, arxiv, books, patents, standards, pdf, tasks or "
                     "research", required=True),
            Argument("task", "What you want to get done with it"),
        ),
        goal="Show me what the {toolset} tools of this server can do[[ for: {task}]]",
        steps=(
            Step("get_server_info", {}, "this deployment's families and sources, which keys are set, its limits"),
        ),
        answer="Say what each tool is for in one line[[, then which of them to call first for {task} and with what "
        "arguments]]. To see only these tools, connect with ?toolsets={toolset} on the server URL.",
        lists_family="toolset",
    ),
)
_BY_NAME = {prompt.name: prompt for prompt in PROMPTS}


def _invalid(message: str, argument: str | None = None) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=message, data={"argument": argument} if argument else None)


def visible_prompts(settings: Settings, selection: Selection | None) -> list[Prompt]:
    """The prompts whose every tool this request sees, sorted by name."""
    tools = all_tools()
    return sorted((p for p in PROMPTS if visible(tools[p.steps[0].tool], settings, selection)
                   and all(visible(tools[t], settings, None) for t in p.tools)), key=lambda p: p.name)


def get_prompt_spec(name: str, settings: Settings, selection: Selection | None) -> Prompt:
    """The visible prompt ``name``.

    Raises:
        MCPError: -32602 for a name that is no prompt of this request's listing.
    """
    prompt = _BY_NAME.get(name)
    if prompt is None or prompt not in visible_prompts(settings, selection):
        raise _invalid(f"unknown prompt {name!r}; call prompts/list for the available prompts", "name")
    return prompt


def list_prompts(settings: Settings, selection: Selection | None) -> types.ListPromptsResult:
    prompts = [
        types.Prompt(name=p.name, title=p.title, description=p.description,
                     arguments=[types.PromptArgument(name=a.name, description=a.description, required=a.required)
                                for a in p.arguments])
        for p in visible_prompts(settings, selection)
    ]
    return types.ListPromptsResult(prompts=prompts, ttl_ms=CATALOGUE_TTL_MS, cache_scope="public")


def _values(prompt: Prompt, given: Mapping[str, str] | None) -> dict[str, Any]:
    """The arguments as the steps take them (defaults filled, integers and lists parsed); absent ones left out."""
    given = dict(given or {})
    known = {a.name for a in prompt.arguments}
    unknown = sorted(set(given) - known)
    if unknown:
        raise _invalid(f"prompt {prompt.name} has no argument {unknown[0]!r} (it takes {', '.join(sorted(known))})",
                       unknown[0])
    values: dict[str, Any] = {}
    for arg in prompt.arguments:
        raw = (given.get(arg.name) or "").strip() or arg.default
        if raw is None:
            if arg.required:
                raise _invalid(f"prompt {prompt.name} needs the argument {arg.name!r}", arg.name)
            continue
        if len(raw) > MAX_ARGUMENT_CHARS:
            raise _invalid(f"argument {arg.name!r} is longer than {MAX_ARGUMENT_CHARS} characters", arg.name)
        if arg.kind == "integer":
            if (number := ascii_int(raw)) is None:  # "²" passes isdigit() and fails int()
                raise _invalid(f"argument {arg.name!r} must be a whole number in ASCII digits, not {raw!r}",
                               arg.name)
            values[arg.name] = number
        elif arg.kind == "list":
            values[arg.name] = [part for part in _LIST_SEPARATOR.split(raw) if part]
        else:
            values[arg.name] = raw
    return values


def _step_arguments(step: Step, values: Mapping[str, Any]) -> dict[str, Any] | None:
    """The step's arguments with the prompt's values in; None when the step needs a value that was not given."""
    out: dict[str, Any] = {}
    for key, value in step.arguments.items():
        placeholder = _PLACEHOLDER.match(value) if isinstance(value, str) else None
        if placeholder is None:
            out[key] = value
        elif placeholder.group(1) in values:
            out[key] = values[placeholder.group(1)]
        elif not placeholder.group(2):
            return None
    return out


def placeholder_of(value: Any) -> str | None:
    """The prompt argument a step's argument value stands for (``"{name}"`` or ``"{name?}"``), else None."""
    placeholder = _PLACEHOLDER.match(value) if isinstance(value, str) else None
    return placeholder.group(1) if placeholder else None


def _checked(step: Step, spec: ToolSpec, arguments: dict[str, Any], prompt: Prompt) -> None:
    try:
        validate_arguments(spec.input_model, arguments, tool=spec.name)
    except InvalidArgumentError as err:
        fed = placeholder_of(step.arguments.get(err.field or ""))
        raise _invalid(f"prompt {prompt.name}: {err.message}", fed) from err


def _text(template: str, values: Mapping[str, Any]) -> str:
    """``template`` with the values in; a ``[[…]]`` part only when every argument it names was given."""

    def fill(match: re.Match[str]) -> str:
        value = values[match.group(1)]
        return ", ".join(value) if isinstance(value, list) else str(value)

    def optional(match: re.Match[str]) -> str:
        part = match.group(1)
        return part if all(name in values for name in _NAMED.findall(part)) else ""

    kept = _OPTIONAL_TEXT.sub(optional, template)
    return _NAMED.sub(fill, kept)


def _family_tools(prompt: Prompt, values: Mapping[str, Any], settings: Settings,
                  selection: Selection | None) -> list[str]:
    """Lines naming the visible tools of the family the prompt's ``lists_family`` argument names."""
    if prompt.lists_family is None:
        return []
    family = values[prompt.lists_family]
    if family not in families():
        raise _invalid(f"argument {prompt.lists_family!r}: {family!r} is not a toolset of this server (one of "
                       f"{', '.join(families())})", prompt.lists_family)
    tools = [spec for spec in all_tools().values() if spec.family == family and visible(spec, settings, None)]
    if not tools:
        return ["", f"This server offers no {family} tools (hidden by read-only mode or missing keys)."]
    lines = ["", f"The {family} tools this server offers:", *(f"- {spec.name}: {spec.title}" for spec in tools)]
    unlisted = [spec.name for spec in tools if not visible(spec, settings, selection)]
    if unlisted:
        lines.append(f"This connection does not list {', '.join(unlisted)}: connect with ?toolsets={family} on the "
                     "server URL to call them.")
    return lines


def render(prompt: Prompt, given: Mapping[str, str] | None, settings: Settings,
           selection: Selection | None) -> str:
    """The prompt's message: the goal, the tool calls to make in order, and what the answer should hold.

    Raises:
        MCPError: -32602 for an unknown, missing or invalid argument (named in ``data.argument``).
    """
    values = _values(prompt, given)
    tools = all_tools()
    lines = [_text(prompt.goal, values) + ".", *_family_tools(prompt, values, settings, selection), "",
             "Use this server's tools in this order (every id one tool returns is accepted by the others; <…> is "
             "what an earlier answer gives you; a queued answer is polled with get_task_result):"]
    number = 0
    unlisted = [t for t in prompt.tools if not visible(tools[t], settings, selection)]
    for step in prompt.steps:
        arguments = _step_arguments(step, values)
        if arguments is None or step.tool in unlisted:
            continue
        _checked(step, tools[step.tool], arguments, prompt)
        number += 1
        call = json.dumps(arguments, ensure_ascii=False)
        lines.append(f"{number}. {step.tool} {call} — {_text(step.purpose, values)}")
    if unlisted:
        lines += ["", f"Left out: the steps with {', '.join(unlisted)}, which this connection does not list "
                  f"(connect with ?profile={ALL_PROFILE} on the server URL to use them)."]
    lines += ["", _text(prompt.answer, values)]
    return "\n".join(lines)


def get_prompt(name: str, arguments: Mapping[str, str] | None, settings: Settings,
               selection: Selection | None) -> types.GetPromptResult:
    """The rendered prompt as one user message.

    Raises:
        MCPError: -32602 for an unknown prompt or an unknown, missing or invalid argument.
    """
    prompt = get_prompt_spec(name, settings, selection)
    text = render(prompt, arguments, settings, selection)
    return types.GetPromptResult(description=prompt.description,
                                 messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))])
