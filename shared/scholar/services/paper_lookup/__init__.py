"""Resolving one paper by any identifier: core, not a family's (DESIGN §2: families never import each other).

get_paper (papers), generate_citations' fallbacks (papers), the library's add (scholar.services.library.keep), the PDF
pipeline's resolve step (scholar.services.fulltext) and the tools whose data only Semantic Scholar holds resolve the
same way:
a recent search's merged record (``recent``), the cache, then the sources in order (``chain``).
"""

from scholar.services.paper_lookup.chain import Found, look_up
from scholar.services.paper_lookup.match import MatchOutcome, match_reference
from scholar.services.paper_lookup.recent import recall, recall_many, remember
from scholar.services.paper_lookup.reference import match_many, outcome_pid
from scholar.services.paper_lookup.resolve import (
    free_text,
    get_paper,
    identify,
    item_paper,
    paper_identifier,
    parse_identifier,
    resolve,
)
from scholar.services.paper_lookup.s2_forms import explain_missing, s2_form_of, s2_key_of

__all__ = [
    "Found",
    "MatchOutcome",
    "explain_missing",
    "free_text",
    "get_paper",
    "identify",
    "item_paper",
    "look_up",
    "match_many",
    "match_reference",
    "outcome_pid",
    "paper_identifier",
    "parse_identifier",
    "recall",
    "recall_many",
    "remember",
    "resolve",
    "s2_form_of",
    "s2_key_of",
]
