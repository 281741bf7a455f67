"""The AWS resources tests create in moto.

These definitions mirror template.yaml (CacheTable, TaskTable, UsageTable, ArtifactBucket); a template test checks
that the key schemas match, so change both together.
"""

from __future__ import annotations

from typing import Any


def create_cache_table(dynamodb: Any, name: str) -> None:
    """CacheTable: ``pk`` (S) hash key, on-demand (template.yaml ``CacheTable``)."""
    dynamodb.create_table(
        TableName=name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
    )


def create_task_table(dynamodb: Any, name: str) -> None:
    """TaskTable: ``task_id`` (S) hash key, GSI ``by_principal`` (principal S, created_at N, ALL)."""
    dynamodb.create_table(
        TableName=name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[
            {"AttributeName": "task_id", "AttributeType": "S"},
            {"AttributeName": "principal", "AttributeType": "S"},
            {"AttributeName": "created_at", "AttributeType": "N"},
        ],
        KeySchema=[{"AttributeName": "task_id", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by_principal",
                "KeySchema": [
                    {"AttributeName": "principal", "KeyType": "HASH"},
                    {"AttributeName": "created_at", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )


def create_artifact_bucket(s3: Any, name: str) -> None:
    """ArtifactBucket (us-east-1: no location constraint)."""
    s3.create_bucket(Bucket=name)


def _create_pk_sk_table(dynamodb: Any, name: str) -> None:
    """A table with ``pk`` (S) hash key and ``sk`` (S) range key, on-demand."""
    dynamodb.create_table(
        TableName=name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    )


def create_usage_table(dynamodb: Any, name: str) -> None:
    """UsageTable: ``pk`` (S) hash key, ``sk`` (S) range key, on-demand (template.yaml ``UsageTable``)."""
    _create_pk_sk_table(dynamodb, name)


def create_library_table(dynamodb: Any, name: str) -> None:
    """LibraryTable: ``pk`` (S) hash key (the principal), ``sk`` (S) range key, on-demand (template.yaml)."""
    _create_pk_sk_table(dynamodb, name)

