"""Lambda entry point of the gateway function: its handler lives in the package (scholar.entry)."""

from scholar.entry.gateway import lambda_handler

__all__ = ["lambda_handler"]
