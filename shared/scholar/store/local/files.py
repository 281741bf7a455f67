"""The local backend's S3: a bucket is a folder under ``SCHOLAR_HOME/artifacts``, an object a plain file.

PDFs and Markdown stay readable where they are (``artifacts/<bucket>/pdfs/<sha256>.pdf``). A key is ours (content
addresses, ``results/<task_id>.json``), never a path a caller gave, yet one that would leave the bucket's folder is
refused. Every write goes to a temporary file in the same folder, is flushed to disk and then renamed over the
name, so a process killed mid-write leaves the old object (or none), never half of one. There is no lifecycle
here (a PDF stays until its folder is cleaned), but an object's content type and tags are kept beside it in the
database, as S3 keeps them, so what the stores read back is the same on both backends.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import IO, Any

from botocore.exceptions import ClientError

from scholar.store.atomic_file import replace_file
from scholar.store.local.database import Database, sqlite_errors

ARTIFACTS_FOLDER = "artifacts"


def _missing(key: str, operation: str) -> ClientError:
    return ClientError({"Error": {"Code": "NoSuchKey", "Message": f"no object {key}"}}, operation)


class _Body:
    """What ``get_object`` answers under ``Body``: the object's bytes, read once."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def read(self) -> bytes:
        return self._data


class LocalS3:
    """The S3 client calls the blob store makes, on files under ``root`` (metadata in ``database``)."""

    def __init__(self, root: Path, database: Database) -> None:
        self.root = root
        self.database = database

    def _describe(self, bucket: str, key: str, content_type: str | None, tagging: str | None) -> None:
        tags = dict(part.split("=", 1) for part in tagging.split("&")) if tagging else {}
        with self.database.write() as db:
            db.execute("INSERT OR REPLACE INTO objects (bucket, key, content_type, tags) VALUES (?, ?, ?, ?)",
                       (bucket, key, content_type or "binary/octet-stream", json.dumps(tags)))

    def _metadata(self, bucket: str, key: str) -> tuple[str, dict[str, str]]:
        with self.database.read() as db:
            row = db.execute("SELECT content_type, tags FROM objects WHERE bucket = ? AND key = ?",
                             (bucket, key)).fetchone()
        return (row[0], json.loads(row[1])) if row else ("binary/octet-stream", {})

    def path(self, bucket: str, key: str) -> Path:
        """The file of ``bucket``/``key``.

        Raises:
            ValueError: the key would leave the bucket's folder (``..``, an absolute path, an empty segment).
        """
        parts = key.split("/")
        if not key or key.startswith("/") or any(part in ("", ".", "..") for part in parts) or "\\" in key:
            raise ValueError(f"refusing the object key {key!r}: it is not a plain relative key")
        return self.root / bucket / Path(*parts)

    def _write(self, target: Path, fill: Any) -> None:
        with sqlite_errors(target):
            replace_file(target, fill, prefix=".part-")

    def put_object(self, *, Bucket: str, Key: str, Body: bytes | IO[bytes], ContentType: str | None = None,
                   Tagging: str | None = None, **_: Any) -> dict[str, Any]:
        data = Body if isinstance(Body, bytes | bytearray) else Body.read()
        self._write(self.path(Bucket, Key), lambda out: out.write(data))
        self._describe(Bucket, Key, ContentType, Tagging)
        return {}

    def upload_file(self, Filename: str, Bucket: str, Key: str, ExtraArgs: Any = None) -> None:
        def copy(out: IO[bytes]) -> None:
            with open(Filename, "rb") as source:
                shutil.copyfileobj(source, out, 1024 * 1024)

        self._write(self.path(Bucket, Key), copy)
        self._describe(Bucket, Key, (ExtraArgs or {}).get("ContentType"), (ExtraArgs or {}).get("Tagging"))

    def get_object(self, *, Bucket: str, Key: str, **_: Any) -> dict[str, Any]:
        target = self.path(Bucket, Key)
        with sqlite_errors(target):
            try:
                return {"Body": _Body(target.read_bytes()), "ContentLength": target.stat().st_size}
            except FileNotFoundError:
                raise _missing(Key, "GetObject") from None

    def download_file(self, Bucket: str, Key: str, Filename: str) -> None:
        source = self.path(Bucket, Key)
        if not source.is_file():
            raise ClientError({"Error": {"Code": "404", "Message": "Not Found"}}, "HeadObject")
        with sqlite_errors(Path(Filename)):
            shutil.copyfile(source, Filename)

    def head_object(self, *, Bucket: str, Key: str, **_: Any) -> dict[str, Any]:
        target = self.path(Bucket, Key)
        if not target.is_file():
            raise ClientError({"Error": {"Code": "404", "Message": "Not Found"}}, "HeadObject")
        return {"ContentLength": target.stat().st_size, "ContentType": self._metadata(Bucket, Key)[0]}

    def put_object_tagging(self, *, Bucket: str, Key: str, Tagging: dict[str, Any], **_: Any) -> dict[str, Any]:
        if not self.path(Bucket, Key).is_file():
            raise _missing(Key, "PutObjectTagging")
        content_type = self._metadata(Bucket, Key)[0]
        self._describe(Bucket, Key, content_type, "&".join(f"{t['Key']}={t['Value']}" for t in Tagging["TagSet"]))
        return {}

    def get_object_tagging(self, *, Bucket: str, Key: str, **_: Any) -> dict[str, Any]:
        if not self.path(Bucket, Key).is_file():
            raise _missing(Key, "GetObjectTagging")
        return {"TagSet": [{"Key": k, "Value": v} for k, v in self._metadata(Bucket, Key)[1].items()]}

    def generate_presigned_url(self, operation: str, Params: dict[str, str], ExpiresIn: int = 900) -> str:
        """The object's ``file://`` URL: on one machine the file itself is the link."""
        return self.path(Params["Bucket"], Params["Key"]).resolve().as_uri()

    def delete_object(self, *, Bucket: str, Key: str, **_: Any) -> dict[str, Any]:
        """Remove the object (no error when there is none, as S3 answers 204 either way)."""
        self.path(Bucket, Key).unlink(missing_ok=True)
        with self.database.write() as db:
            db.execute("DELETE FROM objects WHERE bucket = ? AND key = ?", (Bucket, Key))
        return {}
