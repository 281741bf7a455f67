"""Content-addressed artifacts in the ArtifactBucket (DESIGN §5): ``<prefix>/<sha256><suffix>``."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from scholar.core.config import ARTIFACT_BUCKET_ENV
from scholar.store.base import Store, awaitable
from scholar.store.boundary import boto_errors

# PDFs and their Markdown are a cache until a caller keeps them: the bucket's lifecycle rules expire only objects
# tagged retention=cache (template.yaml), and keeping a paper in a library re-tags its objects retention=kept.
RETENTION = "retention"
CACHED = f"{RETENTION}=cache"
_RETAINABLE = ("pdfs/", "md/")


def _tagging(key: str) -> dict[str, str]:
    return {"Tagging": CACHED} if key.startswith(_RETAINABLE) else {}


class BlobStore(Store):
    """Objects in one bucket; keys are returned to callers as artifact references."""

    RESOURCE = "artifact_bucket"
    ENV = ARTIFACT_BUCKET_ENV
    NOUN = "artifact bucket"
    SERVICE = "s3"

    def __init__(self, bucket: str | None = None, client: Any = None) -> None:
        super().__init__(bucket, client)

    @property
    def bucket(self) -> str:
        return self._required()

    def put(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> str:
        with boto_errors("storing an artifact"):
            self.client.put_object(Bucket=self.bucket, Key=key, Body=data, ContentType=content_type, **_tagging(key))
        return key

    def put_file(self, path: str, key: str, content_type: str) -> str:
        """Upload a file in parts (never read whole into memory); return the key."""
        with boto_errors("storing an artifact"):
            self.client.upload_file(path, self.bucket, key, ExtraArgs={"ContentType": content_type, **_tagging(key)})
        return key

    def retain(self, key: str) -> bool:
        """Take a PDF or Markdown object out of the cache's expiry (a caller keeps it); False when it is gone."""
        with boto_errors("keeping an artifact"):
            try:
                self.client.put_object_tagging(Bucket=self.bucket, Key=key,
                                               Tagging={"TagSet": [{"Key": RETENTION, "Value": "kept"}]})
                return True
            except ClientError as exc:
                if exc.response["Error"]["Code"] in ("NoSuchKey", "404", "NotFound"):
                    return False
                raise

    def get_file(self, key: str, path: str) -> None:
        """Download an object to a file in parts."""
        with boto_errors("reading an artifact"):
            self.client.download_file(self.bucket, key, path)

    def get(self, key: str) -> bytes | None:
        with boto_errors("reading an artifact"):
            try:
                return self.client.get_object(Bucket=self.bucket, Key=key)["Body"].read()
            except ClientError as exc:
                if exc.response["Error"]["Code"] in ("NoSuchKey", "404"):
                    return None
                raise

    def exists(self, key: str) -> bool:
        return self.size(key) is not None

    def size(self, key: str) -> int | None:
        """The object's size in bytes, or None when there is no such object (one HEAD, nothing downloaded)."""
        with boto_errors("looking up an artifact"):
            try:
                return int(self.client.head_object(Bucket=self.bucket, Key=key)["ContentLength"])
            except ClientError as exc:
                if exc.response["Error"]["Code"] in ("404", "NoSuchKey", "NotFound"):
                    return None
                raise

    def presign(self, key: str, expires_s: int = 900) -> str:
        with boto_errors("signing an artifact link"):
            return self.client.generate_presigned_url(
                "get_object", Params={"Bucket": self.bucket, "Key": key}, ExpiresIn=expires_s
            )

    def delete(self, key: str) -> None:
        """Remove an object (nothing happens when there is none)."""
        with boto_errors("removing an artifact"):
            self.client.delete_object(Bucket=self.bucket, Key=key)

    def presign_upload(self, key: str, *, max_bytes: int, expires_s: int) -> tuple[str, dict[str, str]]:
        """A presigned POST for one object at ``key`` whose policy caps its size at ``max_bytes`` (S3 enforces it).

        A POST, not a PUT: only a POST policy's ``content-length-range`` lets S3 refuse an oversized body whose
        size was not known when the link was signed. Returns ``(url, form fields)``; the file goes last.
        """
        with boto_errors("signing an upload link"):
            post = self.client.generate_presigned_post(
                Bucket=self.bucket, Key=key, Fields={"Content-Type": "application/pdf"},
                Conditions=[["content-length-range", 1, max_bytes], {"Content-Type": "application/pdf"}],
                ExpiresIn=expires_s)
        return post["url"], post["fields"]

    aget = awaitable(get)
    aput = awaitable(put)
    aexists = awaitable(exists)
