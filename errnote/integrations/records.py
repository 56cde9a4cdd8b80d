"""What every importer yields: one record, the fields of an entry as read and where they were."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Record:
    """One entry to import, as read: where it is in the file (`1`, `line 4`, `- item 3`) and its fields."""

    where: str
    fields: Mapping[str, Any]
