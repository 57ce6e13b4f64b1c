"""The static atlas: ``qra-widgets atlas site --out DIR`` (from the cache only).

``DIR/index.html`` lists every family (experiments, systems, criteria, whether its published
numbers are reproduced, licences) with the Overview's distributions of CV* and P across the families (and its experiment-property
analysis when the families' experiments have properties);
``DIR/families/<id>.html`` has a family's published-vs-recomputed table, QRA++ template, one
forest plot per criterion (every system; influential experiments ringed), the consistency verdicts,
the replication-success matrix per criterion (:func:`qra_widgets.charts.verdict_figure_json`) and its sources with their
licences.  Plotly's JavaScript is written once (``DIR/plotly.min.js``); the charts are plain
Plotly JSON (:func:`qra_widgets.charts.forest_figure_json`); pages allow no network request.
"""

from __future__ import annotations

import json
import math
import os
import re
import warnings
from pathlib import Path

from ..errors import QRAInputError, UndefinedMeasureWarning
from ..report.html import table
from ..report.site import PLOTLY_FILE

RANK_B, RANK_SEED = 200, 1


def margins(study) -> dict[str, float]:
    """The equivalence margin of each criterion: 5% of its scale's range (0.2 on 1..5, 10 on
    -100..100), in scale units; recorded on every page."""
    found = {}
    for qc in study.quality_criteria:
        if qc.scale_max is None:
            raise QRAInputError(f"{study.id}: criterion {qc.name!r} has no scale_max, so no margin can be set")
        found[qc.name] = round(0.05 * (qc.scale_max - qc.scale_min), 10)
    return found


def _environment():
    from jinja2 import Environment, PackageLoader, select_autoescape

    return Environment(loader=PackageLoader("qra_widgets.atlas", "templates"), autoescape=select_autoescape(["html"]))


