"""Pure figure builders: an :class:`~qra_widgets.Assessment` or a :class:`~qra_widgets.Study`
in, a ``plotly.graph_objects.Figure`` out.  No statistics happen here (values come from
``assess``/``compare``), and every user-given name is HTML-escaped before Plotly sees it.

Each figure can be saved with ``figure.write_html(path)`` or :func:`to_html`.
"""

from __future__ import annotations

import functools
import html
import math
from itertools import cycle
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # plotly is imported by the first figure built, not by ``import qra_widgets.charts``
    import plotly.graph_objects as go

    from .assess import Assessment
    from .study import Study

TEMPLATE = "plotly_white"
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
HUMAN_GUIDE, METRIC_GUIDE = 12.0, 1.0  # QRA++ section 6.1: good system-level CV* below ~12 (human) / ~1 (metric)


def safe(text) -> str:
    """Escape a user-given name for Plotly, whose labels accept HTML tags (the same rule as
    :func:`qra_widgets.report.escape.html`, which sits above charts in the layers).  Escape once,
    where the text enters the figure (``_base_layout`` escapes titles and subtitles itself).

    >>> safe("A&B <i>")
    'A&amp;B &lt;i&gt;'
    """
    return html.escape(str(text), quote=True)


def wrap(text, width: int = 16) -> str:
    """A user-given label, escaped, broken into lines of about ``width`` characters (``<br>``), so a
    long category name fits under its bar instead of being rotated over its neighbours.

    >>> wrap("Caines & Buttery (2020), R reimplementation")
    'Caines &amp; Buttery<br>(2020), R<br>reimplementation'
    """
    lines: list[str] = []
    for word in str(text).split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(safe(line) for line in lines) or safe(text)


BAR_PX, MIN_HEIGHT, MAX_HEIGHT = 22, 380, 2400  # horizontal bars: pixels per bar, and the figure's bounds
HORIZONTAL_FROM = 13  # from this many systems, system names go on the y axis (they stay readable)
LINES_UP_TO = 30  # scores by experiment: one line per system up to this many systems, then a heatmap


@functools.lru_cache(maxsize=1)
def _template() -> dict:
    """Plotly's ``plotly_white`` template as JSON, shipped with the package
    (``static/plotly_white.json``), so chart JSON is built without importing plotly."""
    import json
    from importlib.resources import files

    return json.loads(files("qra_widgets").joinpath("static", "plotly_white.json").read_text(encoding="utf-8"))


def _figure(data: list | None = None, layout: dict | None = None) -> go.Figure:
    """A figure with the theme in place, built in one step from plain trace and layout dicts.

    Setting ``template="plotly_white"`` and adding traces one by one re-validates everything
    (~60-90 ms a figure, most of an edit's time); the figures built here are checked by the
    tests instead, so validation is skipped (about 3 ms a figure)."""
    return as_figure({"data": data or [], "layout": {"template": _template(), **(layout or {})}})


def as_figure(spec: dict) -> go.Figure:
    """A ``go.Figure`` of a figure given as plain Plotly JSON (``{"data": [...], "layout": {...}}``,
    what the ``*_json`` builders return), without validation (see :func:`_figure`)."""
    import plotly.graph_objects as go

    return go.Figure(data=spec.get("data") or [], layout=spec.get("layout") or {}, _validate=False)


def _base_layout(title: str, subtitle: str | list[str] = "") -> dict:
    """The shared layout; ``subtitle`` may be a list of lines (each escaped, then joined with ``<br>``:
    Plotly never wraps a title, so a long subtitle is given as lines rather than cut at the edge)."""
    lines = [line for line in ([subtitle] if isinstance(subtitle, str) else subtitle) if line]
    text = safe(title) + "".join(f"<br><sup>{safe(line)}</sup>" for line in lines)
    return {
        "title": {"text": text, "x": 0.01, "xanchor": "left"},
        "margin": {"l": 60, "r": 20, "t": 60 + 20 * len(lines), "b": 60},
        "legend": {"orientation": "h", "yanchor": "top", "y": -0.18, "x": 0},
        "font": {"family": "system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif"},
        "xaxis": {"automargin": True},
        "yaxis": {"automargin": True},
    }


def _build(data: list[dict], title: str, subtitle: str = "", **extra) -> go.Figure:
    """Title (with a smaller subtitle line), white template, legend below the plot, axes whose
    margins grow with their tick labels (``automargin``), so nothing is cut off or drawn over the bars."""
    return as_figure(_spec(data, title, subtitle, **extra))


