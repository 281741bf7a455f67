"""Resolving one paper by any identifier: the core's scholar.services.paper_lookup (the library resolves papers the
same way).

``s2_key`` is the Semantic Scholar form of an identifier the papers tools send to S2 (an OpenAlex or INSPIRE id
is resolved to the DOI or arXiv id its record carries); ``explain_missing`` turns S2's "no such paper" into
``unavailable`` (reason ``data_not_in_sources``) when another source knows the paper.
"""

from __future__ import annotations

from scholar.services.paper_lookup import explain_missing, get_paper, parse_identifier
from scholar.services.paper_lookup import s2_key_of as s2_key

__all__ = ["explain_missing", "get_paper", "parse_identifier", "s2_key"]
