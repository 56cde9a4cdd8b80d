"""Fixtures of the prompt tests."""

from __future__ import annotations

import pytest

from errnote.notebook import Notebook
from tests.prompt.notebooks import fixture_notebook


@pytest.fixture
def fixed(nb: Notebook) -> Notebook:
    return fixture_notebook(nb)
