"""Fixtures of the engine tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def coverage_study():
    """``benchmarks/coverage.py`` (the coverage study's model and targets), loaded by path: the
    name ``coverage`` is taken by coverage.py, the tool."""
    path = Path(__file__).parents[2] / "benchmarks" / "coverage.py"
    spec = importlib.util.spec_from_file_location("coverage_study", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
