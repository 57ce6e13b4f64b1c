"""A static website of a library: ``qra-widgets site LIBRARY_OR_FOLDER --out DIR``.

``DIR/index.html`` has the overview tables (studies, criteria), the distribution charts and the
experiment-pair property analysis; ``DIR/studies/<id>.html`` one page per study with its
QRA++ template table, charts, conventions, notes, intervals and annotator agreement where the
assessment has them; every table is downloadable (CSV, LaTeX, Markdown, the study file, and
QRA3 ``metrics.csv`` + ``config.json`` where :mod:`qra_widgets.qra3` is available).

The site needs no server and no internet: Plotly's JavaScript is written once
(``DIR/plotly.min.js``) and shared by every page; pages forbid network requests in their
Content-Security-Policy.  :func:`study_page_html` is the single-page report the app offers as
"Download report (HTML)" (Plotly inlined, so the one file works anywhere).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
from pathlib import Path

PLOTLY_FILE = "plotly.min.js"
_FIGURE_CONFIG = {"displaylogo": False, "responsive": True}
_CHART_NUMBERS = itertools.count(1)  # a chart's <div> id, unique in a page


def _environment():
    from jinja2 import Environment, PackageLoader, select_autoescape

    return Environment(loader=PackageLoader("qra_widgets.report", "templates"), autoescape=select_autoescape(["html"]))


def _json_value(value):
    """numpy scalars and arrays in a chart's JSON, as JSON (what plotly's encoder does for them)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"not JSON: {type(value).__name__}")


def _figure_html(spec: dict) -> str:
    """A chart given as plain Plotly JSON (the ``charts.*_json`` builders) as a ``<div>`` and the
    ``Plotly.newPlot`` call that draws it: no plotly import and no figure validation (the builders'
    output is checked by the tests).  ``</`` is escaped so no text in the data can end the script."""
    div = f"qra-chart-{next(_CHART_NUMBERS)}"
    height = spec["layout"].get("height")
    style = f"height:{int(height)}px; width:100%;" if height else "height:100%; width:100%;"
    payload = lambda value: json.dumps(value, default=_json_value, separators=(",", ":")).replace("</", "<\\/")
    return (
        f'<div id="{div}" class="plotly-graph-div" style="{style}"></div>'
        f'<script type="text/javascript">window.PLOTLYENV=window.PLOTLYENV || {{}}; Plotly.newPlot("{div}", '
        f"{payload(spec.get('data') or [])}, {payload(spec['layout'])}, {payload(_FIGURE_CONFIG)});</script>"
    )


def _plotly_js() -> str:
    """plotly.js, shipped with the package (``static/plotly.min.js``, MIT licence), so the site and
    the offline report pages work from the core install, without the plotly package."""
    from importlib.resources import files

    return files("qra_widgets").joinpath("static", PLOTLY_FILE).read_text(encoding="utf-8")


def start_site(out, pages: str):
    """Start a static site in ``out``: its ``pages`` folder and plotly.js, written once for every
    page.  Returns ``(out, written, write)``: the folder, the files written so far and
    ``write(path, text)``, which writes UTF-8 text and records the file (the atlas shares it)."""
    out = Path(out)
    (out / pages).mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def write(path: Path, text: str) -> None:
        path.write_text(text, encoding="utf-8")
        written.append(path)

    write(out / PLOTLY_FILE, _plotly_js())
    return out, written, write


def frame_to_csv(frame) -> str:
    """CSV of a frame with list cells joined by '; ', through :func:`qra_widgets.report.csvsafe.frame_to_csv`
    (formula-like text neutralised, numbers left alone)."""
    from .csvsafe import frame_to_csv as safe_csv

    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object:
            out[column] = out[column].map(lambda v: "; ".join(map(str, v)) if isinstance(v, list) else v)
    return safe_csv(out)


def _table_html(frame, decimals: int = 3, link=None) -> str:
    """An escaped HTML table (:func:`qra_widgets.report.html.table`) with the overview's column titles;
    ``link`` maps a study id to its page (the study column becomes links)."""
    from ..overview import column_title
    from .html import table

    return table(frame, headers={c: column_title(c) for c in frame.columns}, decimals=decimals, link=link)


def _once(assessment):
    """The assessment with its tidy frame and annotator-agreement table computed once for the page
    and its downloads (CSV, LaTeX, Markdown each ask for them again); the values are the
    assessment's own (nothing is recomputed differently)."""
    import functools

    for name in ("to_frame", "annotator_agreement"):
        setattr(assessment, name, functools.cache(getattr(assessment, name)))
    return assessment


