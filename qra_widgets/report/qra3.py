"""QRA3 output files: ``table.csv``, ``table.tex``, ``data.json``, ``references.bib`` and
``config.json`` in the organisers' layout, and the export back to QRA3 input."""

from __future__ import annotations

import io as _io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..conventions import QRA3, QRAPP, Conventions, resolve
from ..errors import QRAInputError
from ..io.qra3 import METRICS_COLUMNS, NUMBER_WORDS, QRA3_KEY, study_conventions
from ..study import Study
from .csvsafe import NulSafeWriter, safe_cell
from .qra3_results import qra3_settings, results

# ----------------------------------------------------------------------------- table.csv / table.tex


def _cells(data: dict) -> list[dict]:
    """The table's rows as dicts: type, qc, system, measure, the three levels, and spans."""
    criteria, systems = data["criteria"], data["systems"]
    types = data["result_types"]
    rows: list[dict] = []
    one = types["Type I"]["per_level_results"]
    block = []
    for qc in criteria:
        found = one["System"]["system"][qc]["results"]
        listed = list(systems)
        for i, system in enumerate(listed):
            result = found.get(system)
            if result is None:  # fewer than two values: no CV*
                value = None
            else:
                value = (
                    result["unbiased_coefficient_of_variation"]
                    if result["apply_over_correction"]
                    else result["coefficient_of_variation"]
                )
            block.append(
                {
                    "qc": qc,
                    "system": system,
                    "measure": "cv" if i == 0 else "",
                    "system_level": ("cv", value),
                    "qc_level": ("cv", one["Criterion"]["criterion"][qc]["v"]) if i == 0 else None,
                    "qc_span": len(listed),
                    "first_of_qc": i == 0,
                }
            )
    if block:
        block[0]["study_level"] = ("cv", one["Study"]["study"]["All"]["v"])
        rows.append({"type": "Type I", "rows": block, "headline": "system_level"})
    two = types["Type II"]["per_level_results"]["Criterion"]["criterion"]
    block = []
    prefix = "mean " if data["n"] > 2 else ""
    for qc in criteria:
        measures = two[qc]["per_measure_results"]
        labelled = [
            ("r", measures["pearson"]["v"]),
            ("rho", measures["spearman"]["v"]),
            ("W", measures["kendall"]["v"]),
        ]
        for i, (measure, value) in enumerate(labelled):
            block.append(
                {
                    "qc": qc,
                    "system": "all",
                    "measure": measure,
                    "prefix": prefix,
                    "system_level": ("na", None),
                    "qc_level": ("3", value),
                    "qc_span": len(labelled),
                    "first_of_qc": i == 0,
                }
            )
    if block:
        block[0]["study_level"] = ("na", None)
        rows.append({"type": "Type II", "rows": block, "headline": "qc_level"})
    four = types["Type IV"]["per_level_results"]
    block = []
    for qc in criteria:
        counts = four["Criterion"]["criterion"][qc]
        value = counts["n"] / counts["d"] if counts["d"] else None
        block.append(
            {
                "qc": qc,
                "system": "all",
                "measure": "P",
                "system_level": ("na", None),
                "qc_level": ("3", value),
                "qc_span": 1,
                "first_of_qc": True,
            }
        )
    if block:
        total = four["Study"]["study"]["All"]
        block[0]["study_level"] = ("3", total["n"] / total["d"] if total["d"] else None)
        rows.append({"type": "Type IV", "rows": block, "headline": "study_level"})
    return rows


def _cell_text(cell: tuple | None, cv: Callable[[float], str], other: Callable[[float], str]) -> str:
    """A table cell ``(kind, value)`` as text: blank when absent, ``n/a`` where the measure does
    not apply, else ``cv(value)`` for a CV* and ``other(value)`` for the rest."""
    if cell is None:
        return ""
    kind, value = cell
    if kind == "na" or value is None:
        return "n/a"
    return cv(value) if kind == "cv" else other(value)


def _plain(cell: tuple | None) -> str:
    return _cell_text(cell, lambda value: f"{value:.2f}", lambda value: f"{value:.3f}")


_CSV_MEASURES = {"cv": "(mean) CV*↓", "r": "r ↑", "rho": "ρ ↑", "W": "W ↑", "P": "P↑"}
_TEX_MEASURES = {
    "cv": r"(mean) CV$^*$$\downarrow$",
    "r": r"$r$~$\uparrow$",
    "rho": r"$\rho$~$\uparrow$",
    "W": r"$W\!$~$\uparrow$",
    "P": r"$P\uparrow$",
}


