"""Where the published field data is, for tests that read it (``from fielddata import ...``).

Data fetched from the teams' public repositories (the QRA3 run, van Miltenburg et al.'s ratings,
the ReproHum HEDS 2 datasheets, the QRA++ Example 1 means) is never committed: it is read from the
folder named by ``$QRA_WIDGETS_FIELD_DATA`` (``.ci/run`` sets it to ``../shared/data`` when that
exists).  A test that reads it is marked :data:`needs_field_data` (or asks for the ``field_data``
fixture) and is skipped, saying why, when the variable is not set.  :func:`field_path` names a
file there at import time; without the data it names a path that does not exist, and
:func:`field_bytes` gives ``b""``, so a module still imports and its other tests still run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

FIELD_DATA_VARIABLE = "QRA_WIDGETS_FIELD_DATA"
_SET = os.environ.get(FIELD_DATA_VARIABLE)
FIELD: Path | None = Path(os.path.abspath(_SET)) if _SET else None
_ABSENT = Path(os.devnull) / "published-field-data-not-set"

needs_field_data = pytest.mark.usefixtures("field_data")


def field_path(*parts: str) -> Path:
    """``$QRA_WIDGETS_FIELD_DATA/<parts>``, or a path that does not exist when it is not set."""
    return (FIELD or _ABSENT).joinpath(*parts)


def field_bytes(*parts: str) -> bytes:
    """The bytes of a field-data file, or ``b""`` without the field data (the test is skipped)."""
    return field_path(*parts).read_bytes() if FIELD else b""
