"""Lambda entry point of the arxiv function: its handler lives in the package (scholar.entry)."""

from scholar.entry.functions import arxiv as lambda_handler

__all__ = ["lambda_handler"]