def table_csv(data: dict) -> str:
    """QRA3's ``table.csv``: the QRA++ template, fixed decimals (CV* 2, others 3), ``n/a`` cells.

    The header, row order, blank separator rows and labels are those of QRA3's Yao 2022
    output; several criteria are stacked inside each result type (QC named on its first row).
    The table is for people and spreadsheets, so its text cells pass through
    :func:`qra_widgets.report.csvsafe.safe_cell` (a system ``=x`` is written ``'=x``; numbers and
    ordinary names are unchanged).
    """

    out = _io.StringIO()
    writer = NulSafeWriter(out, lineterminator="\n")  # a NUL in a name: U+FFFD on every Python
    writer.writerow(
        [
            "Type of Result",
            "QC",
            "System",
            "Measure applied",
            "System level",
            "QC level",
            f"Study level (n={data['n']})",
        ]
    )
    for b, block in enumerate(_cells(data)):
        if b:
            writer.writerow([""] * 7)
        for i, row in enumerate(block["rows"]):
            measure = row["measure"]
            label = (
                ""
                if not measure
                else (
                    row.get("prefix", "") + _CSV_MEASURES[measure]
                    if measure in ("r", "rho")
                    else _CSV_MEASURES[measure]
                )
            )
            cells = [
                block["type"] if i == 0 else "",
                row["qc"] if row["first_of_qc"] else "",
                row["system"],
                label,
                _plain(row["system_level"]),
                _plain(row.get("qc_level")),
                _plain(row.get("study_level")),
            ]
            writer.writerow([safe_cell(cell) for cell in cells])  # read by people: names cannot run as formulas
    return out.getvalue()


def _tex_cv(value: float) -> str:
    """A CV* padded with phantoms so the column's decimal points line up."""
    digits = len(str(int(abs(value)))) if abs(value) < 1e15 else 3
    pad = "0" * max(0, 3 - digits) + ("-" if value >= 0 else "")
    return (rf"\phantom{{{pad}}}" if pad else "") + f"{value:.2f}" + r"\phantom{00}"


def _tex_number(cell: tuple | None) -> str:
    return _cell_text(cell, _tex_cv, lambda value: (r"\phantom{-}" if value >= 0 else "") + f"{value:.3f}")


def tex_escape(text: str) -> str:
    """Escape LaTeX's special characters in a name (system, criterion, study): :func:`qra_widgets.report.escape.latex`."""
    from .escape import latex

    return latex(text)


def _multirow(span: int, text: str) -> str:
    return rf"\multirow{{{span}}}{{*}}{{{text}}}" if span > 1 else text


def _join_citations(citations: list[str]) -> str:
    if len(citations) <= 2:
        return " and ".join(citations)
    return ", ".join(citations[:-1]) + ", and " + citations[-1]


