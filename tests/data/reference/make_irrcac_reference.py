"""Make the irrCAC reference values the agreement tests compare against (run once, by hand).

irrCAC pins old releases of scipy and pandas, so it never enters the test environment: it runs
here, in a throwaway virtualenv, and its values are committed as data with this script:

    python -m venv /tmp/irr && /tmp/irr/bin/pip install irrCAC==0.4.4
    /tmp/irr/bin/python tests/data/reference/make_irrcac_reference.py [FIELD_DATA]

It writes ``irrcac_random.json`` (seeded random label matrices, 1..4 scale, ties and missing
labels, 2 to 5 raters, and irrCAC's Conger/Cohen kappa, Gwet's AC1/AC2, Brennan-Prediger and
Fleiss' kappa on each, unweighted, linear and quadratic) and, when FIELD_DATA (the published
data folder, ``$QRA_WIDGETS_FIELD_DATA``) is given, ``irrcac_vanmiltenburg2024.json``: the same
coefficients on van Miltenburg et al. (2024)'s fluency ratings.  The ratings themselves are
never written here; only irrCAC's numbers are.
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd
from irrCAC.raw import CAC

HERE = Path(__file__).parent
CATEGORIES = [1.0, 2.0, 3.0, 4.0]
WEIGHTS = {"none": "identity", "linear": "linear", "quadratic": "quadratic"}
COMMAND = (
    "python -m venv /tmp/irr && /tmp/irr/bin/pip install irrCAC==0.4.4 && "
    "/tmp/irr/bin/python tests/data/reference/make_irrcac_reference.py $QRA_WIDGETS_FIELD_DATA"
)


def coefficient(frame: pd.DataFrame, weights: str, name: str, categories=CATEGORIES) -> float | None:
    """irrCAC's value; None where irrCAC itself fails (it divides by zero when its variance
    estimate has fewer than two items with labels) or gives no finite number."""
    try:
        with np.errstate(invalid="ignore", divide="ignore"):
            value = getattr(CAC(frame, weights=weights, categories=categories, digits=15), name)()
        value = float(value["est"]["coefficient_value"])
    except (ZeroDivisionError, ValueError, KeyError):
        return None
    return value if math.isfinite(value) else None


def header() -> dict:
    return {
        "source": "irrCAC (Gwet's agreement coefficients for Python), irrCAC.raw.CAC(..., digits=15)",
        "versions": {name: version(name) for name in ("irrCAC", "pandas", "numpy", "scipy")},
        "python": sys.version.split()[0],
        "command": COMMAND,
        "categories": CATEGORIES,
    }


def random_cases(count: int = 120, seed: int = 20251125) -> list[dict]:
    rng = np.random.default_rng(seed)
    cases = []
    for index in range(count):
        raters = 2 if index % 3 == 0 else int(rng.integers(2, 6))
        items = int(rng.integers(2, 31))
        labels = rng.integers(1, 5, size=(raters, items)).astype(float)
        if index % 4 != 0:  # a quarter without missing labels
            labels[rng.random((raters, items)) < rng.uniform(0.1, 0.4)] = np.nan
        frame = pd.DataFrame(labels.T)
        values = {
            w: {name: coefficient(frame, irr, name) for name in ("gwet", "bp", "fleiss", "conger")}
            for w, irr in WEIGHTS.items()
        }
        cases.append({"labels": [[None if np.isnan(v) else int(v) for v in row] for row in labels], "irrcac": values})
    return cases


def van_miltenburg(field: Path) -> dict:
    folder = field / "vanmiltenburg2024"
    wide = pd.read_csv(
        folder / "vanmiltenburg2024_fluency_ratings_item_by_rater.csv", index_col="item", dtype={"item": str}
    )
    long = pd.read_csv(folder / "vanmiltenburg2024_fluency_ratings_long.csv", dtype={"participant": str})
    all_raters = {
        w: {name: coefficient(wide, irr, name) for name in ("gwet", "bp", "fleiss")} for w, irr in WEIGHTS.items()
    }
    for w in ("none", "quadratic"):
        all_raters[w]["krippendorff"] = coefficient(wide, WEIGHTS[w], "krippendorff")
    pair_002_005 = {
        w: {name: coefficient(wide[["002", "005"]], WEIGHTS[w], name) for name in ("gwet", "bp", "fleiss")}
        for w in ("none", "quadratic")
    }
    augmented = long[long.participant.isin([f"00{i}" for i in range(3, 9)])]
    augmented = augmented.pivot_table(index="item", columns="participant", values="score")
    return {
        "data": "van Miltenburg et al. (2024) fluency ratings, vanmiltenburg2024/*.csv of the published field data",
        "all_raters_item_by_rater": all_raters,
        "pair_001_003_conger": coefficient(wide[["001", "003"]], "identity", "conger"),
        "pair_002_005": pair_002_005,
        "raters_003_008_from_long": {
            name: coefficient(augmented, "identity", name, categories=[1, 2, 3, 4]) for name in ("gwet", "bp", "fleiss")
        },
    }


def main() -> None:
    warnings.simplefilter("ignore")  # irrCAC's own pandas SettingWithCopyWarning on every call
    (HERE / "irrcac_random.json").write_text(json.dumps({**header(), "cases": random_cases()}, indent=0) + "\n")
    if len(sys.argv) > 1:
        (HERE / "irrcac_vanmiltenburg2024.json").write_text(
            json.dumps({**header(), **van_miltenburg(Path(sys.argv[1]))}, indent=1) + "\n"
        )


if __name__ == "__main__":
    main()
