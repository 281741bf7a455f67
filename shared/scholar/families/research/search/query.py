"""Query preparation: semantic sources get the question as written, keyword sources compact terms.

Every extra word makes a keyword hit less likely, so stop words and research filler ("papers about",
"recent work on") go, repeated words go, and each source keeps at most its ``term_limit`` terms.
What the user wrote on purpose survives whole and first: quoted phrases and ``field:value`` prefixes.
"""

from __future__ import annotations

import re

from scholar.sources.paper_search import SearchQuery
from scholar.sources.registry import Source

# A quoted phrase, a field prefix with a quoted or bare value, or a word (letters, digits, inner - . ').
_TOKEN = re.compile(r'"[^"]+"|[A-Za-z_]+:(?:"[^"]+"|\S+)|[\w][\w\-.\']*', re.UNICODE)
STOP_WORDS = frozenset(
    [
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be",
        "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do",
        "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having",
        "he", "her", "here", "hers", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more",
        "most", "my", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our", "out", "over", "own",
        "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these",
        "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what",
        "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your",
    ]
)
# Words that describe the search rather than the subject.
FILLER = frozenset(
    [
        "paper", "papers", "article", "articles", "work", "works", "study", "studies", "research", "literature",
        "publication", "publications", "find", "show", "give", "list", "looking", "look", "search", "recent", "latest",
        "new", "good", "best", "important", "key", "main", "overview", "existing", "known", "related", "regarding",
        "using", "use", "used", "based", "approach", "approaches",
    ]
)


def tokens(text: str) -> list[str]:
    """The tokens of a question: phrases and prefixed terms whole, words as written."""
    return _TOKEN.findall(text)


def _kept(token: str) -> bool:
    """Quoted phrases and field prefixes are the user's on purpose: always kept."""
    return token.startswith('"') or (":" in token and not token.endswith(":"))


def keyword_terms(text: str, limit: int | None) -> tuple[str, ...]:
    """Compact keywords for a keyword source: kept tokens first, then content words, deduplicated, at most ``limit``."""
    kept: list[str] = []
    words: list[str] = []
    seen: set[str] = set()
    for token in tokens(text):
        folded = token.casefold().strip(".'-")
        if not folded or folded in seen:
            continue
        seen.add(folded)
        if _kept(token):
            kept.append(token)
        elif folded not in STOP_WORDS and folded not in FILLER and len(folded) > 1:
            words.append(token.strip(".'-"))
    terms = kept + words
    return tuple(terms[:limit] if limit else terms)


def prepare(text: str, source: Source) -> SearchQuery:
    """What ``source`` receives: the whole question (semantic) or its compact keywords (keyword)."""
    question = " ".join(text.split())
    if source.matching == "semantic":
        return SearchQuery(text=question, terms=())
    return SearchQuery(text=question, terms=keyword_terms(question, source.term_limit))


def ranking_terms(text: str) -> list[str]:
    """Lower-case words for the local ranking model (BM25): no stop words, phrases split into their words."""
    return [w for w in analyse(text) if w not in STOP_WORDS and w not in FILLER]


_WORD = re.compile(r"\w+", re.UNICODE)


def analyse(text: str) -> list[str]:
    """Lower-case word tokens of a document or question (the ranking model's analyser)."""
    return [w for w in _WORD.findall(text.casefold()) if len(w) > 1 or w.isdigit()]
