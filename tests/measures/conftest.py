"""Fixtures of the measures' tests."""

import pandas as pd
import pytest


@pytest.fixture(scope="module")
def vm_ratings(field_data) -> pd.DataFrame:
    """Items x raters, NaN where a rater did not rate an item."""
    return pd.read_csv(field_data / "vanmiltenburg2024" / "vanmiltenburg2024_fluency_ratings_item_by_rater.csv",
                       index_col="item", dtype={"item": str})
