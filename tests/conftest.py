"""Shared fixtures.  Tests that need ../shared fail loudly in CI when it is missing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_path() -> Path:
    return Path(os.environ.get("FFSITE_SHARED", REPO.parent / "shared"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """../shared (the read-only data beside the checkout)."""
    path = shared_path()
    if not (path / "data").is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{path}/data is missing; CI must provide ../shared beside the checkout")
        pytest.skip(f"{path}/data not available")
    return path


@pytest.fixture(scope="session")
def shared_data(shared_dir: Path) -> Path:
    """../shared/data, laid out as FFSITE_BASE_DATA expects."""
    return shared_dir / "data"
