"""Reports that are not an assessment's: a study with results from one experiment (a reproduction
before the original's values are added), and the pairwise sign tests added to any report.

Both record how they were made as :class:`~qra_widgets.assess.Assessment`'s writers do (the
signature, the package version and how to cite), with the same quoting and escaping.
"""

from __future__ import annotations

import csv
import json

from .csvsafe import frame_to_csv
from .escape import markdown_cell
from .formats import csv_head, frame_markdown, signature_fields, signature_line

QUOTED = {"quoting": csv.QUOTE_NONNUMERIC}  # as Assessment.to_csv: text cells quoted, so a '#' is never a comment


def sign_test_frame(study):
    """The sign tests the annotation reader computed (one row per experiment, criterion and system
    pair), or None."""
    import pandas as pd

    tests = (study.metadata.get("annotations") or {}).get("sign_tests") or []
    return pd.DataFrame(tests) if tests else None


def with_sign_tests(text: str, study, fmt: str) -> str:
    """The report ``text`` in format ``fmt``, with each pairwise experiment's sign tests (two-sided
    binomial, Holm-adjusted) added: a ``sign_tests`` key (JSON), a table after a blank line (CSV),
    a section (Markdown)."""
    frame = sign_test_frame(study)
    if frame is None or fmt not in ("markdown", "csv", "json"):
        return text
    if fmt == "json":
        data = json.loads(text)
        data["sign_tests"] = frame.to_dict(orient="records")
        return json.dumps(data, indent=1) + "\n"
    if fmt == "csv":
        return text.rstrip("\n") + "\n\n" + frame_to_csv(frame, **QUOTED)
    return (text.rstrip("\n") + "\n\n## Pairwise sign tests\n\nTwo-sided binomial test per system pair (ties left "
            "out), p adjusted by Holm's method within each experiment and criterion.\n\n"
            + frame_markdown(frame, floatfmt=".3g") + "\n")


def one_experiment_report(study, fmt: str, conventions) -> str:
    """A study with results from one experiment: its system values, annotator agreement and sign
    tests, and a note that QRA needs two experiments (``fmt``: ``json``, ``csv``, else Markdown)."""
    import pandas as pd

    from ..ratings import annotator_agreement

    experiments = sorted({e for (_q, _s, e) in study.scores}) or [e.id for e in study.experiments]
    note = (f"QRA compares experiments: this study has results from one ({', '.join(experiments)}), so there is no "
            f"CV*, r, rho or P to report; add the original's system values (an experiment with \"scores\") or a "
            f"second experiment's annotations.")
    values = pd.DataFrame([{"quality_criterion": q, "system": s, "experiment": e, "value": v,
                            "source": study.sources.get((q, s, e), "")} for (q, s, e), v in study.scores.items()],
                          columns=["quality_criterion", "system", "experiment", "value", "source"])
    agreement = annotator_agreement(study, conventions)
    if fmt == "json":
        data = {**signature_fields(conventions), "study": study.id, "conventions": conventions.stamp(), "note": note,
                "system_values": values.to_dict(orient="records"),
                "annotator_agreement": json.loads(agreement.to_json(orient="records"))}
        return with_sign_tests(json.dumps(data, indent=1) + "\n", study, "json")
    if fmt == "csv":
        text = csv_head(conventions) + frame_to_csv(values, **QUOTED) + (
            "\n" + frame_to_csv(agreement, **QUOTED) if not agreement.empty else "")
        return with_sign_tests(text, study, "csv")
    lines = [f"# {markdown_cell(study.name or study.id)}", "", f"Note: {markdown_cell(note)}", "", "## System values", "",
             frame_markdown(values, floatfmt=".4g")]
    if not agreement.empty:
        lines += ["", "## Annotator agreement within each experiment", "", frame_markdown(agreement, floatfmt=".3f")]
    text = with_sign_tests("\n".join(lines) + "\n", study, "markdown")
    return text + f"\n_{markdown_cell(signature_line(conventions))}_\n"
