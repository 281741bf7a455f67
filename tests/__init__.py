"""Test suite (a package so helpers import as ``tests.…`` from the repo root)."""