def page_name(study_id: str) -> str:
    """A file name for a study id that is safe on every file system and unique per id."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", study_id)[:80].strip(".") or "study"
    return safe if safe == study_id else f"{safe}-{hashlib.sha1(study_id.encode()).hexdigest()[:8]}"


# ----------------------------------------------------------------------------- one study


def _study_context(study, assessment=None) -> dict:
    from .. import charts
    from ..assess import assess
    from ..errors import QRAInputError
    from ..version import __version__
    from .html import template_html

    criteria = [
        {"name": q.name, "evaluation_type": q.evaluation_type, "qcet": q.qcet_id} for q in study.quality_criteria
    ]
    context = {
        "title": study.name or study.id,
        "description": study.description,
        "criteria": criteria,
        "version": __version__,
        "n_experiments": len(study.experiments),
        "n_systems": len(study.systems),
        "problem": "",
        "charts": [],
    }
    try:
        result = _once(assessment or assess(study))
    except QRAInputError as error:
        context["problem"] = str(error)
        return context
    context.update(
        caption=result.caption(),
        conventions=result.conventions.describe(),
        notes=result.notes,
        template_table=template_html(result, caption=False, footnotes=False),
    )
    frame = result.to_frame() if result.intervals else None  # without intervals there is no interval table
    if frame is not None and {"ci_low", "ci_high"} <= set(frame.columns) and frame["ci_low"].notna().any():
        with_ci = frame[frame["ci_low"].notna()][
            [
                "measure",
                "level",
                "quality_criterion",
                "system",
                "value",
                "ci_low",
                "ci_high",
                "ci_method",
                "ci_over",
                "ci_note",
                "n",
            ]
        ]
        context["intervals_table"] = _table_html(with_ci.fillna(""))
    if hasattr(result, "annotator_agreement"):
        agreement = result.annotator_agreement()
        if agreement is not None and len(agreement):
            context["agreement_table"] = _table_html(agreement)
    figures = []
    if any(r.measure == "CV*" and r.level == "system" for r in result.rows):
        figures.append(charts.cv_by_system_json(result, guides=True))
    if any(r.measure in ("P", "W", "tau") and r.level == "qc" for r in result.rows):
        figures.append(charts.p_and_w_by_qc_json(result))
    figures += [
        charts.scores_by_experiment_json(study, qc.name)
        for qc in study.quality_criteria
        if any(k[0] == qc.name for k in study.scores)
    ][:6]
    if any(e.role == "original" for e in study.experiments):  # reproductions side by side: a forest plot per criterion
        import warnings

        from ..errors import UndefinedMeasureWarning
        from ..meta import forest

        with warnings.catch_warnings():  # an undefined pooled value is nan with its reason in the frame
            warnings.simplefilter("ignore", UndefinedMeasureWarning)
            figures += [
                charts.forest_figure_json(forest(result, quality_criterion=qc.name))
                for qc in study.quality_criteria
                if any(k[0] == qc.name for k in study.scores)
            ][:6]
    context["charts"] = [_figure_html(f) for f in figures]
    context["_assessment"] = result
    return context


def study_page_html(
    study,
    *,
    assessment=None,
    plotly_src: str | None = None,
    index_href: str | None = None,
    downloads: list[tuple[str, str]] | None = None,
) -> str:
    """The report page of one study as HTML text.

    By default Plotly's JavaScript is inlined, so the page works on its own, offline (the app's
    "Download report (HTML)"); the site passes ``plotly_src`` to share one copy.
    """
    context = _study_context(study, assessment)
    context.pop("_assessment", None)
    context.update(
        plotly_src=plotly_src,
        plotly_inline=None if plotly_src else _plotly_js(),
        index_href=index_href,
        downloads=downloads or [],
    )
    return _environment().get_template("study.html").render(**context)


def _results_csv(assessment) -> str:
    """``assessment.to_csv()``: the one CSV writer of an assessment (signature, citation, tidy frame,
    annotator agreement), which the CLI and the app's downloads write too."""
    return assessment.to_csv()


def _study_downloads(study, assessment, folder: Path, stem: str) -> list[tuple[str, str]]:
    from ..io import study_to_json

    files = {f"{stem}.study.json": study_to_json(study)}
    if assessment is not None:
        files.update(
            {
                f"{stem}.csv": _results_csv(assessment),
                f"{stem}.tex": assessment.to_latex(),
                f"{stem}.md": assessment.to_markdown(),
            }
        )
    try:
        from .qra3 import export as qra3_export
    except ImportError:
        qra3_export = None
    if qra3_export is not None:
        metrics, config = qra3_export([study])
        from .csvsafe import safe_csv_text  # a site's download is opened in spreadsheets: no live formula

        files[f"{stem}.qra3-metrics.csv"] = safe_csv_text(metrics)
        files[f"{stem}.qra3-config.json"] = json.dumps(config, indent=1, ensure_ascii=False)
    labels = {
        ".study.json": "study file (JSON)",
        ".csv": "results (CSV)",
        ".tex": "template (LaTeX)",
        ".md": "template (Markdown)",
        ".qra3-metrics.csv": "QRA3 metrics.csv",
        ".qra3-config.json": "QRA3 config.json",
    }
    links = []
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
        links.append((next(label for suffix, label in labels.items() if name == stem + suffix), name))
    return links


