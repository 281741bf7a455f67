"""The core: what every floor above uses and nothing of ours below it.

Errors and the envelope, settings, identifiers and their forms, the records, the tool catalogue's types, the
off-loop helper. Inside the core the arrows point down too (errors ← patent_numbers ← ids ← id_forms ←
validation …); the import-rules test refuses a cycle between any two modules.
"""
