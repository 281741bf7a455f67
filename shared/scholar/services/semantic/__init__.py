"""Meaning-based relevance with a model that ships inside a package: static word embeddings, pure numpy.

The weights and tokenizer are files of the ``wordllama`` wheel (no download, no hub, no API key); they load
lazily, once per process (scholar.services.semantic.model). Fusion of BM25 and the semantic score into one
relevance per candidate is scholar.services.semantic.fusion.
"""
