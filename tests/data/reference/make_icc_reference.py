"""Make tests/data/reference/pingouin_icc.json: pingouin.intraclass_corr on fixed data sets.

pingouin is not a test dependency: this script was run once, in a throwaway environment,
and its output is committed as fixed reference data::

    python3 -m venv /tmp/pg && /tmp/pg/bin/pip install pingouin
    /tmp/pg/bin/python tests/data/reference/make_icc_reference.py

Data sets: pingouin's own ``icc`` example (8 wines x 4 judges), Shrout & Fleiss (1979) Table 2
(6 targets x 4 judges), and seeded random ones (numpy default_rng), some with an item a rater
skipped (pingouin's nan_policy="omit" drops it).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pingouin as pg

pg.options["round"] = None
pg.options["round.column.CI95"] = None  # pingouin rounds the interval to 2 decimals by default
TYPES = ["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"]  # pingouin's row order


def long(matrix):
    return pd.DataFrame(
        [
            {"item": i, "rater": r, "value": float(v)}
            for i, row in enumerate(matrix)
            for r, v in enumerate(row)
            if not np.isnan(v)
        ]
    )


def reference(name, frame, source):
    out = pg.intraclass_corr(data=frame, targets="item", raters="rater", ratings="value", nan_policy="omit")
    rows = {
        t: {
            "icc": float(r.ICC),
            "F": float(r.F),
            "df1": float(r.df1),
            "df2": float(r.df2),
            "pval": float(r.pval),
            "ci_low": float(r.CI95[0]),
            "ci_high": float(r.CI95[1]),
        }
        for t, r in zip(TYPES, out.itertuples())
    }
    return {"name": name, "source": source, "ratings": frame.to_dict("list"), "pingouin": rows}


def main():
    sets = []
    wine = pg.read_dataset("icc").rename(columns={"Wine": "item", "Judge": "rater", "Scores": "value"})
    sets.append(reference("pingouin_icc_wine", wine[["item", "rater", "value"]], "pingouin.read_dataset('icc')"))
    table2 = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    sets.append(reference("shrout_fleiss_1979_table2", long(table2), "Shrout & Fleiss (1979), Table 2"))
    rng = np.random.default_rng(30)
    for index, (n, k) in enumerate([(10, 2), (15, 3), (20, 5), (30, 4), (12, 6)]):
        truth = rng.normal(3, 1, n)[:, None] + rng.normal(0, 0.4, k)[None, :]
        matrix = np.round(truth + rng.normal(0, 0.8, (n, k)), 1)
        if index % 2:
            matrix[1, 0] = np.nan  # one item a rater skipped: left out
        sets.append(reference(f"random_{n}x{k}", long(matrix), f"numpy default_rng(30), set {index}"))
    meta = {
        "generator": "tests/data/reference/make_icc_reference.py",
        "pingouin": pg.__version__,
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "sets": sets,
    }
    Path(__file__).with_name("pingouin_icc.json").write_text(json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    main()
