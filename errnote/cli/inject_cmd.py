"""`errnote inject`, `errnote hook ...` and `errnote hooks ...` (being built)."""

from __future__ import annotations
