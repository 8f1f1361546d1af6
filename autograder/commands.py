"""Registry of the subcommands that live in their own modules."""
from __future__ import annotations

REGISTRY: list = []