def _spec(data: list[dict], title: str, subtitle: str = "", **extra) -> dict:
    """What :func:`_build` makes, as plain Plotly JSON: ``{"data": data, "layout": {...}}``.

    The app shows figures through Plotly's mime renderer, which takes this JSON: building a
    ``go.Figure`` only to turn it back into JSON deep-copies every trace twice and leaves
    reference cycles for the garbage collector on every edit.  The layout's ``template`` is
    one shared dict (:func:`_template`): read it, never change it."""
    layout = _base_layout(title, subtitle)
    for axis in ("xaxis", "yaxis"):
        layout[axis] = {**layout[axis], **extra.pop(axis, {})}
    return {"data": data, "layout": {"template": _template(), **layout, **extra}}


def _layout(figure: go.Figure, title: str, subtitle: str = "", **extra) -> go.Figure:
    """The same look for a figure built trace by trace (see :func:`_build`)."""
    layout = _base_layout(title, subtitle)
    for axis in ("xaxis", "yaxis"):
        layout[axis] = {**layout[axis], **extra.pop(axis, {})}
    figure.update_layout(**{**layout, **extra})
    return figure


def subtitle(result: Assessment, extra: str = "") -> str:
    """The conventions and n of an assessment, for a chart's subtitle."""
    text = f"conventions: {result.conventions.describe()} · n = {result.n} experiments"
    return f"{text} · {extra}" if extra else text


def _bar_height(bars: int) -> int:
    return int(min(MAX_HEIGHT, max(MIN_HEIGHT, 160 + BAR_PX * bars)))


def _nan_to_none(values) -> list:
    """NaN (a gap to Plotly) as ``None``; ``math.isnan`` is ~10x faster than ``np.isnan`` on one float
    (the scores heatmap of a 200 x 8 study converts 1,600 values on every edit)."""
    return [None if v is None or (isinstance(v, float) and math.isnan(v)) else v for v in values]


def cv_by_system(result: Assessment, guides: bool = False) -> go.Figure:
    """CV* of every system, grouped per quality criterion, with each QC's mean CV* marked.

    ``guides`` adds the QRA++ section 6.1 lines at 12 (human evaluation) and 1 (metrics);
    they are named in the legend, not written over the bars.  From
    :data:`HORIZONTAL_FROM` systems on, the bars are horizontal and the figure grows with
    the number of systems.
    """
    return as_figure(cv_by_system_json(result, guides))


def cv_by_system_json(result: Assessment, guides: bool = False) -> dict:
    """:func:`cv_by_system` as plain Plotly JSON (what its ``to_plotly_json()`` gives), for the app."""
    system_rows = [r for r in result.rows if r.measure == "CV*" and r.level == "system"]
    means = {r.quality_criterion: r.value for r in result.rows if r.measure == "CV*" and r.level == "qc"}
    criteria = list(dict.fromkeys(r.quality_criterion for r in system_rows))
    names = list(dict.fromkeys(r.system for r in system_rows))
    horizontal = len(names) >= HORIZONTAL_FROM
    value_key, name_key = ("x", "y") if horizontal else ("y", "x")
    data: list[dict] = []
    mean_lines: list[dict] = []
    for qc, colour in zip(criteria, cycle(PALETTE)):
        rows = [r for r in system_rows if r.quality_criterion == qc]
        labels = [safe(r.system) for r in rows]
        bar = {
            "type": "bar",
            "name": safe(qc),
            "marker": {"color": colour},
            "customdata": [r.n for r in rows],
            "legendgroup": safe(qc),
            name_key: labels,
            value_key: _nan_to_none([r.value for r in rows]),
            "hovertemplate": "%{"
            + name_key
            + "}<br>CV* = %{"
            + value_key
            + ":.3f}<br>n = %{customdata}<extra>"
            + safe(qc)
            + "</extra>",
        }
        if horizontal:
            bar["orientation"] = "h"
        errors = _error_bars(result, rows)
        if errors:
            bar["error_x" if horizontal else "error_y"] = errors
        data.append(bar)
        mean = means.get(qc)
        if mean is not None and not np.isnan(mean):  # the legend entry and hover; the line itself is a shape, on top
            data.append(
                {
                    "type": "scatter",
                    "name": f"mean CV* ({safe(qc)}) = {mean:.2f}",
                    "mode": "lines",
                    "line": {"color": colour, "dash": "dash", "width": 2},
                    "legendgroup": safe(qc),
                    name_key: labels,
                    value_key: [mean] * len(rows),
                    "hovertemplate": "mean CV* = %{" + value_key + ":.3f}<extra>" + safe(qc) + "</extra>",
                }
            )
            mean_lines.append(_reference_line(mean, horizontal, {"color": colour, "dash": "dash", "width": 2}))
    shapes = mean_lines
    if guides:
        for value, label in ((HUMAN_GUIDE, "12: good for human evaluation"), (METRIC_GUIDE, "1: good for metrics")):
            line = {"color": "#999", "dash": "dot"}
            shapes.append(_reference_line(value, horizontal, line))
            data.append(
                {
                    "type": "scatter",
                    "x": [None],
                    "y": [None],
                    "mode": "lines",
                    "line": line,
                    "name": f"QRA++ §6.1 guide {label}",
                }
            )
    bars = len(names) * max(1, len(criteria))
    value_axis = {"title": {"text": "CV* (%)"}, "rangemode": "tozero"}
    axes = (
        {
            "xaxis": value_axis,
            "yaxis": {"title": {"text": "system"}, "autorange": "reversed"},
            "height": _bar_height(bars),
        }
        if horizontal
        else {"yaxis": value_axis, "xaxis": {"title": {"text": "system"}}, "height": 440}
    )
    return _spec(
        data,
        "CV* by system (lower is more reproducible)",
        subtitle(result),
        barmode="group",
        shapes=shapes,
        legend={"orientation": "h", "yanchor": "top", "y": -0.18, "x": 0, "title": {"text": "quality criterion"}},
        **axes,
    )


