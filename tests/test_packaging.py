"""What a wheel ships: every package data folder is declared in pyproject.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_every_data_folder_is_package_data() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"][
        "package-data"
    ]
    for folder in sorted((ROOT / "errnote").rglob("data")):
        if not folder.is_dir():
            continue
        package = ".".join(folder.parent.relative_to(ROOT).parts)
        patterns = declared.get(package, [])
        for path in folder.iterdir():
            assert any(path.match(f"*/{p}") for p in patterns), (
                f"{path.relative_to(ROOT)} is not package data"
            )