# ----------------------------------------------------------------------------- the site


def _library_for(source):
    """A :class:`StudyLibrary` for a library file, or a temporary one filled from a folder of study files."""
    import tempfile

    from ..bulk import import_paths
    from ..errors import QRAInputError
    from ..store import StudyLibrary

    source = Path(source)
    if source.is_file() and source.suffix.lower() in (".sqlite3", ".sqlite", ".db"):
        return StudyLibrary(source), [], None
    if not source.exists():
        raise QRAInputError(f"{source}: no such library file or folder")
    scratch = tempfile.TemporaryDirectory()
    library = StudyLibrary(Path(scratch.name) / "site.sqlite3")
    report = import_paths(library, [source])
    if not report.added:
        scratch.cleanup()
        raise QRAInputError(f"{source}: no study could be read ({report.summary().strip()})")
    return library, report.refused, scratch


def build_site(source, out, *, title: str = "Reproducibility of the studies") -> list[Path]:
    """Write the static site of ``source`` (a library file or a folder/zip of study files) to ``out``.

    Returns the files written.  The index reads the library's stored results
    (:func:`qra_widgets.overview`); each study page takes its assessment from the results
    stored with its revision where they still hold (:meth:`StudyLibrary.assessed_studies`), else
    assesses the study once.
    """
    from .. import charts
    from ..overview import CRITERION_COLUMNS, MEASURES, STUDY_COLUMNS, overview
    from ..version import __version__

    library, refused, scratch = _library_for(source)
    try:
        out, written, write = start_site(out, "studies")
        view = overview(library)
        env = _environment()
        from ..progress import bar

        # the results stored with each revision, where they still hold; a bar on a terminal after 2 s
        for study, stored in bar(desc="site", unit="study", iterable=library.assessed_studies()):
            stem = page_name(study.id)
            context = _study_context(study, stored)
            assessment = context.pop("_assessment", None)
            downloads = _study_downloads(study, assessment, out / "studies", stem)
            written += [out / "studies" / href for _label, href in downloads]
            context.update(
                plotly_src=f"../{PLOTLY_FILE}", plotly_inline=None, index_href="../index.html", downloads=downloads
            )
            write(out / "studies" / f"{stem}.html", env.get_template("study.html").render(**context))
        link = lambda study_id: f"studies/{page_name(study_id)}.html"
        effects = view.property_effects
        tables = {
            "overview-studies.csv": view.studies,
            "overview-criteria.csv": view.criteria,
            "overview-systems.csv": view.systems,
            "property-effects.csv": effects,
        }
        for name, frame in tables.items():
            write(out / name, frame_to_csv(frame))
        figures = []
        for measure in MEASURES:
            values = view.values(measure)
            if len(values):
                for by in ("qcet_name", "evaluation_type", "year") if measure == "CV*" else ("evaluation_type",):
                    figures.append(charts.measure_distribution_json(values, by, measure))
        if len(effects) and (effects.status != "too few pairs").any():
            figures.append(charts.property_effects_chart_json(effects))
        # the Overview's columns, less the library's bookkeeping and free text a published page leaves out
        studies_columns = [c for c in STUDY_COLUMNS if c not in ("revision", "saved_at", "criteria", "track", "tags")]
        criteria_columns = [c for c in CRITERION_COLUMNS if c not in ("name", "qcet", "result_types", "note")]
        index = env.get_template("index.html").render(
            title=title,
            version=__version__,
            plotly_src=PLOTLY_FILE,
            plotly_inline=None,
            studies=view.studies,
            n_criteria=len(view.criteria),
            n_systems=len(view.systems),
            downloads=[(n, n) for n in tables],
            studies_table=_table_html(view.studies[studies_columns], link=link),
            criteria_table=_table_html(view.criteria[criteria_columns], link=link),
            effects_table=_table_html(effects)
            if len(effects)
            else "<p>No pair of experiments answers a catalogue property in both.</p>",
            charts=[_figure_html(f) for f in figures],
        )
        write(out / "index.html", index)
        if refused:
            write(out / "refused.txt", "".join(f"{s}: {r}{os.linesep}" for s, r in refused))
        return written
    finally:
        if scratch is not None:
            scratch.cleanup()