def _reference_line(value: float, horizontal: bool, line: dict) -> dict:
    """A line across the plot at ``value`` on the value axis, drawn above the bars (``layer="above"``)."""
    if horizontal:
        return {
            "type": "line",
            "xref": "x",
            "x0": value,
            "x1": value,
            "yref": "paper",
            "y0": 0,
            "y1": 1,
            "line": line,
            "layer": "above",
        }
    return {
        "type": "line",
        "yref": "y",
        "y0": value,
        "y1": value,
        "xref": "paper",
        "x0": 0,
        "x1": 1,
        "line": line,
        "layer": "above",
    }


def _error_bars(result: Assessment, rows) -> dict | None:
    """Asymmetric error bars from the bootstrap intervals (``assess(..., bootstrap=B)``), else none."""
    found = [result.intervals.get(("CV*", "system", r.quality_criterion, r.system)) for r in rows]
    if not any(f is not None and np.isfinite(f[0]) for f in found):
        return None
    low = [r.value - f[0] if f is not None and np.isfinite(f[0]) else 0.0 for r, f in zip(rows, found)]
    high = [f[1] - r.value if f is not None and np.isfinite(f[1]) else 0.0 for r, f in zip(rows, found)]
    return {"type": "data", "symmetric": False, "array": high, "arrayminus": low}


def plan_chart(plan) -> go.Figure:
    """Expected confidence-interval width per design (a :func:`~qra_widgets.plan_reproduction` frame):
    one line per measure and number of raters per item, items on the x axis."""
    data = []
    groups = plan.groupby(["quality_criterion", "measure", "raters_per_item"], sort=False)
    for ((qc, measure, raters), rows), colour in zip(groups, cycle(PALETTE)):
        data.append(
            {
                "type": "scatter",
                "x": rows["items"].tolist(),
                "y": _nan_to_none(rows.expected_ci_width.tolist()),
                "mode": "lines+markers",
                "name": safe(f"{measure} ({qc}), {raters} raters per item"),
                "line": {"color": colour},
                "hovertemplate": "%{x} items<br>expected CI width %{y:.3g}<extra></extra>",
            }
        )
    return _build(
        data,
        "Planning a reproduction: expected 95% interval width",
        "",
        xaxis={"title": {"text": "items"}},
        yaxis={"title": {"text": "expected CI width (CV* in %, α in units)"}},
    )


def p_and_w_by_qc(result: Assessment) -> go.Figure:
    """P and W (tau when n = 2) per quality criterion, side by side."""
    return as_figure(p_and_w_by_qc_json(result))


def p_and_w_by_qc_json(result: Assessment) -> dict:
    """:func:`p_and_w_by_qc` as plain Plotly JSON (what its ``to_plotly_json()`` gives), for the app."""
    qc_rows = [r for r in result.rows if r.level == "qc"]
    qcs = list(dict.fromkeys(r.quality_criterion for r in qc_rows))
    data = []
    for measure, label, colour in (("P", "P", PALETTE[0]), ("W", "W", PALETTE[1]), ("tau", "τ", PALETTE[2])):
        values = {r.quality_criterion: r.value for r in qc_rows if r.measure == measure}
        if values:
            data.append(
                {
                    "type": "bar",
                    "name": label,
                    "x": [safe(q) for q in qcs],
                    "y": _nan_to_none([values.get(q) for q in qcs]),
                    "marker": {"color": colour},
                    "hovertemplate": "%{x}<br>" + label + " = %{y:.3f}<extra></extra>",
                }
            )
    defined = [r.value for r in qc_rows if r.measure in ("P", "W", "tau") and not np.isnan(r.value)]
    lowest = min(defined) if defined else 0.0
    return _spec(
        data,
        "Rank agreement P and concordance W (τ for two experiments) by quality criterion",
        subtitle(result),
        barmode="group",
        height=400,
        yaxis={"title": {"text": "value"}, "range": [min(0, lowest), 1.05]},
        xaxis={"title": {"text": "quality criterion"}},
    )


