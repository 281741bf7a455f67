"""The standards family: a synced catalogue of IETF, NIST, W3C, ETSI, ISO, IEC and IEEE standards.

records (the record) · loaders/ (upstream shapes → records) · linking (cross-record links) · identifiers
(lookup keys) · catalogue (SQLite + FTS5 build and queries) · storage (S3 versions, pointer, body states) ·
bodies + sync (fetch, guard, publish) · runs (sync runs) · jobs (the sync function's work) · service (the
local catalogue copy) · cold (first-call task) · retry (on-demand sync of a failed body) · fulltext · spec +
handlers (the tools).
"""
