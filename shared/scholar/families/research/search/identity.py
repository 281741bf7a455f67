"""Recognising the same paper: the rules live in scholar.core.paper_identity (the citation graph shares them)."""

from scholar.core.paper_identity import consistent, first_surname, fold, id_keys, is_preprint, surname, title_key

__all__ = ["consistent", "first_surname", "fold", "id_keys", "is_preprint", "surname", "title_key"]