def scores_by_experiment(study: Study, quality_criterion: str) -> go.Figure:
    """Each system's score in each experiment (lines), so a reader sees why CV* is high.

    The legend sits at the right and scrolls; the figure grows with the number of systems
    (up to :data:`MAX_HEIGHT`), so many systems never squash the plot.  Above
    :data:`LINES_UP_TO` systems it is a heatmap (a row per system, a column per experiment).
    """
    return as_figure(scores_by_experiment_json(study, quality_criterion))


def scores_by_experiment_json(study: Study, quality_criterion: str) -> dict:
    """:func:`scores_by_experiment` as plain Plotly JSON (what its ``to_plotly_json()`` gives), for the app."""
    matrix = study.score_matrix(quality_criterion)
    labels = [wrap(e.display_name, 16 if len(study.experiments) > 5 else 22) for e in study.experiments]
    qc = study.quality_criterion(quality_criterion)
    scored = int((~np.isnan(matrix)).any(axis=1).sum()) if matrix.size else 0
    scale = f"scale {qc.scale_min:g}–{qc.scale_max:g}" if qc.scale_max is not None else f"scale from {qc.scale_min:g}"
    note = f"{len(study.systems)} systems · n = {scored} experiments · {scale}"
    title = f"{quality_criterion}: scores by experiment"
    if len(study.systems) > LINES_UP_TO:  # one line per system would be unreadable: one row per system instead
        systems = [safe(s) for s in study.systems]
        data = [
            {
                "type": "heatmap",
                "z": [_nan_to_none(row) for row in matrix.T.tolist()],
                "x": labels,
                "y": systems,
                "zmin": qc.scale_min,
                "zmax": qc.scale_max,
                "colorscale": "Viridis",
                "colorbar": {"title": {"text": "score"}},
                "hovertemplate": "%{y}<br>%{x}: %{z}<extra></extra>",
            }
        ]
        return _spec(
            data,
            title,
            note,
            yaxis={"autorange": "reversed", "title": {"text": "system"}},
            xaxis={"title": {"text": "experiment"}},
            height=_bar_height(len(systems)),
        )
    data = [
        {
            "type": "scatter",
            "name": safe(system),
            "x": labels,
            "y": _nan_to_none(matrix[:, j].tolist()),
            "mode": "lines+markers",
            "connectgaps": False,
            "line": {"color": colour},
            "hovertemplate": "%{x}<br>%{y}<extra>" + safe(system) + "</extra>",
        }
        for j, (system, colour) in enumerate(zip(study.systems, cycle(PALETTE)))
    ]
    axis = {"title": {"text": f"{safe(quality_criterion)} score"}}
    if qc.scale_max is not None:
        axis["range"] = [qc.scale_min, qc.scale_max]
    height = int(min(MAX_HEIGHT, max(420, 120 + 18 * len(study.systems)))) if len(study.systems) > 12 else 420
    return _spec(
        data,
        title,
        note,
        yaxis=axis,
        xaxis={"title": {"text": "experiment"}, "tickangle": 0},
        height=height,
        legend={"orientation": "v", "x": 1.02, "y": 1, "yanchor": "top", "title": {"text": "system"}},
    )


def property_heatmap(study: Study, differences) -> go.Figure:
    """Share of identical properties/conditions for each pair of ``study``'s experiments (1 = identical),
    from ``differences`` (:func:`qra_widgets.compare.property_differences` of the study)."""
    labels = [safe(e.display_name) for e in study.experiments]
    similarity = differences.similarity.to_numpy(dtype=float)
    counts = differences.compared.to_numpy()
    data = [
        {
            "type": "heatmap",
            "z": similarity,
            "x": labels,
            "y": labels,
            "zmin": 0,
            "zmax": 1,
            "colorscale": "Blues",
            "customdata": counts,
            "colorbar": {"title": {"text": "same"}},
            "hovertemplate": "%{y} vs %{x}<br>%{z:.0%} identical of %{customdata} compared<extra></extra>",
        }
    ]
    title = "Experiment similarity: share of identical properties and conditions"
    if not len(differences.table):
        title += " (no properties given yet)"
    size = int(min(MAX_HEIGHT, max(420, 200 + 28 * len(labels))))
    return _build(data, title, f"{len(labels)} experiments", yaxis={"autorange": "reversed"}, height=size)