def table_tex(data: dict, settings: dict) -> str:
    """QRA3's ``table.tex``: the same table in LaTeX, ``\\cellcolor`` on the headline level
    (system level for Type I, QC level for Type II, study level for Type IV)."""
    n = data["n"]
    abbreviation = {qc: settings["criteria"][qc]["abbreviation"] for qc in data["criteria"]}
    from .escape import latex_citation

    citations = [latex_citation(c) for c in (settings["experiments"].get(e, "") for e in data["experiments"]) if c]
    words = NUMBER_WORDS.get(n, str(n))
    legend = "; ".join(f"{tex_escape(abbreviation[qc])} $=$ {tex_escape(qc)}" for qc in data["criteria"])
    cited = f", {_join_citations(citations)}" if citations else ""
    lines = [
        "",
        r"\begin{table*}",
        r"    \centering",
        r"    \footnotesize",
        (
            rf"    \caption{{\textbf{{{tex_escape(data['name'])}}}: QRA reproducibility assessment for {words} comparable experiments "
            rf"(n={n}){cited}. {legend}; n/a $=$ measure does not apply at this level.}}"
        ),
        r"    \begin{tabular}{|p{1.2cm}|p{0.8cm}|p{1.9cm}|p{2.0cm}|C{1.5cm}|C{1.5cm}|C{1.5cm}|}",
        r"        \hline",
        (
            r"        \multirow{1}{*}{\textbf{Type of}} & \multirow{2}{*}{\textbf{QC}} & \multirow{2}{*}{\textbf{System}} & "
            r"\multirow{1}{*}{\textbf{Measure}} & \multicolumn{3}{c|}{\textbf{Degree of reproducibility ($n="
            + str(n)
            + r"$)}}\\"
        ),
        r"        \cline{5-7}",
        r"        \textbf{Result} & && \textbf{applied} &  System level& QC level & Study level \\",
        r"        \hline",
        r"        \hline",
    ]
    for block in _cells(data):
        span = len(block["rows"])
        for i, row in enumerate(block["rows"]):
            qc_span = row["qc_span"]
            measure = row["measure"]
            if block["type"] == "Type I":
                label = _multirow(qc_span, _TEX_MEASURES["cv"]) if measure else ""
            else:
                label = (
                    (row.get("prefix", "").replace(" ", "~") + _TEX_MEASURES[measure])
                    if measure in ("r", "rho")
                    else _TEX_MEASURES[measure]
                )
            cells = {}
            for level in ("system_level", "qc_level", "study_level"):
                value = row.get(level)
                text = _tex_number(value)
                if level == block["headline"] and value is not None:
                    text = r"\cellcolor{cornflowerblue!30}" + text
                elif level == "qc_level" and block["type"] == "Type I" and value is not None:
                    text = _multirow(qc_span, text)
                elif level == "study_level" and value is not None:
                    text = _multirow(span, text)
                cells[level] = text
            line = [
                _multirow(span, block["type"]) if i == 0 else "",
                _multirow(qc_span, tex_escape(abbreviation[row["qc"]])) if row["first_of_qc"] else "",
                tex_escape(row["system"]),
                label,
                cells["system_level"],
                cells["qc_level"],
                cells["study_level"],
            ]
            lines.append("\t\t\t" + " & ".join(line) + r" \\")
        lines.append("\t\t\t\\hline")
    lines += [r"    \end{tabular}", r"    \label{}", r"    \vspace{-.4cm}", r"\end{table*}", " " * 12, ""]
    return "\n".join(lines)


def references_bib(settings: dict) -> str:
    """QRA3's ``references.bib``: a ``@misc`` stub per citation key, in order of appearance; keys
    and fields through :mod:`qra_widgets.report.escape` (the same keys ``table.tex`` cites)."""
    from .escape import bibtex_field, cite_keys

    keys: list[str] = []
    for citation in [*settings["experiments"].values(), settings.get("citation", "")]:
        keys += cite_keys(citation or "")
    keys = list(dict.fromkeys(keys))
    return (
        "".join(
            f'@misc{{{key},\n  note = "{bibtex_field("Missing BibTeX entry for " + key)}"\n}}\n\n' for key in keys
        ).rstrip("\n")
        + "\n"
        if keys
        else ""
    )


def _config_entry(study: Study, conventions: Conventions, resolved_scale: bool) -> dict:
    """One study's QRA3 config entry; ``resolved_scale`` adds each criterion's
    ``scale_starts_at`` as QRA3 does in the ``config.json`` it writes.  Citations are LaTeX the
    organisers' tool writes into ``table.tex`` as they are: only ``\\cite`` commands with safe
    keys pass (:func:`~qra_widgets.report.escape.latex_citation`)."""
    from .escape import bibtex_key, latex_citation

    settings = qra3_settings(study)
    given = _given_config(study)
    if given is not None:
        if resolved_scale:
            for item in given.get("criteria", {}).values():
                item.setdefault("scale_starts_at", given.get("scale_starts_at", 0))
        return given
    scales = {q.scale_min for q in study.quality_criteria}
    entry: dict[str, Any] = {}
    first = study.quality_criteria[0].scale_min if study.quality_criteria else 0.0
    entry["scale_starts_at"] = _plain_number(first)
    entry["type_iii_agreement_method"] = settings.get("type_iii_agreement_method", _method_for(conventions))
    alpha = settings.get("type_iii_krippendorff_alpha_mode") or conventions.alpha_level
    if alpha is None:
        levels = {q.label_level for q in study.quality_criteria}
        alpha = levels.pop() if len(levels) == 1 else None
    if alpha is not None:
        entry["type_iii_krippendorff_alpha_mode"] = alpha
    if "type_iii_ordinal_labels" in settings:
        entry["type_iii_ordinal_labels"] = settings["type_iii_ordinal_labels"]
    entry["experiments"] = {
        e: latex_citation(c or rf"\citet{{{bibtex_key(e)}}}") for e, c in settings["experiments"].items()
    }
    entry["citation"] = latex_citation(settings.get("citation") or rf"\citet{{{bibtex_key(study.id)}}}")
    criteria = {}
    for qc in study.quality_criteria:
        item = {
            "map": qc.name,
            "apply_over_correction": conventions.small_sample_factor,
            "normal_data": settings["criteria"][qc.name]["normal_data"],
        }
        if resolved_scale or len(scales) > 1:
            item["scale_starts_at"] = _plain_number(qc.scale_min)
        criteria[settings["criteria"][qc.name]["abbreviation"]] = item
    entry["criteria"] = criteria
    return entry


