"""The citation graph every citation tool and search's expansion read: references and citations from Semantic
Scholar, OpenAlex, Crossref, Europe PMC and INSPIRE-HEP, merged into one node per work, each edge naming its
sources (``graph.py``; the per-source readers in ``readers.py``)."""

from scholar.services.citation_graph.graph import (
    OTHER_LIMIT,
    SOURCES,
    Link,
    Neighbourhood,
    enabled,
    merge,
    neighbourhood,
)
from scholar.services.citation_graph.readers import Kind
from scholar.services.citation_graph.seed import Seed, seed_of

__all__ = [
    "OTHER_LIMIT",
    "SOURCES",
    "Kind",
    "Link",
    "Neighbourhood",
    "Seed",
    "enabled",
    "merge",
    "neighbourhood",
    "seed_of",
]