def _json(spec: dict) -> str:
    """JSON safe inside a <script> element."""
    text = json.dumps(spec, allow_nan=False, default=lambda v: None)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _clean(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "x"


def family_page(result, *, version: str) -> tuple[str, list[dict]]:
    """The HTML of one family's page and its charts (id, JSON)."""
    from ..charts import forest_figure_json, rank_intervals_json, verdict_figure_json
    from ..meta import consistency, forest, leave_one_out, rank_intervals, template_with_consistency
    from ..replication import replication_success

    study, assessment = result.study, result.assessment
    charts = []
    with warnings.catch_warnings():  # an undefined pooled value or interval is nan with its reason in the frame's note
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        for qc in study.qc_names:
            frame = forest(assessment, quality_criterion=qc, standard_errors=result.standard_errors)
            influence = leave_one_out(assessment, quality_criterion=qc, standard_errors=result.standard_errors)
            spec = _clean(forest_figure_json(frame, template=False, influence=influence))
            charts.append({"id": f"forest-{_slug(qc)}", "json": _json(spec)})
        ranks = []
        for qc in study.qc_names:
            frame = rank_intervals(study, quality_criterion=qc, B=RANK_B, seed=RANK_SEED)
            ranks.append(
                {"id": f"ranks-{_slug(qc)}", "json": _json(_clean(rank_intervals_json(frame, template=False)))}
            )
        chosen = margins(study)
        verdict_charts = []
        if any(e.role == "original" for e in study.experiments):
            for qc in study.qc_names:
                frame = replication_success(
                    assessment, quality_criterion=qc, margin=chosen[qc], standard_errors=result.standard_errors
                )
                if len(frame):
                    spec = _clean(verdict_figure_json(frame, template=False))
                    verdict_charts.append({"id": f"verdicts-{_slug(qc)}", "json": _json(spec)})
        verdicts = consistency(assessment, margin=chosen, standard_errors=result.standard_errors)
        template = template_with_consistency(assessment, margin=chosen, standard_errors=result.standard_errors)
    shown = verdicts[
        [
            "quality_criterion",
            "system",
            "experiment",
            "original_value",
            "value",
            "difference",
            "pi_low",
            "pi_high",
            "inside_pi",
            "margin",
            "tost_p",
            "equivalent",
            "order_kept",
            "note",
        ]
    ]
    checks = [
        {**vars(c), "published_text": f"{c.published:.{c.digits}f}", "computed_text": f"{c.computed:.{c.digits}f}"}
        for c in result.checks
    ]
    page = (
        _environment()
        .get_template("family.html")
        .render(
            title=result.family["title"],
            version=version,
            plotly_src=f"../{PLOTLY_FILE}",
            family=result.family,
            notes=result.family["spec"].get("notes", ""),
            reproduced=result.reproduced,
            checks=checks,
            caption=assessment.caption(),
            template_table=table(template),
            conventions=assessment.conventions.describe(),
            interval_caption=assessment.interval_caption() if assessment.bootstrap_info else "",
            charts=charts + ranks + verdict_charts,
            forest_charts=charts,
            rank_charts=ranks,
            verdict_charts=verdict_charts,
            rank_b=RANK_B,
            rank_seed=RANK_SEED,
            consistency_table=table(shown),
            margins=", ".join(f"{k} ±{v:g}" for k, v in chosen.items()),
        )
    )
    return page, charts + ranks + verdict_charts


def _across_the_atlas(results) -> tuple[list[dict], str]:
    """The Overview's charts over every family (saved into a temporary library): system-level
    CV* and criterion-level P by family, and the experiment-property analysis when the
    families' experiments have properties.  Returns the charts and a note."""
    import tempfile

    from .. import charts
    from ..overview import overview
    from ..store import StudyLibrary

    with tempfile.TemporaryDirectory(prefix="qra-atlas-") as folder:
        library = StudyLibrary(Path(folder) / "atlas.sqlite3")
        for result in results:
            library.save(result.study)
        view = overview(library)
        figures = []
        for measure in ("CV*", "P"):
            values = view.values(measure)
            if len(values):
                figures.append(
                    (f"distribution-{_slug(measure)}", charts.measure_distribution(values, "study", measure))
                )
        note = ""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMeasureWarning)
            effects = view.property_effects
        if effects is not None and len(effects):
            figures.append(("property-effects", charts.property_effects_chart(effects)))
        else:
            note = (
                "No experiment-property analysis: the manifest does not record the families' experiment properties "
                "(QRA++ Table 1), so there is nothing to relate the differences to yet."
            )
    return [{"id": name, "json": _json(_clean(figure.to_plotly_json()))} for name, figure in figures], note


def build_atlas_site(
    out: str | os.PathLike,
    *,
    cache: str | os.PathLike | None = None,
    families: list[str] | None = None,
    results=None,
    title: str = "An atlas of reproductions in NLP human evaluation",
) -> list[Path]:
    """Write the static atlas into ``out`` from the cache (or from ``results`` of
    :func:`qra_widgets.atlas.build`); returns the files written."""
    from ..report.site import start_site
    from ..version import __version__
    from . import build

    if results is None:
        results = build(cache=cache, families=families)
    out, written, write = start_site(out, "families")
    rows = []
    for result in results:
        page, _ = family_page(result, version=__version__)
        name = f"families/{_slug(result.family['id'])}.html"
        write(out / name, page)
        study = result.study
        rows.append(
            {
                "href": name,
                "title": result.family["title"],
                "experiments": len(study.experiments),
                "systems": len(study.systems),
                "criteria": ", ".join(study.qc_names),
                "reproduced": result.reproduced,
                "n_checks": len(result.checks),
                "n_ok": sum(c.ok for c in result.checks),
                "licences": "; ".join(f"{s['repository']}: {s['licence']}" for s in result.family["sources"]),
            }
        )
    charts, note = _across_the_atlas(results)
    write(
        out / "index.html",
        _environment()
        .get_template("index.html")
        .render(title=title, version=__version__, plotly_src=PLOTLY_FILE, families=rows, charts=charts, note=note),
    )
    return written