def _given_config(study: Study) -> dict | None:
    """The config entry the study was read with, if it still describes the study (same
    criteria, experiments and scales); a copy, so callers may change it."""
    settings = study.metadata.get(QRA3_KEY) or {}
    given = settings.get("config")
    if not isinstance(given, dict):
        return None
    criteria = given.get("criteria", {})
    maps = {
        item.get("map", abbr): item.get("scale_starts_at", given.get("scale_starts_at", 0))
        for abbr, item in criteria.items()
    }
    fits = (
        all(q.name in maps and float(maps[q.name]) == q.scale_min for q in study.quality_criteria)
        and [e.id for e in study.experiments]
        == [e for e in given.get("experiments", {}) if e in {x.id for x in study.experiments}]
        and all(e.id in given.get("experiments", {}) for e in study.experiments)
    )
    return json.loads(json.dumps(given)) if fits else None


def _method_for(conventions: Conventions) -> str:
    return "fleiss" if conventions.agreement_many == ("fleiss_kappa",) else "auto"


def _plain_number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def output_config(study: Study, conventions: Conventions | None = None) -> dict:
    """QRA3's per-study ``config.json`` output: the config with each criterion's scale resolved."""
    conventions = conventions or study_conventions(study) or QRA3
    return {qra3_settings(study)["key"]: _config_entry(study, conventions, resolved_scale=True)}


# ----------------------------------------------------------------------------- writing


def outputs(study: Study, conventions: str | Conventions | None = None, *, source: str | None = None) -> dict[str, str]:
    """The five files QRA3 writes for one study, as ``{file name: text}``.

    A study that cannot be assessed (e.g. one experiment) raises :class:`QRAInputError`
    naming ``source`` (the metrics file it was read from, when given) and the study.
    """
    conventions = resolve(conventions if conventions is not None else (study_conventions(study) or QRA3))
    try:
        data = results(study, conventions)
    except QRAInputError as error:
        where = f"{source}: study {study.id!r}" if source else f"study {study.id!r}"
        raise QRAInputError(f"{where}: {error}") from None
    settings = qra3_settings(study)
    return {
        "table.csv": table_csv(data),
        "table.tex": table_tex(data, settings),
        "data.json": _json_text(data),
        "references.bib": references_bib(settings),
        "config.json": _json_text(output_config(study, conventions)),
    }


