"""Reading a CSV's numbers exactly on every pandas the package supports.

pandas 3 parses the shortest round-trip text of a float exactly by default, and deprecates
``float_precision``; pandas 2 (the oldest-stack CI job) needs ``float_precision="round_trip"``,
and its python engine is not exact either.  Tests that compare floats read back from a CSV with
the printed digits use :func:`read_csv_exact`.
"""

from __future__ import annotations

import pandas as pd

ROUND_TRIP = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def read_csv_exact(source, **options) -> pd.DataFrame:
    """``pandas.read_csv`` with every float read as the nearest double to its text."""
    return pd.read_csv(source, **ROUND_TRIP, **options)