def subset_comparison(comparison) -> go.Figure:
    """QRA++ Table 6 as a chart: mean CV* (left) and W, P (right) per group of experiments."""
    table = comparison.table
    groups = [safe(c) for c in table.columns]
    from plotly.subplots import make_subplots

    figure = make_subplots(rows=1, cols=2, subplot_titles=("mean CV* ↓", "W and P ↑"))
    figure.update_layout(template=TEMPLATE)
    figure.add_bar(x=groups, y=table.iloc[0].tolist(), name="mean CV*", marker_color=PALETTE[3], row=1, col=1)
    figure.add_bar(x=groups, y=table.iloc[1].tolist(), name="W (τ if n = 2)", marker_color=PALETTE[1], row=1, col=2)
    figure.add_bar(x=groups, y=table.iloc[2].tolist(), name="P", marker_color=PALETTE[0], row=1, col=2)
    figure.update_yaxes(range=[0, 1.05], row=1, col=2)
    return _layout(
        figure, "Reproducibility of subsets of experiments", f"{len(groups)} groups", barmode="group", height=440
    )


def to_html(figure: go.Figure) -> str:
    """A standalone HTML page of the figure (plotly.js inlined, so it works offline), with a
    doctype whatever the plotly version (5.x leaves it out, and the page then renders in quirks mode)."""
    page = figure.to_html(include_plotlyjs=True, full_html=True)
    return page if page.lstrip().lower().startswith("<!doctype") else "<!DOCTYPE html>\n" + page


# ----------------------------------------------------------------------------- organisers' overview

POINTS_UP_TO = 300  # above this, a box shows only its outliers as points (the page stays light)


def measure_distribution(frame, by: str, measure: str = "CV*") -> go.Figure:
    """Distribution of one measure across studies (``Overview.values(measure)``), one box per
    value of ``by`` (``qcet_name``, ``evaluation_type`` or ``year``).

    Points are labelled with study and system on hover; boxes are split by evaluation type too,
    so human and metric values never share a box.  With more than :data:`POINTS_UP_TO`
    values a box draws only its outliers, so 1,000 studies do not mean 1,000s of SVG nodes.
    """
    return as_figure(measure_distribution_json(frame, by, measure))


def measure_distribution_json(frame, by: str, measure: str = "CV*") -> dict:
    """:func:`measure_distribution` as plain Plotly JSON, for the static site (no plotly import)."""
    data = []
    points = "all" if len(frame) <= POINTS_UP_TO else "outliers"
    split = by != "evaluation_type" and "evaluation_type" in frame and frame["evaluation_type"].nunique() > 1
    keys = [by, "evaluation_type"] if split else by  # human and metric values are never pooled in one box
    groups = list(frame.groupby(keys, sort=True))
    names = [(" · ".join(map(str, group)) if split else str(group)) + f" (n = {len(rows)})" for group, rows in groups]
    # long category names (QCET criteria) or many boxes: horizontal boxes, each name on one line beside its box
    horizontal = len(groups) > 6 or max((len(n) for n in names), default=0) > 18
    value_key = "x" if horizontal else "y"
    for (_group, rows), name, colour in zip(groups, names, cycle(PALETTE)):
        where = [
            safe(f"{s} · {q}" + (f" · {m}" if m else ""))
            for s, q, m in zip(rows.study, rows.quality_criterion, rows.system)
        ]
        box = {
            "type": "box",
            value_key: _nan_to_none(rows.value.tolist()),
            "name": safe(name) if horizontal else wrap(name, 16),
            "marker": {"color": colour},
            "boxpoints": points,
            "jitter": 0.3,
            "pointpos": 0,
            "text": where,
            "hovertemplate": "%{text}<br>" + safe(measure) + " = %{" + value_key + ":.3f}<extra></extra>",
        }
        if horizontal:
            box["orientation"] = "h"
        data.append(box)
    level = "System-level CV*" if measure == "CV*" else f"Criterion-level {measure}"
    labels = {"qcet_name": "QCET criterion", "evaluation_type": "evaluation type", "year": "year"}
    value_title = {"title": {"text": safe(measure) + (" (%)" if measure == "CV*" else "")}}
    if horizontal:
        return _spec(
            data,
            f"{level} by {labels.get(by, by)}",
            xaxis=value_title,
            showlegend=False,
            yaxis={"autorange": "reversed", "automargin": True},
            height=_bar_height(2 * len(groups)),
        )
    return _spec(
        data,
        f"{level} by {labels.get(by, by)}",
        yaxis=value_title,
        showlegend=False,
        xaxis={"tickangle": 0, "automargin": True},
    )


