"""The stores on one machine (issue 32): SQLite (WAL) for the tables, plain files for the artifacts.

``LocalBackend`` holds the second layer under the stores' one persistence base: the DynamoDB calls on SQLite
(``dynamodb``), the S3 calls on files (``files``), the OAuth signing key as a file (``signing_key``). Entering
``scholar.local.machine.local_backend`` hands its clients to ``scholar.store.aws``, so every store reaches it
through the one seam it already uses. Nothing here imports boto3 or moto.
"""

from scholar.store.local.backend import TABLES, LocalBackend

__all__ = ["TABLES", "LocalBackend"]
