"""The arXiv family (seed 004): search, batch metadata, full text and the category taxonomy."""
