"""irrCAC's values on van Miltenburg et al. (2024)'s fluency ratings (300 items x 10 raters, 1..4,
missing labels), committed in tests/data/reference/irrcac_vanmiltenburg2024.json; the ratings
themselves are published field data (the ``vm_ratings`` fixture, tests/conftest.py).
Not a test module."""

import json
from pathlib import Path

SCALE = [1.0, 2.0, 3.0, 4.0]


IRRCAC = json.loads((Path(__file__).parents[1] / "data" / "reference" / "irrcac_vanmiltenburg2024.json").read_text())


ALL = IRRCAC["all_raters_item_by_rater"]


KEY = {None: "none", "linear": "linear", "quadratic": "quadratic"}
