"""Reports that are not an assessment's: a study with results from one experiment (a reproduction
before the original's values are added), with its pairwise sign tests.

Both record how they were made as :class:`~qra_widgets.assess.Assessment`'s writers do (the
signature, the package version and how to cite), with the same quoting and escaping.
"""

from __future__ import annotations

import csv
import json

from .csvsafe import frame_to_csv
from .escape import markdown_cell
from .formats import (
    csv_head,
    frame_markdown,
    sign_test_frame,
    sign_test_records,
    sign_tests_markdown,
    signature_fields,
    signature_line,
)

QUOTED = {"quoting": csv.QUOTE_NONNUMERIC}  # as Assessment.to_csv: text cells quoted, so a '#' is never a comment


def with_sign_tests(text: str, study, fmt: str) -> str:
    """A one-experiment report ``text`` in format ``fmt``, with each pairwise experiment's sign tests
    (two-sided binomial, Holm-adjusted) added: a ``sign_tests`` key (JSON), a table after a blank
    line (CSV), a section (Markdown), as :mod:`~qra_widgets.report.formats` adds them to an assessment's."""
    frame = sign_test_frame(study)
    if frame is None or fmt not in ("markdown", "csv", "json"):
        return text
    if fmt == "json":
        data = json.loads(text)
        data["sign_tests"] = sign_test_records(study)
        return json.dumps(data, indent=1) + "\n"
    if fmt == "csv":
        return text.rstrip("\n") + "\n\n" + frame_to_csv(frame, **QUOTED)
    return text.rstrip("\n") + "\n" + "\n".join(sign_tests_markdown(study)) + "\n"


def one_experiment_report(study, fmt: str, conventions) -> str:
    """A study with results from one experiment: its system values, annotator agreement and sign
    tests, and a note that QRA needs two experiments (``fmt``: ``json``, ``csv``, else Markdown)."""
    import pandas as pd

    from ..ratings import annotator_agreement

    experiments = sorted({e for (_q, _s, e) in study.scores}) or [e.id for e in study.experiments]
    note = (
        f"QRA compares experiments: this study has results from one ({', '.join(experiments)}), so there is no "
        f'CV*, r, rho or P to report; add the original\'s system values (an experiment with "scores") or a '
        f"second experiment's annotations."
    )
    values = pd.DataFrame(
        [
            {
                "quality_criterion": q,
                "system": s,
                "experiment": e,
                "value": v,
                "source": study.sources.get((q, s, e), ""),
            }
            for (q, s, e), v in study.scores.items()
        ],
        columns=["quality_criterion", "system", "experiment", "value", "source"],
    )
    agreement = annotator_agreement(study, conventions)
    if fmt == "json":
        data = {
            **signature_fields(conventions),
            "study": study.id,
            "conventions": conventions.stamp(),
            "note": note,
            "system_values": values.to_dict(orient="records"),
            "annotator_agreement": json.loads(agreement.to_json(orient="records")),
        }
        return with_sign_tests(json.dumps(data, indent=1) + "\n", study, "json")
    if fmt == "csv":
        text = (
            csv_head(conventions)
            + frame_to_csv(values, **QUOTED)
            + ("\n" + frame_to_csv(agreement, **QUOTED) if not agreement.empty else "")
        )
        return with_sign_tests(text, study, "csv")
    lines = [
        f"# {markdown_cell(study.name or study.id)}",
        "",
        f"Note: {markdown_cell(note)}",
        "",
        "## System values",
        "",
        frame_markdown(values, floatfmt=".4g"),
    ]
    if not agreement.empty:
        lines += ["", "## Annotator agreement within each experiment", "", frame_markdown(agreement, floatfmt=".3f")]
    text = with_sign_tests("\n".join(lines) + "\n", study, "markdown")
    return text + f"\n_{markdown_cell(signature_line(conventions))}_\n"
