"""The static atlas: ``qra-widgets atlas site --out DIR`` (from the cache only).

``DIR/index.html`` lists every family (experiments, systems, criteria, whether its published
numbers are reproduced, licences) with the distribution of system-level CV* across the atlas;
``DIR/families/<id>.html`` has a family's published-vs-recomputed table, QRA++ template, one
forest plot per criterion (every system), the consistency verdicts and its sources with their
licences.  Plotly's JavaScript is written once (``DIR/plotly.min.js``); the charts are plain
Plotly JSON (:func:`qra_widgets.charts.forest_figure_json`); pages allow no network request.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import warnings
from pathlib import Path

from ..errors import QRAInputError, UndefinedMeasureWarning

PLOTLY_FILE = "plotly.min.js"


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


def _table(frame, decimals: int = 3) -> str:
    import numpy as np

    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for record in frame.itertuples(index=False):
        cells = []
        for value in record:
            if isinstance(value, (float, np.floating)) and not isinstance(value, bool):
                text = "" if not math.isfinite(value) else f"{value:.{decimals}f}"
                cells.append(f'<td class="num">{text}</td>')
            else:
                text = "" if value is None or (not isinstance(value, str) and value is not None and str(value) in ("<NA>", "nan")) else str(value)
                cells.append(f"<td>{html.escape(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "x"


def family_page(result, *, version: str) -> tuple[str, list[dict]]:
    """The HTML of one family's page and its charts (id, JSON)."""
    from ..charts import forest_figure_json
    from ..meta import consistency, forest, template_with_consistency

    study, assessment = result.study, result.assessment
    charts = []
    with warnings.catch_warnings():  # an undefined pooled value or interval is nan with its reason in the frame's note
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        for qc in study.qc_names:
            frame = forest(assessment, quality_criterion=qc, standard_errors=result.standard_errors)
            spec = _clean(forest_figure_json(frame, template=False))
            charts.append({"id": f"forest-{_slug(qc)}", "json": _json(spec)})
        chosen = margins(study)
        verdicts = consistency(assessment, margin=chosen, standard_errors=result.standard_errors)
        template = template_with_consistency(assessment, margin=chosen, standard_errors=result.standard_errors)
    shown = verdicts[["quality_criterion", "system", "experiment", "original_value", "value", "difference", "pi_low",
                      "pi_high", "inside_pi", "margin", "tost_p", "equivalent", "order_kept", "note"]]
    checks = [{**vars(c), "published_text": f"{c.published:.{c.digits}f}", "computed_text": f"{c.computed:.{c.digits}f}"}
              for c in result.checks]
    page = _environment().get_template("family.html").render(
        title=result.family["title"], version=version, plotly_src=f"../{PLOTLY_FILE}", family=result.family,
        notes=result.family["spec"].get("notes", ""), reproduced=result.reproduced, checks=checks,
        caption=assessment.caption(), template_table=_table(template.fillna("")), conventions=assessment.conventions.describe(),
        interval_caption=assessment.interval_caption() if assessment.bootstrap_info else "",
        charts=charts, consistency_table=_table(shown), margins=", ".join(f"{k} ±{v:g}" for k, v in chosen.items()))
    return page, charts


def _distribution(results) -> dict:
    """System-level CV* of every family, one box per family (plain Plotly JSON)."""
    data = []
    for result in results:
        values = [r.value for r in result.assessment.rows if r.measure == "CV*" and r.level == "system" and math.isfinite(r.value)]
        labels = [f"{r.quality_criterion} / {r.system}" for r in result.assessment.rows
                  if r.measure == "CV*" and r.level == "system" and math.isfinite(r.value)]
        data.append({"type": "box", "name": html.escape(result.family["id"]), "y": values, "text": [html.escape(t) for t in labels],
                     "boxpoints": "all", "jitter": 0.3, "pointpos": 0, "hovertemplate": "%{text}: CV* %{y:.2f}<extra></extra>"})
    layout = {"title": {"text": "System-level CV* of every family (recomputed)"}, "yaxis": {"title": {"text": "CV*"}, "rangemode": "tozero"},
              "showlegend": False, "height": 460, "margin": {"b": 140}}
    return {"data": data, "layout": layout}


def build_atlas_site(out: str | os.PathLike, *, cache: str | os.PathLike | None = None, families: list[str] | None = None,
                     results=None, title: str = "An atlas of reproductions in NLP human evaluation") -> list[Path]:
    """Write the static atlas into ``out`` from the cache (or from ``results`` of
    :func:`qra_widgets.atlas.build`); returns the files written."""
    from ..report.site import _plotly_js
    from ..version import __version__
    from . import build

    if results is None:
        results = build(cache=cache, families=families)
    out = Path(out)
    (out / "families").mkdir(parents=True, exist_ok=True)
    written = []

    def write(path: Path, text: str) -> None:
        path.write_text(text, encoding="utf-8")
        written.append(path)

    write(out / PLOTLY_FILE, _plotly_js())
    rows = []
    for result in results:
        page, _ = family_page(result, version=__version__)
        name = f"families/{_slug(result.family['id'])}.html"
        write(out / name, page)
        study = result.study
        rows.append({"href": name, "title": result.family["title"], "experiments": len(study.experiments),
                     "systems": len(study.systems), "criteria": ", ".join(study.qc_names), "reproduced": result.reproduced,
                     "n_checks": len(result.checks), "n_ok": sum(c.ok for c in result.checks),
                     "licences": "; ".join(f"{s['repository']}: {s['licence']}" for s in result.family["sources"])})
    charts = [{"id": "cv-distribution", "json": _json(_clean(_distribution(results)))}]
    write(out / "index.html", _environment().get_template("index.html").render(
        title=title, version=__version__, plotly_src=PLOTLY_FILE, families=rows, charts=charts))
    return written
