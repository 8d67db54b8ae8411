"""Secrets and what they seal: API key strings, encryption at rest, webhook signatures
(docs/architecture.md)."""