def property_effects_chart(effects) -> go.Figure:
    """Effect of differing on each ranked property (pair CV*, differ - same) with its interval."""
    return as_figure(property_effects_chart_json(effects))


def property_effects_chart_json(effects) -> dict:
    """:func:`property_effects_chart` as plain Plotly JSON, for the static site (no plotly import)."""
    ranked = effects[effects.status != "too few pairs"]
    data = [
        {
            "type": "scatter",
            "x": _nan_to_none(ranked.effect.tolist()),
            "y": [safe(f"{p} {n}") for p, n in zip(ranked.property, ranked.name)],
            "mode": "markers",
            "marker": {"color": PALETTE[3], "size": 9},
            "error_x": {
                "type": "data",
                "symmetric": False,
                "array": _nan_to_none((ranked.ci_high - ranked.effect).tolist()),
                "arrayminus": _nan_to_none((ranked.effect - ranked.ci_low).tolist()),
            },
            "customdata": [
                [int(a), int(b), None if math.isnan(p) else float(p)]
                for a, b, p in zip(
                    ranked["pairs differ"],
                    ranked["pairs same"],
                    ranked["p_adjusted"] if "p_adjusted" in ranked else [float("nan")] * len(ranked),
                )
            ],
            "hovertemplate": "%{y}<br>effect = %{x:.2f}<br>pairs differ / same: %{customdata[0]} / %{customdata[1]}"
            "<br>adjusted p = %{customdata[2]:.3f}<extra></extra>",
        }
    ]
    zero = {
        "type": "line",
        "x0": 0,
        "x1": 0,
        "xref": "x",
        "y0": 0,
        "y1": 1,
        "yref": "y domain",
        "line": {"color": "#999", "dash": "dot"},
    }
    return _spec(
        data,
        "Pair CV* where experiments differ minus where they agree (95% study-clustered interval)",
        xaxis={"title": {"text": "difference in mean pair CV* (points)"}},
        yaxis={"autorange": "reversed"},
        height=max(300, 40 * len(ranked) + 120),
        shapes=[zero],
    )


# ----------------------------------------------------------------------------- forest plots


FOREST_ROW_PX = 30
CI_LABELS = {"hksj": "Knapp–Hartung", "z": "normal"}