def _json_text(data) -> str:
    """A JSON output file as QRA3 writes it: indented by two, non-ASCII kept, a final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _safe_folder(name: str) -> str:
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name:
        raise QRAInputError(f"study {name!r}: cannot be used as an output folder name")
    return name


def write_outputs(
    studies: list[Study],
    out_dir: str | os.PathLike,
    *,
    force: bool = False,
    conventions: str | Conventions | None = None,
    source: str | None = None,
) -> list[Path]:
    """Write ``out_dir/<study>/`` with QRA3's five files for each study, and ``out_dir/config.json``
    (the config of every study written, as QRA3 leaves it beside the study folders).

    Existing output files are refused (:class:`QRAInputError`) unless ``force``.  Everything
    is computed before anything is written, so an error leaves no half-written folder; an
    error in a study's results names ``source`` (the metrics file name) and the study.
    """
    from ..io import atomic_write_text

    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise QRAInputError(f"{out}: --out-dir is a file, not a folder")
    planned = {
        out / _safe_folder(study.id) / name: text
        for study in studies
        for name, text in outputs(study, conventions, source=source).items()
    }
    combined: dict[str, dict] = {}
    for study in studies:
        combined.update(export([study])[1])
    planned[out / "config.json"] = _json_text(combined)
    if not force:
        existing = [path for path in planned if path.exists()]
        if existing:
            raise QRAInputError(f"{existing[0]}: exists; use --force to overwrite QRA3 output")
    written = []
    try:
        for path, text in planned.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, text)
            written.append(path)
    except OSError as error:
        raise QRAInputError(f"{out}: cannot write QRA3 output ({error.strerror or error})") from None
    return written


# ----------------------------------------------------------------------------- export


def export(studies: list[Study]) -> tuple[str, dict]:
    """Studies -> QRA3 ``metrics.csv`` text and ``config.json`` dict, ready for the organisers.

    A study read with :func:`read_qra3` gives its files back (key, citations, abbreviations,
    ``normal_data``, Type III settings).  Any other study gets ``\\citet{<id>}`` citations,
    abbreviations made from initials and ``apply_over_correction`` from its conventions
    (``qrapp``: true, so QRA3 prints the same CV* as qra-widgets).  Result cells use
    Python's shortest round-trip float text.

    ``metrics.csv`` is machine-read input, handed to the organisers' tool as is, so its
    cells are written exactly as the names are (a system ``-GT`` stays ``-GT``, a study
    ``=evil`` keeps its config key): unlike every other CSV qra-widgets writes, it is
    *not* neutralised against spreadsheet formulas (:mod:`qra_widgets.report.csvsafe`), because
    an added ``'`` would change the names the tool and :func:`~qra_widgets.io.qra3.read_qra3` read back.  Open
    it in a spreadsheet only as text.

    >>> from qra_widgets.io.qra3 import read_qra3
    >>> study = read_qra3("tests/data/qra3_small/metrics.csv", "tests/data/qra3_small/config.json")[0]
    >>> text, config = export([study])
    >>> text.splitlines()[:2]
    ['Key,Study,Experiment,System,Criterion,Result', 'Demo,Demo,O,A,Fluency,4.2']
    >>> config["Demo"]["criteria"]["F"]
    {'map': 'Fluency', 'apply_over_correction': False, 'normal_data': True}
    """

    if not studies:
        raise QRAInputError("export: no study to export")
    out = _io.StringIO()
    writer = NulSafeWriter(out, lineterminator="\n")  # a NUL in a name: U+FFFD on every Python
    writer.writerow(METRICS_COLUMNS)
    config: dict[str, dict] = {}
    for study in studies:
        conventions = study_conventions(study) or QRAPP  # no conventions: made with the default
        settings = qra3_settings(study)
        if settings["key"] in config:
            raise QRAInputError(f"export: two studies have the key {settings['key']!r}")
        config[settings["key"]] = _config_entry(study, conventions, resolved_scale=False)
        order = {e.id: i for i, e in enumerate(study.experiments)}
        qcs = {q.name: i for i, q in enumerate(study.quality_criteria)}
        systems = {s: i for i, s in enumerate(study.systems)}
        for (qc, system, experiment), value in sorted(
            study.scores.items(), key=lambda kv: (qcs[kv[0][0]], order[kv[0][2]], systems[kv[0][1]])
        ):
            writer.writerow([settings["key"], study.id, experiment, system, qc, repr(float(value))])
    return out.getvalue(), config


def export_texts(studies: list[Study]) -> dict[str, str]:
    """:func:`export` as the two files' texts, ``{"metrics.csv": text, "config.json": text}``
    (what :func:`export_files` writes and the app downloads)."""
    text, config = export(studies)
    return {"metrics.csv": text, "config.json": _json_text(config)}


def export_files(studies: list[Study], out_dir: str | os.PathLike, *, force: bool = False) -> list[Path]:
    """Write ``out_dir/metrics.csv`` and ``out_dir/config.json`` (refusing to overwrite unless ``force``)."""
    from ..io import atomic_write_text

    texts = export_texts(studies)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise QRAInputError(f"{out}: --out-dir is a file, not a folder")
    targets = [out / "metrics.csv", out / "config.json"]
    if not force:
        for target in targets:
            if target.exists():
                raise QRAInputError(f"{target}: exists; use --force to overwrite")
    try:
        out.mkdir(parents=True, exist_ok=True)
        for target in targets:
            atomic_write_text(target, texts[target.name])
    except OSError as error:
        raise QRAInputError(f"{out}: cannot write ({error.strerror or error})") from None
    return targets
