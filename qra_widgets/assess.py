"""Study -> Assessment: every applicable QRA++ Table 2 cell, as a tidy frame and as the template.

Which measures apply (QRA++ section 6, Table 2; n = experiments with results for the QC):

=========  =========================  ==============================  ======================
type       system level               QC level                        study level
=========  =========================  ==============================  ======================
I          CV*                        mean of the system CV*s         mean of all system CV*s
II         --                         n = 2: r, rho, tau;             --
                                      n > 2: mean pairwise r, rho; W
III        n = 2: kappa (Cohen)       the same over all labels        mean of the QC values
           and alpha;
           n > 2: fleiss_kappa, alpha of the QC;
           then kappa and alpha of the
           original vs each repeat
IV         --                         P (findings if stated,          P pooled over every
                                      else from the scores)           difference in the study
=========  =========================  ==============================  ======================

Missing cells: system CV* uses the values present (its ``n`` says how many); pairwise
measures use the systems scored in both experiments of a pair; W the systems scored in
all (``n_systems`` says how many).  A measure that is undefined gives ``nan`` and its
reason in the ``note`` column (the :class:`~qra_widgets.UndefinedMeasureWarning` rule).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from . import measures as m
from .conventions import Conventions, conventions_for
from .errors import QRAInputError
from .errors import measured as _measured
from .limits import check_bootstrap
from .measures.precision import cv_star_checked
from .result import ResultRow as _Row
from .study import Study
from .writers import writer

COLUMNS = [
    "result_type",
    "measure",
    "level",
    "quality_criterion",
    "system",
    "value",
    "n",
    "n_systems",
    "note",
    "conventions",
    "ci_low",
    "ci_high",
    "ci_method",
    "ci_over",
    "ci_level",
    "ci_B",
    "ci_seed",
    "ci_pairing",
    "ci_note",
]
_FRAME_DTYPES = {
    "n": int,
    "n_systems": "Int64",
    "ci_low": float,
    "ci_high": float,
    "ci_level": float,
    "ci_B": "Int64",
    "ci_seed": "Int64",
    "ci_method": object,
    "ci_over": object,
    "ci_pairing": object,
    "ci_note": object,
}
CAUTION_MARK = "‡"  # an interval with a caution (ci_note); "†" marks Vangel's interval
SYSTEM_MEAN_COLUMNS = [
    "experiment",
    "quality_criterion",
    "system",
    "value",
    "ci_low",
    "ci_high",
    "ci_method",
    "ci_over",
    "ci_note",
]


def pd_na():
    import pandas as pd

    return pd.NA


@dataclass
class _Kept:
    """What a later ``assess(..., reuse=)`` can take over from one quality criterion."""

    inputs: tuple | None  # everything its rows depend on (None: it has labels, which are not compared)
    rows: tuple = ()
    cv: dict = field(default_factory=dict)  # (qc, system) -> CVStar
    counts: m.RankCounts = field(default_factory=lambda: m.RankCounts(0, 0))
    systems: dict = field(default_factory=dict)  # system -> ((values, scale_min), (CVStar, reason))
    pairs: dict = field(default_factory=dict)  # (row bytes, row bytes) -> RankCounts of that experiment pair


@dataclass(repr=False)
class Assessment:
    """The result of :func:`assess`: a tidy frame of every value.  The template, the writers
    (Markdown, LaTeX, CSV, JSON, HTML) and the narrative are functions of
    :mod:`qra_widgets.report.formats`; the methods below delegate to them in one line, finding
    them by name in :mod:`qra_widgets.writers` (where that module registers them), so the engine
    never imports the writers above it."""

    study: Study
    rows: list[_Row]
    cv: dict[tuple[str, str], m.CVStar] = field(default_factory=dict)
    conventions: Conventions = field(default_factory=Conventions)
    intervals: dict = field(default_factory=dict)  # (measure, level, qc, system) -> (low, high, method, note, over)
    bootstrap_info: dict = field(default_factory=dict)  # B, seed, ci, ci_method, resample, paired (empty: none)
    _reusable: dict[str, _Kept] = field(default_factory=dict, compare=False)  # for assess(..., reuse=this)

    def __repr__(self) -> str:
        return f"{self.caption()}\n{self.table().to_string(index=False)}"

    # ------------------------------------------------------------------ writers (report/formats.py)

    def table(self, decimals: dict[str, int] | None = None, intervals: bool | None = None):
        """The QRA++ template as a frame: :func:`qra_widgets.report.formats.table`."""
        return writer("table")(self, decimals, intervals)

    def caption(self) -> str:
        """:func:`qra_widgets.report.formats.caption`."""
        return writer("caption")(self)

    def interval_caption(self) -> str:
        """:func:`qra_widgets.report.formats.interval_caption`."""
        return writer("interval_caption")(self)

    def to_markdown(self, decimals: dict[str, int] | None = None) -> str:
        """:func:`qra_widgets.report.formats.to_markdown`."""
        return writer("to_markdown")(self, decimals)

    def to_latex(self, decimals: dict[str, int] | None = None) -> str:
        """:func:`qra_widgets.report.formats.to_latex`."""
        return writer("to_latex")(self, decimals)

    def to_csv(self) -> str:
        """:func:`qra_widgets.report.formats.to_csv`."""
        return writer("to_csv")(self)

    def to_json(self) -> str:
        """:func:`qra_widgets.report.formats.to_json`."""
        return writer("to_json")(self)

    def _repr_html_(self) -> str:
        return writer("to_html")(self)

    def narrative(self, quality_criterion: str, system: str, *, sd_ci: str = "chi-square") -> str:
        """:func:`qra_widgets.report.formats.narrative`."""
        return writer("narrative")(self, quality_criterion, system, sd_ci=sd_ci)

    # ------------------------------------------------------------------ interval cautions

    def ci_note(self, key: tuple, estimate: float) -> str:
        """The caution on the interval of ``key`` (a key of ``intervals``; empty when there is none
        or nothing to say): :func:`~qra_widgets.intervals.interval_caution`, the one rule every
        rendering shows."""
        from .intervals import interval_caution

        found = self.intervals.get(key)
        if found is None:
            return ""
        low, high, method, _why, over = found
        measure, level = {"annotators": (key[3], "annotators"), "mean": ("mean", "system")}.get(key[0], key[:2])
        info = self.bootstrap_info or {}
        return interval_caution(
            measure,
            level,
            method,
            over,
            estimate,
            low,
            high,
            experiments=len(self.study.experiments),
            paired=info.get("paired"),
        )

    def interval_cautions(self) -> dict[str, str]:
        """``{caution: mark}``: each distinct ``ci_note`` of the tidy frame and the annotator-agreement
        table, in their order, marked ``‡1``, ``‡2``, ... (empty without intervals).  Every rendering
        marks a cautioned interval and says its caution under the table (:meth:`caution_footnotes`)."""
        if not self.intervals:
            return {}
        agreement = self._agreement() if any(key[0] == "annotators" for key in self.intervals) else {}
        notes = [self.ci_note(r.key, r.value) for r in self.rows]
        notes += list(agreement.get("ci_note", ()))
        return {text: f"{CAUTION_MARK}{i}" for i, text in enumerate(dict.fromkeys(n for n in notes if n), 1)}

    def caution_footnotes(self) -> list[str]:
        """``["‡1 criterion-level CV* interval: too short ...", ...]``: the footnotes of the marks."""
        return [f"{mark} {text}" for text, mark in self.interval_cautions().items()]

    def _agreement(self):
        """:meth:`annotator_agreement`, computed once while the ratings, conventions and intervals
        stay the same objects: a report asks for it for its marks, its notes and its table."""
        key = (self.study.ratings, self.conventions, self.intervals, len(self.intervals))
        kept = self.__dict__.get("_agreement_kept")
        if (
            kept is None
            or len(kept[0]) != len(key)
            or any(a is not b for a, b in zip(kept[0], key[:3]))
            or kept[0][3] != key[3]
        ):
            kept = (key, self.annotator_agreement())
            self.__dict__["_agreement_kept"] = kept
        return kept[1]

    # ------------------------------------------------------------------ data

    def to_frame(self):
        """One row per computed cell: ``result_type, measure, level, quality_criterion, system,
        value, n`` (then ``n_systems``, the systems a Type II/IV value used, and ``note``, the
        reason a value is nan), the ``conventions``, and the interval: ``ci_low, ci_high``,
        ``ci_method`` (the method only: ``percentile``, ``bca``, ``upper-one-sided``,
        ``lower-one-sided``, ``vangel``), ``ci_over`` (what it generalises over: ``items``,
        ``items+raters``, ``systems`` or ``experiments``; empty without an interval),
        ``ci_level`` and, for a bootstrap interval, ``ci_B``, ``ci_seed`` and ``ci_pairing``
        (``paired`` or ``unpaired`` items), and ``ci_note``: a caution where the coverage study
        found this kind of interval too short (:func:`~qra_widgets.intervals.interval_caution`;
        empty otherwise).  A study of three or more experiments with item labels also has an
        ``experiments`` column after ``system``: ``"O vs R2"`` on the Type III rows between the
        original's and one repeat's labels, empty on every other row."""
        import pandas as pd

        if not self.rows:
            return pd.DataFrame([], columns=COLUMNS).astype(_FRAME_DTYPES)
        columns = self._columns()
        return pd.DataFrame(columns, columns=list(columns))

    def _columns(self) -> dict:
        """The columns of :meth:`to_frame` (with rows), each made in its dtype (:data:`_FRAME_DTYPES`;
        the text columns as lists, which pandas reads as text): a frame from one dict per row, then
        ``astype``, costs several times as much, and a CSV writer needs no frame at all."""
        import pandas as pd

        rows = self.rows
        cells = [self._interval_cells(row) for row in rows] if self.intervals else [self._cells(None)] * len(rows)
        column = lambda name: [getattr(row, name) for row in rows]
        cell = lambda name: [c[name] for c in cells]
        pairs = [pair_text(row.experiments) for row in rows] if any(row.experiments for row in rows) else None
        return {
            **{name: column(name) for name in COLUMNS[:5]},
            **({"experiments": pairs} if pairs else {}),  # only with rows of one pair of experiments (n > 2 labels)
            "value": np.array(column("value"), dtype=float),
            "n": np.array(column("n"), dtype=int),
            "n_systems": pd.array(column("n_systems"), dtype="Int64"),
            "note": [c.get("note", row.note) for c, row in zip(cells, rows)],
            "conventions": [self.conventions.describe()] * len(rows),
            **{name: np.array(cell(name), dtype=float) for name in ("ci_low", "ci_high")},
            **{name: pd.Series(cell(name), dtype=object) for name in ("ci_method", "ci_over")},
            "ci_level": np.array(cell("ci_level"), dtype=float),
            **{name: pd.array(cell(name), dtype="Int64") for name in ("ci_B", "ci_seed")},
            "ci_pairing": pd.Series(cell("ci_pairing"), dtype=object),
            "ci_note": pd.Series(cell("ci_note"), dtype=object),
        }

    def _interval_cells(self, row: _Row) -> dict:
        """The interval columns of a row; with intervals asked for, a row without one says why in its note."""
        key = row.key
        return self._cells(self.intervals.get(key), row.note, self.ci_note(key, row.value))

    def _cells(self, found, note: str = "", caution: str = "") -> dict:
        empty = {
            "ci_low": np.nan,
            "ci_high": np.nan,
            "ci_method": "",
            "ci_over": "",
            "ci_level": np.nan,
            "ci_B": pd_na(),
            "ci_seed": pd_na(),
            "ci_pairing": "",
            "ci_note": "",
        }
        if found is None:
            return empty
        low, high, method, why, over = found
        info = self.bootstrap_info
        cells = {
            **empty,
            "ci_low": low,
            "ci_high": high,
            "ci_method": method,
            "ci_over": over,
            "ci_note": caution,
            "note": "; ".join(p for p in (note, why) if p),
        }
        if over:
            cells["ci_level"] = info.get("ci", np.nan)
        if over and over != "experiments":
            cells["ci_B"] = info.get("B")
            cells["ci_seed"] = info.get("seed") if info.get("seed") is not None else pd_na()
            cells["ci_pairing"] = {True: "paired", False: "unpaired"}.get(info.get("paired"), "")
        return cells

    def annotator_agreement(self):
        """Agreement among each experiment's own raters (item-level ratings only): columns
        ``experiment, quality_criterion, measure, value, n_items, n_raters`` (then ``note`` and,
        after a bootstrap, ``ci_low, ci_high, ci_method, ci_over, ci_note``).  Measures: Krippendorff's
        alpha at the criterion's level, Fleiss' kappa, Cohen's kappa (two raters), Gwet's AC1,
        Brennan-Prediger."""
        from .ratings import annotator_agreement

        frame = annotator_agreement(self.study, self.conventions)
        if self.bootstrap_info and len(frame):
            cells = [
                self.intervals.get(("annotators", e, q, m), (np.nan, np.nan, "", "no interval: not resampled", ""))
                for e, q, m in zip(frame.experiment, frame.quality_criterion, frame.measure)
            ]
            frame["ci_low"] = [c[0] for c in cells]
            frame["ci_high"] = [c[1] for c in cells]
            frame["ci_method"] = [c[2] for c in cells]
            frame["ci_over"] = [c[4] for c in cells]
            frame["ci_note"] = [
                self.ci_note(("annotators", e, q, m), v)
                for e, q, m, v in zip(frame.experiment, frame.quality_criterion, frame.measure, frame.value)
            ]
        return frame

    def system_means(self):
        """Type I system means (the measured values) with, after a bootstrap over items, their
        intervals: columns :data:`SYSTEM_MEAN_COLUMNS`, one row per experiment, criterion and
        system with a score."""
        import pandas as pd

        rows = []
        for (qc, system, experiment), value in self.study.scores.items():
            found = self.intervals.get(("mean", experiment, qc, system))
            low, high, method, _why, over = found if found is not None else (np.nan, np.nan, "", "", "")
            rows.append(
                [
                    experiment,
                    qc,
                    system,
                    float(value),
                    low,
                    high,
                    method,
                    over,
                    self.ci_note(("mean", experiment, qc, system), float(value)),
                ]
            )
        return pd.DataFrame(rows, columns=SYSTEM_MEAN_COLUMNS)

    def value(
        self,
        measure: str,
        level: str = "qc",
        quality_criterion: str | None = None,
        system: str | None = None,
        experiments: tuple[str, str] | None = None,
    ) -> float:
        """Look up one value, e.g. ``value("CV*", "system", "Fluency", "SVM")``; ``experiments``
        (``("O", "R2")``) picks a Type III value between the original and one repeat (n > 2)."""
        for row in self.rows:
            if (
                (row.measure, row.level) == (measure, level)
                and (quality_criterion is None or row.quality_criterion == quality_criterion)
                and (system is None or row.system == system)
                and row.experiments == (None if experiments is None else tuple(experiments))
            ):
                return row.value
        raise QRAInputError(
            f"measure: no {measure!r} at {level} level for {quality_criterion or 'the study'} {system or ''}".rstrip()
        )

    @property
    def notes(self) -> list[str]:
        """What a reader of the table must know: why a value is nan, then the footnote of each
        interval caution (``‡1 ...``, :meth:`caution_footnotes`), as every report lists them."""
        where = lambda r: " / ".join(p for p in (r.quality_criterion, r.system) if p) or "study"
        return [
            f"{r.measure} ({r.level}, {where(r)}): {r.note}" for r in self.rows if r.note
        ] + self.caution_footnotes()

    @property
    def n(self) -> int:
        return max((row.n for row in self.rows), default=0)


# ----------------------------------------------------------------------------- assess


def assess(
    study: Study,
    conventions: str | Conventions | None = None,
    *,
    bootstrap: int = 0,
    seed: int | None = None,
    ci: float = 0.95,
    ci_method: str = "percentile",
    resample: str = "items",
    progress=None,
    reuse: Assessment | None = None,
    max_work: int | None = None,
) -> Assessment:
    """Compute every applicable QRA++ measure of ``study`` at system, QC and study level.

    ``conventions`` is a preset name (``"qrapp"`` or ``"qra3"``) or a
    :class:`~qra_widgets.conventions.Conventions`; when it is ``None`` the study's own
    conventions are used (a study file's ``conventions``, e.g. a study read from QRA3
    files), else ``qrapp``.  The result records which were used.
    Raises :class:`QRAInputError` if fewer than two experiments have results.

    ``bootstrap=B`` (> 0) adds ``ci`` confidence intervals (``ci_low``, ``ci_high``,
    ``ci_method``, ``ci_over`` and the bootstrap's B, seed and pairing in
    :meth:`Assessment.to_frame`; see docs/intervals-engine.md) from :mod:`qra_widgets.uncertainty`:
    ``ci_method`` ``"percentile"`` or ``"bca"``; ``resample`` ``"items"``,
    ``"items+raters"`` or ``"systems"``; the same ``seed`` gives the same intervals and is
    recorded in :attr:`Assessment.bootstrap_info`.  ``progress(done)`` is called per chunk.

    ``reuse`` is an earlier assessment with the same conventions (the app passes the one
    made before an edit): a quality criterion whose inputs are unchanged (the same score
    matrix, systems, scale minimum and findings, and no labels) keeps that assessment's
    rows; in a changed criterion a system whose values are unchanged keeps its CV*, and
    (above ``measures.ranking.PAIR_SIGNS_UP_TO`` systems) a pair of experiments whose
    scores are unchanged keeps its P counts.  The values are those of assessing from
    scratch; only the unchanged part is not computed again (an edit of one score of a
    200-system x 8-experiment study recomputes one CV* and 7 of the 28 pairs of P).

    Parameters
    ----------
    study : Study
        The study: results of at least two experiments.
    conventions : str or Conventions, optional
        A preset name (``"qrapp"``, ``"qra3"``) or a :class:`~qra_widgets.conventions.Conventions`;
        default: the study's own, else ``qrapp``.
    bootstrap : int, default 0
        Bootstrap replicates B; 0 gives no intervals, else at least 10.
    seed : int, optional
        Seed of the bootstrap (a whole number >= 0); the same seed gives the same intervals.
    ci : float, default 0.95
        Coverage of the intervals.
    ci_method : {"percentile", "bca"}, default "percentile"
        The bootstrap interval.
    resample : {"items", "items+raters", "systems"}, default "items"
        What the bootstrap resamples.
    progress : callable, optional
        ``progress(done)``, called with the replicates done after each chunk.
    reuse : Assessment, optional
        An earlier assessment of the same study with the same conventions, whose unchanged
        part is kept (see above).
    max_work : int, optional
        Raise the limit on the bootstrap's size (replicates x ratings;
        :data:`qra_widgets.limits.MAX_WORK` by default).

    Returns
    -------
    Assessment
        The rows of every measure (:meth:`Assessment.table`, :meth:`Assessment.to_frame`), the
        conventions used and, with ``bootstrap``, :attr:`Assessment.bootstrap_info`.

    Raises
    ------
    QRAInputError
        If ``study`` is not a :class:`Study`, fewer than two experiments have results, or a
        bootstrap setting is out of range.
    """
    if not isinstance(study, Study):  # a dict or a file name: say so, not an AttributeError
        raise QRAInputError(
            f"assess: expected a Study (qra_widgets.load_study reads a file), got {type(study).__name__}"
        )
    if bootstrap or seed is not None:  # sizes, replicates and seed checked before anything is computed
        check_bootstrap(study, bootstrap if bootstrap else 10, seed, max_work)
    conventions = conventions_for(study, conventions)
    if reuse is not None and reuse.conventions != conventions:
        reuse = None
    study.validate()
    with_results = {e for (_q, _s, e) in study.scores} | study.labels.experiments() | {k[1] for k in study.findings}
    if len(with_results) < 2:
        raise QRAInputError(
            f"experiments: assessment needs results from at least two experiments, got {len(with_results)}"
        )
    assessment = Assessment(study, [], conventions=conventions)
    pooled = m.RankCounts(0, 0)
    for qc in study.quality_criteria:
        pooled += _assess_qc(assessment, qc.name, None if reuse is None else reuse._reusable.get(qc.name, _Kept(None)))
    _study_level(assessment, pooled)
    if bootstrap:
        from .intervals import assessment_intervals
        from .uncertainty import bootstrap as run_bootstrap

        result = run_bootstrap(
            study,
            conventions,
            B=bootstrap,
            seed=seed,
            ci=ci,
            ci_method=ci_method,
            resample=resample,
            progress=progress,
            max_work=max_work,
        )
        assessment.intervals = assessment_intervals(assessment, result)
        assessment.bootstrap_info = dict(result.info)
    return assessment


def _scored_rows(matrix: np.ndarray) -> np.ndarray:
    return matrix[~np.isnan(matrix).all(axis=1)]


def _assess_qc(assessment: Assessment, qc_name: str, earlier: _Kept | None) -> m.RankCounts:
    """Assess one quality criterion into ``assessment``.  ``earlier`` (``None``: nothing is
    reused) is what an assessment with the same conventions kept of it: all its rows when this
    criterion's inputs are the same, else the CV* of each unchanged system and the P counts of
    each unchanged pair of experiments."""
    study = assessment.study
    qc = study.quality_criterion(qc_name)
    matrix = study.score_matrix(qc_name)
    signs = study.sign_matrix(qc_name)
    conventions = assessment.conventions
    scale_min = qc.scale_min if conventions.scale_shift else None
    inputs = (
        None
        if study.has_labels(qc_name)
        else (
            matrix.shape,
            matrix.tobytes(),
            tuple(study.systems),
            scale_min,
            None if signs is None else signs.tobytes(),
        )
    )
    if inputs is not None and earlier is not None and earlier.inputs == inputs:
        assessment.rows.extend(earlier.rows)
        assessment.cv.update(earlier.cv)
        assessment._reusable[qc_name] = earlier
        return earlier.counts
    kept = assessment._reusable[qc_name] = _Kept(inputs)
    start = len(assessment.rows)
    scored = _scored_rows(matrix)
    n = scored.shape[0]
    rows = assessment.rows
    if n >= 2 and _nominal_ratings(study, qc):
        rows.extend(
            _Row(t, name, "qc", qc_name, None, np.nan, n, None, NOMINAL_NOTE)
            for t, name in (("I", "CV*"), ("II", "r"), ("II", "rho"), ("II", "tau" if n == 2 else "W"))
        )
    elif n >= 2:
        _type_one(assessment, qc_name, scale_min, matrix, earlier, kept)
        _type_two(rows, qc_name, scored, conventions)
    kept.counts = _type_four(rows, study, qc_name, scored, conventions, signs, earlier, kept)
    if inputs is None:
        _type_three(rows, study, qc, conventions)
    kept.rows = tuple(rows[start:])
    return kept.counts


NOMINAL_NOTE = (
    "refused: the criterion is nominal and its values are means of category codes; use the label "
    "agreement between experiments (Type III), or give category counts as scores of a non-nominal criterion"
)


def _nominal_ratings(study: Study, qc) -> bool:
    """Whether a criterion its annotation spec declares ``nominal`` has system values that are
    means of its item ratings (category codes), on which CV*, r, rho, tau and W mean nothing
    (a study saved before the reader stopped computing them).  A nominal criterion's scores
    typed in (a metric such as F1), computed from pairwise choices, or of ratings given without
    a spec (``QualityCriterion``'s default level is ``nominal``) are assessed."""
    ratings = getattr(study, "ratings", None)
    if qc.label_level != "nominal" or not ratings or qc.name not in ratings.criteria():
        return False
    declared = [
        c
        for c in ((getattr(ratings, "spec", None) or {}).get("quality_criteria") or [])
        if isinstance(c, dict) and c.get("name") == qc.name
    ]
    if not declared or declared[0].get("label_level") != "nominal":
        return False
    choices = getattr(ratings, "choices", None)
    return not (choices is not None and any(q == qc.name for q, _e in choices.judged()))


def _type_one(
    assessment: Assessment,
    qc: str,
    scale_min: float | None,
    matrix: np.ndarray,
    earlier: _Kept | None = None,
    kept: _Kept | None = None,
) -> None:
    system_rows = []
    for j, system in enumerate(assessment.study.systems):
        values = matrix[:, j][~np.isnan(matrix[:, j])]
        if values.size == 1:
            system_rows.append(_Row("I", "CV*", "system", qc, system, np.nan, 1, note="CV* needs at least 2 values"))
        elif values.size >= 2:
            inputs = (values.tobytes(), scale_min)
            found = earlier.systems.get(system) if earlier is not None else None
            if found is not None and found[0] == inputs:  # the same values: the same CV*
                result, reason = found[1]
            else:
                # the study is validated (finite scores, none below the scale): no check per system
                result, reason = _measured(
                    cv_star_checked, values, scale_min=scale_min, **assessment.conventions.to_kwargs("cv_star")
                )
            if kept is not None:
                kept.systems[system] = (inputs, (result, reason))
                kept.cv[(qc, system)] = result
            assessment.cv[(qc, system)] = result
            system_rows.append(_Row("I", "CV*", "system", qc, system, result.cv_star, result.n, note=reason))
    defined = [r.value for r in system_rows if not np.isnan(r.value)]
    n = int((~np.isnan(matrix).all(axis=1)).sum())
    mean = float(np.mean(defined)) if defined else np.nan
    assessment.rows.append(
        _Row("I", "CV*", "qc", qc, None, mean, n, len(defined), "" if defined else "no system has a defined CV*")
    )
    assessment.rows.extend(system_rows)


def _type_two(rows: list[_Row], qc: str, scored: np.ndarray, conventions: Conventions) -> None:
    n = scored.shape[0]
    if scored.shape[1] < 2:
        return
    if n == 2:
        both = ~np.isnan(scored).any(axis=0)
        x, y = scored[0, both], scored[1, both]
        for name, function in (("r", m.pearson_r), ("rho", m.spearman_rho), ("tau", m.kendall_tau)):
            if both.sum() < 2:
                rows.append(
                    _Row(
                        "II",
                        name,
                        "qc",
                        qc,
                        None,
                        np.nan,
                        2,
                        int(both.sum()),
                        "fewer than 2 systems scored in both experiments",
                    )
                )
                continue
            value, reason = _measured(function, x, y)
            rows.append(_Row("II", name, "qc", qc, None, value, 2, int(both.sum()), reason))
        return
    for name in ("r", "rho"):
        result, reason = _measured(m.mean_pairwise, scored, name)
        rows.append(_Row("II", name, "qc", qc, None, result.value, n, result.min_systems, reason))
    complete = int((~np.isnan(scored).any(axis=0)).sum())
    value, reason = _measured(m.kendall_w, scored, **conventions.to_kwargs("kendall_w"))
    rows.append(_Row("II", "W", "qc", qc, None, value, n, complete, reason))


def _type_four(
    rows: list[_Row],
    study: Study,
    qc: str,
    scored: np.ndarray,
    conventions: Conventions,
    signs: np.ndarray | None,
    earlier: _Kept | None = None,
    kept: _Kept | None = None,
) -> m.RankCounts:
    if signs is not None:
        stated = signs[~np.isnan(signs).all(axis=1)]
        if stated.shape[0] < 2:
            return m.RankCounts(0, 0)
        counts, n, systems = (
            m.sign_counts(stated, **conventions.to_kwargs("sign_counts")),
            stated.shape[0],
            len(study.systems),
        )
    elif scored.shape[0] >= 2 and scored.shape[1] >= 2:
        kwargs = conventions.to_kwargs("rank_counts")
        if earlier is not None and kept is not None and scored.shape[1] > m.ranking.PAIR_SIGNS_UP_TO:
            counts = _rank_counts_by_pair(scored, kwargs, earlier.pairs, kept.pairs)
        else:
            counts = m.rank_counts(scored, **kwargs)
        n, systems = scored.shape[0], int((~np.isnan(scored)).any(axis=0).sum())
    else:
        return m.RankCounts(0, 0)
    value, reason = _measured(counts.proportion)
    rows.append(_Row("IV", "P", "qc", qc, None, value, n, systems, reason))
    return counts


def _rank_counts_by_pair(scored: np.ndarray, kwargs: dict, earlier: dict, kept: dict) -> m.RankCounts:
    """``m.rank_counts(scored)`` as the sum of its experiment pairs' counts (counts add up:
    :class:`~qra_widgets.measures.RankCounts`), each pair's taken from ``earlier`` when both
    its rows of scores are unchanged.  Only for many systems, where ``rank_counts`` counts
    pair by pair anyway: an edit in one of E experiments recounts E - 1 pairs, not E(E-1)/2."""
    rows = [row.tobytes() for row in scored]  # one bytes object per row, shared by its pairs' keys
    counts = m.RankCounts(0, 0)
    for i, j in combinations(range(len(rows)), 2):
        key = (rows[i], rows[j])
        pair = earlier.get(key)
        if pair is None:
            pair = m.rank_counts(scored[[i, j]], **kwargs)
        kept[key] = pair
        counts += pair
    return counts


def _type_three(rows: list[_Row], study: Study, qc, conventions: Conventions) -> None:
    """Cohen's kappa and Krippendorff's alpha (n = 2) or Fleiss' kappa and alpha (n > 2) over all
    labels of the QC and per system; alpha at ``conventions.alpha_level``, else the criterion's
    ``label_level``.  For n > 2, Cohen's kappa and alpha between the original and each repeat
    follow (rows whose ``experiments`` names the pair, :func:`original_experiment`).

    Works on the label columns: items become units (sorted by system, so each system's units
    are one block of the QC's category-count matrix) and every measure reads counts.
    """
    coded = study.labels.coded_for_criterion(qc.name, study.systems, study.experiment_ids)
    present = np.unique(coded.experiment_row)
    n = len(present)
    if n < 2:
        return
    q, n_units = max(len(coded.categories), 1), len(coded.unit_system)
    alpha_level = conventions.alpha_level or qc.label_level
    bounds = np.searchsorted(coded.unit_system, np.arange(len(study.systems) + 1))
    scopes = [("qc", None, slice(None))] + [
        ("system", s, slice(bounds[i], bounds[i + 1])) for i, s in enumerate(study.systems) if bounds[i + 1] > bounds[i]
    ]
    if n == 2:
        measures = _pair_measures(coded, present[0], present[1], q, alpha_level)
    else:
        counts = np.bincount(coded.unit * q + coded.code, minlength=n_units * q).reshape(n_units, q)
        scoped = lambda cols: m.CategoryCounts(counts[cols], coded.categories)
        available = {
            "fleiss_kappa": lambda cols: m.fleiss_kappa(scoped(cols)),
            "alpha": lambda cols: m.krippendorff_alpha(scoped(cols), level=alpha_level),
        }
        measures = [(name, available[name]) for name in conventions.agreement_many]
    for level, system, columns in scopes:
        for name, function in measures:
            value, reason = _measured(function, columns)
            rows.append(_Row("III", name, level, qc.name, system, value, n, None, reason))
    if n == 2:
        return
    ids = study.experiment_ids
    original = ids.index(original_experiment(study))
    if original not in present:
        return
    for repeat in (int(e) for e in present if e != original):
        pair = (ids[original], ids[repeat])
        measures = _pair_measures(coded, original, repeat, q, alpha_level)
        for level, system, columns in scopes:
            for name, function in measures:
                value, reason = _measured(function, columns)
                rows.append(_Row("III", name, level, qc.name, system, value, 2, None, reason, experiments=pair))


def pair_text(experiments: tuple[str, str] | None) -> str:
    """``"O vs R2"``: the ``experiments`` column of a row of one pair of experiments (empty otherwise)."""
    return " vs ".join(experiments) if experiments else ""


def original_experiment(study: Study) -> str:
    """The experiment a repeat's labels are compared with (Type III, n > 2): the first whose role is
    ``"original"``, else the first experiment of the study."""
    return next((e.id for e in study.experiments if e.role == "original"), study.experiment_ids[0])


def _pair_measures(coded, first: int, second: int, q: int, alpha_level: str) -> list:
    """Cohen's kappa and alpha between the labels of experiments ``first`` and ``second`` (rows of
    ``study.experiment_ids``), each a function of the unit columns it is computed over."""
    n_units = len(coded.unit_system)
    table = np.full((2, n_units), np.nan)
    chosen = (coded.experiment_row == first) | (coded.experiment_row == second)
    table[(coded.experiment_row[chosen] == second).astype(np.int64), coded.unit[chosen]] = coded.code[chosen]
    pair_counts = np.zeros((n_units, q), dtype=np.int64)
    np.add.at(pair_counts, (coded.unit[chosen], coded.code[chosen]), 1)
    return [
        ("kappa", lambda cols: m.cohen_kappa(table[0, cols], table[1, cols], categories=list(range(q)))),
        (
            "alpha",
            lambda cols: m.krippendorff_alpha(m.CategoryCounts(pair_counts[cols], coded.categories), level=alpha_level),
        ),
    ]


def _study_level(assessment: Assessment, pooled: m.RankCounts) -> None:
    rows = assessment.rows
    system_cv = [r.value for r in rows if r.measure == "CV*" and r.level == "system" and not np.isnan(r.value)]
    n = assessment.n
    if system_cv:
        rows.append(_Row("I", "CV*", "study", None, None, float(np.mean(system_cv)), n, len(system_cv)))
    for name in ("kappa", "fleiss_kappa", "alpha"):  # rows of one pair of experiments (n > 2) are not averaged
        values = [r.value for r in rows if r.measure == name and r.level == "qc" and r.experiments is None]
        if values:
            defined = [v for v in values if not np.isnan(v)]
            note = "" if defined else f"no quality criterion has a defined {name}"
            rows.append(
                _Row("III", name, "study", None, None, float(np.mean(defined)) if defined else np.nan, n, None, note)
            )
    if pooled.compared:
        rows.append(_Row("IV", "P", "study", None, None, pooled.proportion(), n, None))


def side_by_side(study: Study, conventions=("qrapp", "qra3")):
    """The same study assessed under several conventions: one value column per conventions.

    Rows are the cells of :meth:`Assessment.to_frame` (``result_type, measure, level,
    quality_criterion, system``); each further column is named by
    :meth:`~qra_widgets.conventions.Conventions.describe` and holds that assessment's value,
    so a reader sees which numbers a choice changes (the app shows the two presets this way).

    >>> from qra_widgets import examples
    >>> table = side_by_side(examples.load("qrapp_example1"))
    >>> table[table.system == "SVM"][["qrapp", "qra3"]].round(2).values.tolist()
    [[19.96, 18.43]]
    """
    cell = ["result_type", "measure", "level", "quality_criterion", "system"]
    merged = None
    for choice in conventions:
        result = assess(study, conventions=choice)
        frame = result.to_frame()
        keys = [*cell, "experiments"] if "experiments" in frame else cell  # Type III of one pair of experiments
        frame = frame[keys + ["value"]].rename(columns={"value": result.conventions.describe()})
        merged = frame if merged is None else merged.merge(frame, on=keys, how="outer", sort=False)
    if merged is None:
        raise QRAInputError("side_by_side: give at least one conventions preset")
    return merged