def forest_figure(frame, *, influence=None) -> go.Figure:
    """A forest plot of a :func:`qra_widgets.forest` frame: each experiment's value with its
    interval (the original a filled diamond, reproductions circles, one row each), then the
    pooled estimate with its interval and the prediction interval for a new reproduction, one
    block per system; a system whose pooling is undefined (fewer than two experiments with a
    standard error) gets no pooled or prediction row, and no prediction row below three.  The
    pooled row's estimator, interval method, τ² (with its interval), I² and Q (p) are in the
    subtitle.  ``influence``, a :func:`qra_widgets.meta.leave_one_out` frame, rings the
    experiments it marks influential."""
    return as_figure(forest_figure_json(frame, influence=influence))


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def forest_figure_json(frame, *, template: bool = True, influence=None) -> dict:
    """:func:`forest_figure` as plain Plotly JSON.  ``template=False`` leaves out the Plotly
    template (the static sites write this JSON without importing plotly; the page styles it)."""
    rows = [
        row
        for row in frame.to_dict("records")
        if row["row"] == "experiment"
        or (row["row"] == "pooled" and _finite(row["value"]))
        or (row["row"] == "prediction" and _finite(row["ci_low"]))
    ]
    flagged = set()
    if influence is not None and len(influence):
        marked = influence[influence["influential"].fillna(False).astype(bool)]
        flagged = {(str(s), str(e)) for s, e in zip(marked.system, marked.left_out)}
    labels, experiments, pooled, predictions, ringed = [], {"original": [], "repeat": []}, [], [], []
    summaries = []
    several = frame["system"].nunique() > 1
    for row in rows:
        system = "" if row["system"] is None else str(row["system"])
        label = f"{safe(system)} · {safe(row['label'])}" if several else safe(row["label"])
        labels.append(label)
        point = (label, row["value"], row["ci_low"], row["ci_high"])
        if row["row"] == "experiment":
            experiments["original" if row["original"] else "repeat"].append(point)
            if (system, str(row["experiment"])) in flagged:
                ringed.append((label, row["value"], float("nan"), float("nan")))
        elif row["row"] == "pooled":
            pooled.append(point)
            if _finite(row.get("tau2")):
                interval = f" [{row['tau2_low']:.3g}, {row['tau2_high']:.3g}]" if _finite(row.get("tau2_low")) else ""
                summaries.append(
                    f"{system}: τ² {row['tau2']:.3g}{interval}, I² {row['i2']:.0f}%, "
                    f"Q({row['q_df']}) {row['q']:.2f} (p {row['q_p']:.2g})"
                )
        else:
            predictions.append(point)

    def trace(points, name, symbol, color, size=9, mode="markers"):
        ys = [p[0] for p in points]
        values = [p[1] for p in points]
        plus = [None if p[3] is None or math.isnan(p[3]) else p[3] - p[1] for p in points]
        minus = [None if p[2] is None or math.isnan(p[2]) else p[1] - p[2] for p in points]
        return {
            "type": "scatter",
            "mode": mode,
            "name": name,
            "x": _nan_to_none(values),
            "y": ys,
            "marker": {"symbol": symbol, "size": size, "color": color},
            "error_x": {
                "type": "data",
                "symmetric": False,
                "array": plus,
                "arrayminus": minus,
                "color": color,
                "thickness": 1.5,
                "width": 4,
            },
            "hovertemplate": "%{y}: %{x:.3f}<extra>" + safe(name) + "</extra>",
        }

    data = [
        trace(experiments["original"], "Original", "diamond", PALETTE[3], 12),
        trace(experiments["repeat"], "Reproduction", "circle", PALETTE[0]),
        trace(pooled, "Pooled (random effects)", "diamond-wide", "#000000", 14),
        trace(predictions, "Prediction interval", "line-ns", PALETTE[7], 1),
    ]
    ring = trace(ringed, "Influential (leave one out)", "circle-open", PALETTE[3], 22)
    ring["marker"]["line"] = {"width": 2, "color": PALETTE[3]}
    data.append(ring)
    estimators = sorted(
        {
            str(r["estimator"]) + (f", {CI_LABELS.get(r.get('ci_method'), '')} interval" if r.get("ci_method") else "")
            for r in rows
            if r["row"] == "pooled"
        }
    )
    qc = str(frame["quality_criterion"].iloc[0]) if len(frame) else ""  # _base_layout escapes title and subtitle
    layout = _base_layout(f"Forest plot: {qc}", [", ".join(estimators)] + summaries[:3])
    layout["yaxis"] = {
        **layout["yaxis"],
        "autorange": "reversed",
        "categoryorder": "array",
        "categoryarray": labels,
        "type": "category",
    }
    layout["xaxis"] = {**layout["xaxis"], "title": {"text": f"{safe(qc)} (scale units)"}, "zeroline": False}
    layout["height"] = int(min(MAX_HEIGHT, max(MIN_HEIGHT, 200 + FOREST_ROW_PX * len(labels))))
    layout["margin"] = {**layout["margin"], "l": 220}
    if template:
        layout = {"template": _template(), **layout}
    return {"data": [d for d in data if d["y"]], "layout": layout}


def rank_intervals_figure(frame) -> go.Figure:
    """Rank intervals of a :func:`qra_widgets.meta.rank_intervals` frame: each system's observed
    rank per experiment with its bootstrap interval, coloured by unresolved-order group; drawn
    beside the P/W chart (rank 1 on the left)."""
    return as_figure(rank_intervals_json(frame))


def rank_intervals_json(frame, *, template: bool = True) -> dict:
    """:func:`rank_intervals_figure` as plain Plotly JSON (``template=False`` for the static sites)."""
    data = []
    for experiment, rows in frame.groupby("experiment", sort=False):
        rows = rows.sort_values("rank")
        labels = [f"{safe(experiment)} · {safe(s)}" for s in rows.system]
        plus = [None if math.isnan(h) else h - r for h, r in zip(rows.rank_high, rows["rank"])]
        minus = [None if math.isnan(lo) else r - lo for lo, r in zip(rows.rank_low, rows["rank"])]
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": safe(experiment),
                "x": list(rows["rank"]),
                "y": labels,
                "text": [f"group {g}" for g in rows.group],
                "marker": {"size": 10, "color": [PALETTE[(g - 1) % len(PALETTE)] for g in rows.group]},
                "error_x": {
                    "type": "data",
                    "symmetric": False,
                    "array": plus,
                    "arrayminus": minus,
                    "thickness": 1.5,
                    "color": "#555555",
                },
                "hovertemplate": "%{y}: rank %{x} (%{text})<extra></extra>",
            }
        )
    qc = safe(frame.quality_criterion.iloc[0]) if len(frame) else ""
    b = int(frame.B.max()) if len(frame) else 0
    layout = _base_layout(
        f"Rank intervals: {qc}", f"bootstrap over items, B = {b}; colour = systems whose order is not resolved"
    )
    layout["xaxis"] = {**layout["xaxis"], "title": {"text": "rank (1 = highest)"}, "dtick": 1}
    layout["yaxis"] = {**layout["yaxis"], "autorange": "reversed", "type": "category"}
    layout["height"] = int(min(MAX_HEIGHT, max(MIN_HEIGHT, 200 + FOREST_ROW_PX * len(frame))))
    layout["showlegend"] = False
    if template:
        layout = {"template": _template(), **layout}
    return {"data": data, "layout": layout}


# ----------------------------------------------------------------------------- replication verdicts

VERDICT_LABELS = {
    "same_direction_significant": "Same direction, significant",
    "original_in_repeat_ci": "Original in repeat's CI",
    "repeat_in_prediction_interval": "Repeat in prediction interval",
    "tost_equivalent": "Equivalent (TOST)",
    "pooled_significant": "Pooled significant",
    "sceptical_p": "Sceptical p (golden)",
    "small_telescopes": "Small telescopes (not < d33%)",
}
VERDICT_COLOURS = ((0.0, "#d62728"), (0.5, "#d62728"), (0.5, "#2ca02c"), (1.0, "#2ca02c"))


def verdict_figure(frame) -> go.Figure:
    """The replication verdicts of a :func:`qra_widgets.replication.replication_success` frame as a
    criterion × comparison matrix (after FReD's chart of how the verdict depends on the criterion):
    green where the repeat succeeds by that criterion, red where it fails, blank without a
    verdict; each cell's hover text gives the numbers the verdict rests on."""
    return as_figure(verdict_figure_json(frame))


def _verdict_detail(row: dict, criterion: str) -> str:
    def f(v) -> str:
        return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3g}"

    return {
        "same_direction_significant": f"θr {f(row['theta_r'])}, p {f(row['p_r'])}",
        "original_in_repeat_ci": f"θo {f(row['theta_o'])} in [{f(row['ci_r_low'])}, {f(row['ci_r_high'])}]",
        "repeat_in_prediction_interval": f"θr {f(row['theta_r'])} in [{f(row['pi_low'])}, {f(row['pi_high'])}]",
        "tost_equivalent": f"±{f(row['margin'])}, TOST p {f(row['tost_p'])}",
        "pooled_significant": f"pooled {f(row['pooled_estimate'])}, p {f(row['pooled_p'])}",
        "sceptical_p": f"p_S {f(row['sceptical_p'])}, θr/θo {f(row['relative_effect_size'])}",
        "small_telescopes": f"d33% {f(row['d33'])}, p {f(row['small_telescopes_p'])}",
    }[criterion]


def verdict_figure_json(frame, *, template: bool = True) -> dict:
    """:func:`verdict_figure` as plain Plotly JSON (``template=False`` for the static sites)."""
    from .replication import CRITERIA, success_matrix

    matrix = success_matrix(frame)
    records = frame.to_dict("records")
    columns = [wrap(c, 22) for c in matrix.columns]
    z, text, hover = [], [], []
    for criterion in CRITERIA:
        cells = matrix.loc[criterion].tolist()
        z.append([None if c is None or str(c) == "<NA>" else (1 if c else 0) for c in cells])
        text.append(["" if c is None or str(c) == "<NA>" else ("✓" if c else "✗") for c in cells])
        hover.append(
            [
                safe(_verdict_detail(r, criterion)) if str(c) != "<NA>" else safe(r["note"] or "no verdict")
                for r, c in zip(records, cells)
            ]
        )
    data = [
        {
            "type": "heatmap",
            "z": z,
            "x": columns,
            "y": [VERDICT_LABELS[c] for c in CRITERIA],
            "text": text,
            "texttemplate": "%{text}",
            "customdata": hover,
            "zmin": 0,
            "zmax": 1,
            "showscale": False,
            "xgap": 2,
            "ygap": 2,
            "colorscale": [list(stop) for stop in VERDICT_COLOURS],
            "hovertemplate": "%{y}<br>%{x}<br>%{customdata}<extra></extra>",
        }
    ]
    qc = str(frame["quality_criterion"].iloc[0]) if len(frame) else ""  # _base_layout escapes the title
    effect = str(frame.attrs.get("effect_of", ""))
    layout = _base_layout(f"Replication success by criterion: {qc}", f"effect: {effect}; green = success, red = not")
    layout["yaxis"] = {**layout["yaxis"], "autorange": "reversed", "type": "category", "automargin": True}
    layout["xaxis"] = {**layout["xaxis"], "type": "category", "side": "top", "tickangle": 0, "automargin": True}
    layout["height"] = 420
    if template:
        layout = {"template": _template(), **layout}
    return {"data": data, "layout": layout}
