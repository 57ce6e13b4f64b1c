"""The organisers' view: every study, criterion and system of a library, from stored results only.

:func:`overview` reads what :class:`~qra_widgets.store.StudyLibrary` stored with each saved
revision (``to_frame`` rows, evaluation types, QCET ids, property answers, experiment pairs)
and never assesses a study, so looking at 1,000 studies costs a few database reads.  The
returned :class:`Overview` holds tidy frames at study, criterion and system level; its
:meth:`Overview.filter` and :meth:`Overview.sorted` work in memory, without the database.

Different statistics are never averaged and different kinds of evaluation never ranked
together: W (three or more experiments) and τ (two) are separate columns; every level is
grouped by evaluation type (human, metric, LLM-as-judge, unknown) and ranked within it; a
study with criteria of several types has one row per type (its CV* and α are the means over
that type's systems and criteria, as the study level defines them; its pooled P is shown only
when all its criteria are of one type).  W and τ exist at criterion level only (QRA++ Table 3):
a study row shows one where a single criterion of that type has it.

Two α columns, two measures.  ``α`` is the stored between-experiment (Type III) Krippendorff's
α: do the experiments' ratings of the same items agree?  ``annotator α`` is the agreement among
each experiment's own raters (Krippendorff's α at the criterion's level, as
:meth:`Assessment.annotator_agreement` reports it), stored with every revision of a study with
item-level ratings, and shown as the mean over the criterion's experiments (a study row: the
mean over every experiment and criterion of that evaluation type).  A study with ratings in one
experiment only, or with interval ratings that share no items, has an annotator α and no α.

The experiment-pair property analysis (QRA++ section 8 asks which properties of an
experiment go with poorer reproducibility): for every pair of experiments in every study and
every quality criterion, the pair's distance is the mean over the systems both scored of
the CV* of their two values (on the shifted scale); for each of the 22 catalogue properties
the pair either answers it the same, differently, or not both.  The *effect* of a property is

    mean pair CV* (pairs that differ on it) - mean pair CV* (pairs that answer it the same),

with a percentile confidence interval from a bootstrap that resamples whole studies (pairs
from one study are not independent), and the numbers of pairs and studies behind each
group.  Pair CV*s are centred on their study's and criterion's mean first, so the comparison
is within studies (and human and metric results are never mixed); only studies with pairs in
both groups (*informative* studies) carry information, and a property with fewer than
``min_pairs`` pairs in a group or ``min_studies`` informative studies is marked ``too few
pairs`` and not tested.

Whether a property matters is decided by a within-study permutation test (experiments
shuffled within their study), with Holm's adjustment over all the properties tested, so that
the chance of flagging *any* property when none matters stays below 5% (measured on simulated
null libraries of 25 and 60 studies of 2-4 experiments in ``tests/compare/test_overview.py``; without
the adjustment most such libraries flag at least one of the 22 properties).  The interval is a
marginal 95% interval for the size of the effect, not adjusted: it can exclude 0 for a
property that is not flagged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

import numpy as np

FILTERS = ("evaluation_type", "qcet", "result_type", "team", "year", "track", "tag", "study")
#: Evaluation types in the order their groups are shown; results of different types are never ranked together.
EVALUATION_TYPES = ("human", "metric", "llm-as-judge", "unknown")
STUDY_COLUMNS = [
    "study",
    "name",
    "revision",
    "saved_at",
    "evaluation_type",
    "criteria",
    "qcet",
    "teams",
    "years",
    "track",
    "tags",
    "experiments",
    "systems",
    "mean CV*",
    "P",
    "W",
    "τ",
    "α",
    "annotator α",
    "n",
    "problem",
]
CRITERION_COLUMNS = [
    "study",
    "name",
    "quality_criterion",
    "evaluation_type",
    "qcet",
    "qcet_name",
    "result_types",
    "mean CV*",
    "P",
    "W",
    "τ",
    "α",
    "annotator α",
    "κ",
    "n",
    "n_systems",
    "note",
]
SYSTEM_COLUMNS = ["study", "quality_criterion", "system", "evaluation_type", "qcet", "qcet_name", "CV*", "n", "note"]
EFFECT_COLUMNS = [
    "property",
    "name",
    "effect",
    "ci_low",
    "ci_high",
    "p",
    "p_adjusted",
    "pairs same",
    "pairs differ",
    "studies same",
    "studies differ",
    "studies informative",
    "mean pair CV* (same)",
    "mean pair CV* (differ)",
    "status",
]
# Worst first: higher CV* is worse; lower P, W, tau, alpha, kappa are worse.
WORSE_IS_HIGHER = {
    "mean CV*": True,
    "CV*": True,
    "P": False,
    "W": False,
    "τ": False,
    "α": False,
    "annotator α": False,
    "κ": False,
}
#: The value columns of each level (the distribution charts take one of them).
MEASURES = ("CV*", "P", "W", "τ", "α", "annotator α")
#: Human column headers of the frames the app and the HTML report show (a column not listed keeps its name).
COLUMN_TITLES = {
    "study": "Study",
    "name": "Name",
    "quality_criterion": "Criterion",
    "system": "System",
    "experiment": "Experiment",
    "measure": "Measure",
    "level": "Level",
    "value": "Value",
    "ci_low": "95% CI low",
    "ci_high": "95% CI high",
    "n": "n",
    "n_items": "Items",
    "n_raters": "Raters",
    "property": "Property",
    "effect": "Effect",
    "pairs same": "Pairs same",
    "pairs differ": "Pairs differ",
    "studies same": "Studies same",
    "studies differ": "Studies differ",
    "studies informative": "Studies informative",
    "p": "p",
    "p_adjusted": "p (Holm)",
    "mean pair CV* (same)": "Mean pair CV* (same)",
    "mean pair CV* (differ)": "Mean pair CV* (differ)",
    "status": "Status",
    "items": "Items",
    "raters_per_item": "Raters per item",
    "expected_ci_width": "Expected CI width",
    "expected_half_width": "Expected half-width",
    "evaluation_type": "Type",
    "qcet_name": "QCET criterion",
    "annotator α": "Annotator α",
}


def column_title(name) -> str:
    """The human header of a frame column (``"ci_low"`` -> ``"95% CI low"``)."""
    return COLUMN_TITLES.get(name, str(name))


NO_QCET = "(no QCET criterion)"
MIXED_P = (
    "P pools the system pairs of every criterion of the study, of every evaluation type: "
    "see each criterion's P at the quality-criterion level"
)


def _qcet_name(qcet_id) -> str:
    from .properties import qcet_taxonomy

    return qcet_taxonomy()[qcet_id].name if qcet_id in qcet_taxonomy() else NO_QCET


def _type_order(types):
    """Sort key of an evaluation-type column: the order of :data:`EVALUATION_TYPES`, others after."""
    return types.map(lambda t: EVALUATION_TYPES.index(t) if t in EVALUATION_TYPES else len(EVALUATION_TYPES))


@dataclass
class Overview:
    """Tidy frames of a library's stored results (see the module docstring).

    ``studies``, ``criteria``, ``systems``: one row per study, per (study, criterion) and per
    (study, criterion, system), worst first; :attr:`pairs`: one row per experiment pair and
    criterion (read from the library on first use, once, and shared by filtered views);
    ``filters``: the filters applied.  :attr:`property_effects` is computed on demand.
    """

    studies: object
    criteria: object
    systems: object
    load_pairs: object = None  # a frame, or a callable returning the stored pairs frame
    filters: dict = field(default_factory=dict)
    seed: int = 0
    _shared: dict = field(default_factory=dict, repr=False)

    @property
    def pairs(self):
        """Experiment pairs of the criteria in this (filtered) overview."""
        if "pairs" not in self._shared:
            raw = self.load_pairs() if callable(self.load_pairs) else self.load_pairs
            self._shared["pairs"] = _prepared_pairs(raw, self._shared.get("criteria", self.criteria), self._shared)
        pairs = self._shared["pairs"]
        if not self.filters or not len(pairs):
            return pairs
        chosen = set(zip(self.criteria["study"], self.criteria["quality_criterion"]))
        return pairs[[key in chosen for key in zip(pairs["study"], pairs["quality_criterion"])]]

    # ------------------------------------------------------------------ in-memory views

    def filter(self, **filters) -> Overview:
        """The overview of the studies/criteria matching every filter (no database access).

        Filters (each a value or a list of accepted values): ``evaluation_type``, ``qcet``
        (QCET id or name), ``result_type`` (``"I"`` ... ``"IV"``), ``team``, ``year``,
        ``track``, ``tag``, ``study``.
        """
        unknown = set(filters) - set(FILTERS)
        if unknown:
            from .errors import QRAInputError

            raise QRAInputError(f"overview: unknown filter(s) {sorted(unknown)}; use {', '.join(FILTERS)}")
        wanted = {
            k: ({str(x) for x in v} if isinstance(v, (list, tuple, set)) else {str(v)})
            for k, v in filters.items()
            if v not in (None, "", [], ())
        }
        criteria = self.criteria
        keep = np.ones(len(criteria), dtype=bool)
        lists = {"team": "teams", "year": "years", "tag": "tags"}
        study_keep = np.ones(len(self.studies), dtype=bool)
        for key, accepted in wanted.items():
            if key in lists:
                column = self.studies[lists[key]]
                study_keep &= column.map(lambda values, a=accepted: bool(a & set(values))).to_numpy(dtype=bool)
            elif key == "track":
                study_keep &= self.studies["track"].isin(accepted).to_numpy()
            elif key == "study":
                study_keep &= self.studies["study"].isin(accepted).to_numpy()
            elif key == "evaluation_type":
                keep &= criteria["evaluation_type"].isin(accepted).to_numpy()
            elif key == "qcet":
                keep &= (criteria["qcet"].isin(accepted) | criteria["qcet_name"].isin(accepted)).to_numpy()
            elif key == "result_type":
                keep &= (
                    criteria["result_types"].map(lambda types, a=accepted: bool(a & set(types))).to_numpy(dtype=bool)
                )
        studies = set(self.studies.loc[study_keep, "study"])
        keep &= criteria["study"].isin(studies).to_numpy()
        criteria = criteria[keep]
        chosen = set(zip(criteria["study"], criteria["quality_criterion"]))
        in_chosen = lambda frame: [key in chosen for key in zip(frame["study"], frame["quality_criterion"])]
        systems = self.systems[in_chosen(self.systems)] if len(self.systems) else self.systems
        criterion_filters = {"evaluation_type", "qcet", "result_type"} & set(wanted)
        if criterion_filters:  # a study's row of one evaluation type stays if a criterion of that type does
            kept = set(zip(criteria["study"], criteria["evaluation_type"]))
            study_rows = self.studies[
                [key in kept for key in zip(self.studies["study"], self.studies["evaluation_type"])]
            ]
        else:
            study_rows = self.studies[self.studies["study"].isin(studies)]
        return replace(
            self, studies=study_rows, criteria=criteria, systems=systems, filters={**self.filters, **filters}
        )

    def sorted(self, level: str = "criteria", by: str | None = None, worst_first: bool = True):
        """One level's frame (``"studies"``, ``"criteria"`` or ``"systems"``) sorted by ``by``
        (default: CV*), worst first unless ``worst_first`` is False; NaN last either way.

        Rows are grouped by evaluation type first (human, metric, LLM-as-judge, unknown: a human
        CV* and a metric CV* are never ranked against each other), and ``rank`` numbers the rows
        within their type (1 = first shown; no rank where the value is undefined)."""
        frame = getattr(self, level).drop(columns="rank", errors="ignore")
        by = by or ("CV*" if level == "systems" else "mean CV*")
        ascending = not WORSE_IS_HIGHER.get(by, False)
        if not worst_first:
            ascending = not ascending
        order = _type_order(frame["evaluation_type"])
        frame = frame.assign(_type=order).sort_values(
            ["_type", by], ascending=[True, ascending], na_position="last", kind="stable"
        )
        rank = frame.groupby("_type").cumcount() + 1
        defined = frame[by].notna() if by in WORSE_IS_HIGHER else True
        frame.insert(0, "rank", rank.where(defined).astype("Int64"))
        return frame.drop(columns="_type")

    def values(self, measure: str = "CV*"):
        """Long frame for the distribution charts: ``study, quality_criterion, system, evaluation_type,
        qcet_name, year, value`` (system-level CV*, or criterion-level P, W, τ, α or annotator α)."""
        import pandas as pd

        if measure not in MEASURES:
            from .errors import QRAInputError

            raise QRAInputError(f"overview values: unknown measure {measure!r}; use {', '.join(MEASURES)}")
        years = dict(zip(self.studies["study"], self.studies["years"].map(lambda ys: ys[0] if ys else "(no year)")))
        if measure == "CV*":
            frame = self.systems.rename(columns={"CV*": "value"})[
                ["study", "quality_criterion", "system", "evaluation_type", "qcet_name", "value"]
            ].copy()
        else:
            frame = self.criteria.rename(columns={measure: "value"})[
                ["study", "quality_criterion", "evaluation_type", "qcet_name", "value"]
            ].copy()
            frame.insert(2, "system", "")
        frame["year"] = frame["study"].map(years).fillna("(no year)")
        return pd.DataFrame(frame[frame["value"].notna()]).reset_index(drop=True)

    def page(
        self, level: str = "criteria", by: str | None = None, *, worst_first: bool = True, page: int = 0, size: int = 25
    ):
        """Page ``page`` (from 0; clamped into range) of :meth:`sorted`, ``size`` rows a page, as plain
        Python data for a view: ``rows`` (the page's rows as dicts), ``columns``, ``total`` (rows on
        every page), ``pages``, ``page`` and ``per_type`` (rows of each evaluation type, every page)."""
        import math

        frame = self.sorted(level, by, worst_first=worst_first)
        pages = max(1, math.ceil(len(frame) / size))
        page = min(max(page, 0), pages - 1)
        return {
            "rows": frame.iloc[page * size : (page + 1) * size].to_dict("records"),
            "columns": list(frame.columns),
            "total": len(frame),
            "pages": pages,
            "page": page,
            "per_type": {kind: int(n) for kind, n in frame["evaluation_type"].value_counts().items()},
        }

    def choices(self, key: str) -> list[str]:
        """The values the filter ``key`` can take here, sorted (the app's filter menus); ``"study"``:
        the study ids."""
        if key == "study":
            return sorted(set(self.studies.study))
        if key in ("evaluation_type",):
            return sorted(set(self.criteria.evaluation_type))
        if key == "qcet":
            return sorted(set(self.criteria.qcet_name))
        if key == "result_type":
            return sorted({t for types in self.criteria.result_types for t in types})
        if key == "track":
            return sorted({t for t in self.studies.track if t})
        column = {"team": "teams", "year": "years", "tag": "tags"}[key]
        return sorted({v for values in self.studies[column] for v in values})

    @property
    def property_effects(self):
        return property_effects(self.pairs, seed=self.seed)


# ----------------------------------------------------------------------------- building


def overview(library, seed: int = 0, **filters) -> Overview:
    """The overview of every (non-deleted) study in ``library``, from stored results only.

    ``library`` is a :class:`~qra_widgets.store.StudyLibrary` or a path to one.  Filters:
    see :meth:`Overview.filter`.

    Parameters
    ----------
    library : StudyLibrary or str or os.PathLike
        The study library, or the path of its file.
    seed : int, default 0
        Seed of the property analysis's permutation test (:attr:`Overview.property_effects`).
    **filters
        Keep only the studies and criteria matching each (:meth:`Overview.filter`).

    Returns
    -------
    Overview
        The studies', criteria's and systems' frames.
    """
    from .store import StudyLibrary

    if not isinstance(library, StudyLibrary):
        library = StudyLibrary(library)
    built = from_stored(library.stored_results(pairs=False), seed=seed, load_pairs=library.stored_pairs)
    return built.filter(**filters) if filters else built


def from_stored(stored: dict, seed: int = 0, load_pairs=None) -> Overview:
    """Build the :class:`Overview` frames from :meth:`StudyLibrary.stored_results` output
    (its pairs, or ``load_pairs``, a callable that reads them when first needed)."""
    import pandas as pd

    rows = stored["rows"].rename(columns={"study_id": "study"})
    infos = {study_id: info for study_id, _rev, _at, info in stored["studies"]}
    kinds = {(s, q): kind for s, info in infos.items() for q, kind in info["evaluation_types"].items()}
    rows = rows.assign(
        evaluation_type=[kinds.get(key, "unknown") for key in zip(rows["study"], rows["quality_criterion"])]
    )
    at = lambda level, measures: rows[(rows.level == level) & rows.measure.isin(measures)]
    pivot = lambda frame, keys: frame.groupby([*keys, "measure"])["value"].first().unstack("measure")
    by_type = ["study", "evaluation_type"]
    empty = pd.Series(dtype=float)
    typed_mean = lambda frame: frame.groupby(by_type)["value"].mean() if len(frame) else empty  # NaN skipped
    # one row per study and evaluation type: a study's human and metric results are never pooled
    cv = typed_mean(at("system", ["CV*"]))
    alpha = typed_mean(at("qc", ["alpha"]))
    # QRA++ defines W and tau at criterion level only: a study row shows one where a single criterion has it
    single = lambda frame: (
        frame.groupby(by_type)["value"].agg(lambda v: v.iloc[0] if len(v) == 1 else np.nan) if len(frame) else empty
    )
    w, tau = single(at("qc", ["W"])), single(at("qc", ["tau"]))
    n_typed = rows[rows.level != "study"].groupby(by_type)["n"].max() if len(rows) else empty
    study_level = pivot(at("study", ["CV*", "P", "alpha"]), ["study"]) if len(rows) else pd.DataFrame()
    study_value = lambda study, m: (
        study_level.at[study, m] if m in study_level and study in study_level.index else np.nan
    )
    lookup = lambda series, key: series.get(key, np.nan)
    # annotator α: the experiments' own Krippendorff's α, stored per criterion and experiment (None: undefined)
    within = {
        (s, q): [v for v in by_experiment.values() if v is not None]
        for s, info in infos.items()
        for q, by_experiment in info.get("annotator_alpha", {}).items()
    }
    mean_of = lambda values: float(np.mean(values)) if values else np.nan
    study_rows = []
    for study_id, revision, saved_at, info in stored["studies"]:
        per_type: dict[str, list[str]] = {}
        for criterion, kind in info["evaluation_types"].items():
            per_type.setdefault(kind, []).append(criterion)
        types = sorted(per_type, key=lambda t: EVALUATION_TYPES.index(t) if t in EVALUATION_TYPES else 99) or [
            "unknown"
        ]
        mixed = len(types) > 1
        for kind in types:
            key = (study_id, kind)
            criteria_of_type = per_type.get(kind, [])
            row = {
                "study": study_id,
                "name": info["name"],
                "revision": revision,
                "saved_at": saved_at,
                "evaluation_type": kind,
                "criteria": len(criteria_of_type),
                "qcet": ", ".join(sorted({info["qcet"][q] for q in criteria_of_type if info["qcet"].get(q)})),
                "teams": info["teams"],
                "years": info["years"],
                "track": info["track"],
                "tags": info["tags"],
                "experiments": info["experiments"],
                "systems": info["systems"],
                "problem": info["problem"],
                "W": lookup(w, key),
                "τ": lookup(tau, key),
                "n": lookup(n_typed, key),
                "annotator α": mean_of([v for q in criteria_of_type for v in within.get((study_id, q), [])]),
            }
            if mixed:  # the study-level values pool every criterion: the type's own values instead
                row.update({"mean CV*": lookup(cv, key), "P": np.nan, "α": lookup(alpha, key)})
                row["problem"] = "; ".join(p for p in (info["problem"], MIXED_P) if p)
            else:
                row.update(
                    {
                        "mean CV*": study_value(study_id, "CV*"),
                        "P": study_value(study_id, "P"),
                        "α": study_value(study_id, "alpha"),
                    }
                )
            study_rows.append(row)
    studies = pd.DataFrame(study_rows, columns=STUDY_COLUMNS)
    studies["n"] = studies["n"].fillna(0).astype(int)
    studies = studies.astype({c: float for c in ("mean CV*", "P", "W", "τ", "α", "annotator α")})

    qc_rows = rows[rows.level == "qc"]
    keys = ["study", "quality_criterion"]
    if len(qc_rows):
        wide = pivot(qc_rows, keys)
        kappa = [c for c in ("kappa", "fleiss_kappa") if c in wide]
        wide["κ"] = wide[kappa].mean(axis=1) if kappa else np.nan
        wide = wide.rename(columns={"CV*": "mean CV*", "alpha": "α", "tau": "τ"})
        for column in ("mean CV*", "P", "W", "τ", "α"):
            if column not in wide:
                wide[column] = np.nan
        grouped = qc_rows.groupby(keys)
        present = pd.crosstab([qc_rows["study"], qc_rows["quality_criterion"]], qc_rows["result_type"]) > 0
        present = present[sorted(present.columns)]
        names = np.array(present.columns)
        result_types = pd.Series([list(names[row]) for row in present.to_numpy()], index=present.index)
        noted = qc_rows[qc_rows["note"].fillna("") != ""][[*keys, "note"]].drop_duplicates()
        extra = pd.DataFrame(
            {
                "n": grouped["n"].max(),
                "n_systems": grouped["n_systems"].max(),
                "result_types": result_types,
                "note": noted.groupby(keys)["note"].agg("; ".join),
            }
        )
        extra["note"] = extra["note"].fillna("")
        criteria = wide[["mean CV*", "P", "W", "τ", "α", "κ"]].join(extra).reset_index()
    else:
        criteria = pd.DataFrame(
            columns=keys + ["mean CV*", "P", "W", "τ", "α", "κ", "n", "n_systems", "result_types", "note"]
        )
    # criteria without any computed value (a study that cannot be assessed) still get a row
    known = set(zip(criteria["study"], criteria["quality_criterion"]))
    missing = [
        {"study": s, "quality_criterion": q, "result_types": [], "n": 0, "note": info["problem"]}
        for s, info in infos.items()
        for q in info["evaluation_types"]
        if (s, q) not in known
    ]
    if missing:
        criteria = pd.concat([criteria, pd.DataFrame(missing)], ignore_index=True)
    names = {s: info["name"] for s, info in infos.items()}
    criteria["name"] = criteria["study"].map(names)
    criteria["evaluation_type"] = [
        infos[s]["evaluation_types"].get(q, "unknown") for s, q in zip(criteria.study, criteria.quality_criterion)
    ]
    criteria["qcet"] = [infos[s]["qcet"].get(q) or "" for s, q in zip(criteria.study, criteria.quality_criterion)]
    criteria["qcet_name"] = criteria["qcet"].map(lambda q: _qcet_name(q) if q else NO_QCET)
    criteria["annotator α"] = [mean_of(within.get(key, [])) for key in zip(criteria.study, criteria.quality_criterion)]
    criteria = criteria[CRITERION_COLUMNS].astype({"n": "Int64", "n_systems": "Int64"})

    system_rows = rows[(rows.level == "system") & (rows.measure == "CV*")]
    systems = system_rows[["study", "quality_criterion", "system", "value", "n", "note"]].rename(
        columns={"value": "CV*"}
    )
    lookup = criteria.set_index(keys)[["evaluation_type", "qcet", "qcet_name"]]
    systems = systems.join(lookup, on=keys)[SYSTEM_COLUMNS].reset_index(drop=True)

    overview_ = Overview(
        studies.reset_index(drop=True), criteria, systems, seed=seed, load_pairs=stored.get("pairs", load_pairs)
    )
    overview_._shared["criteria"] = criteria  # every criterion, for the pairs read later
    overview_.studies = overview_.sorted("studies")
    overview_.criteria = overview_.sorted("criteria")
    overview_.systems = overview_.sorted("systems")
    return overview_


# ----------------------------------------------------------------------------- pairs


def _prepared_pairs(raw, criteria, shared: dict):
    """Stored pairs with ``study``, parsed ``same``/``differs`` lists and the criterion's evaluation type."""
    import pandas as pd

    columns = ["study", "quality_criterion", "experiment_a", "experiment_b", "distance", "n_systems", "same", "differs"]
    if raw is None or not len(raw):
        return pd.DataFrame(columns=columns)
    pairs = raw.rename(columns={"study_id": "study"})
    if len(pairs) and isinstance(pairs["same"].iloc[0], str):
        pairs = pairs.assign(same=pairs["same"].map(json.loads), differs=pairs["differs"].map(json.loads))
    if criteria is not None and "evaluation_type" not in pairs:
        lookup = criteria.set_index(["study", "quality_criterion"])[["evaluation_type"]]
        pairs = pairs.join(lookup, on=["study", "quality_criterion"])
    return pairs.reset_index(drop=True)


def holm(p_values) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values: family-wise error control under any dependence.

    The i-th smallest of m p-values becomes max over j <= i of min(1, (m - j + 1) p_(j)).
    NaN stays NaN and does not count in m.

    >>> holm([0.01, 0.04, 0.03, np.nan]).round(3).tolist()
    [0.03, 0.06, 0.06, nan]
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    tested = np.flatnonzero(np.isfinite(p))
    if not tested.size:
        return out
    order = tested[np.argsort(p[tested], kind="stable")]
    m = order.size
    out[order] = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    return out


def _answer_classes(
    slot_a: np.ndarray, slot_b: np.ndarray, n_slots: int, same: np.ndarray, differ: np.ndarray
) -> np.ndarray:
    """Each (study, criterion, experiment) slot's answer class for one property (-1: not answered), rebuilt
    from the pairs that answer it the same (joined) or differently (both answered).  Two experiments
    with no scored system in common have no pair, so they count as answering differently unless a
    third experiment joins them."""
    parent = np.arange(n_slots)

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in zip(slot_a[same], slot_b[same]):
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[rb] = ra
    labels = np.full(n_slots, -1, dtype=np.int64)
    answered = np.zeros(n_slots, dtype=bool)
    answered[slot_a[same | differ]] = True
    answered[slot_b[same | differ]] = True
    for s in np.flatnonzero(answered):
        labels[s] = root(s)
    return labels


def property_effects(
    pairs,
    *,
    bootstrap: int = 2000,
    permutations: int = 1999,
    confidence: float = 0.95,
    min_pairs: int = 10,
    min_studies: int = 5,
    adjust: str = "holm",
    seed: int = 0,
):
    """Per catalogue property: how much higher pair CV* is where experiments differ on it, tested
    with multiplicity control.

    ``pairs`` has ``study``, ``quality_criterion``, ``experiment_a``, ``experiment_b``,
    ``distance`` (pair CV*), ``same`` and ``differs`` (lists of property ids) --
    :attr:`Overview.pairs`.  Returns one row per property answered by both experiments of at
    least one pair (columns :data:`EFFECT_COLUMNS`):

    * ``effect`` = mean centred pair CV* (differ) - mean (same), and ``ci_low``/``ci_high``, its
      study-clustered percentile bootstrap interval (``bootstrap`` resamples of whole studies):
      a *marginal* interval, not adjusted for the other properties;
    * ``studies informative``: studies with pairs in both groups (a study whose pairs all answer
      the property the same way, or all differently, says nothing within the study);
    * ``p``: a two-sided within-study permutation test of "the property does not matter":
      each study's experiments are shuffled (one shuffle for all its criteria), ``permutations``
      times, carrying their answers with them, and the effect recomputed;
      p = (1 + #{|permuted| >= |observed|}) / (1 + permutations).  Valid whatever the number of
      experiments per study, as long as a study's experiments are exchangeable when the
      property does not matter;
    * ``p_adjusted``: ``p`` adjusted over every property tested in this call -- ``"holm"``
      (default: family-wise error control under any dependence between properties, which
      differ together; a flagged property is a claim about *that* property) or ``"bh"``
      (Benjamini-Hochberg false discovery rate, more flags, for screening);
    * ``status``: ``"too few pairs"`` (fewer than ``min_pairs`` pairs in a group or fewer than
      ``min_studies`` informative studies: no test, no interval, not ranked),
      ``"differing goes with higher CV*"`` / ``"... lower CV*"`` where ``p_adjusted`` is below
      ``1 - confidence``, else ``"no clear effect"``.

    Ranked properties come first, largest effect first.  Properties that tend to differ together
    share their effects (a marginal comparison).  With no property mattering, a library of 25 or
    60 studies of 2-4 experiments flags at least one of the 22 properties in at most 5% of
    libraries (Holm; simulated in ``tests/compare/test_overview.py``).
    """
    import pandas as pd
    from scipy.stats import false_discovery_control

    from .properties import PROPERTIES
    from .shuffles import Shuffles

    if adjust not in ("holm", "bh"):
        from .errors import QRAInputError

        raise QRAInputError(f"adjust: must be 'holm' or 'bh', got {adjust!r}")
    if not len(pairs):
        return pd.DataFrame(columns=EFFECT_COLUMNS)
    studies, study_index = np.unique(pairs["study"].to_numpy(dtype=str), return_inverse=True)
    distance = pairs["distance"].to_numpy(dtype=float)
    criterion = (
        pairs["quality_criterion"].astype(str).to_numpy() if "quality_criterion" in pairs else np.full(len(pairs), "")
    )
    # within-study comparison: centre each study's pair CV*s on their mean, so that studies that are
    # noisier overall do not masquerade as an effect of whatever property they happen to vary
    # (per study and criterion: human and metric pair CV*s live on different scales)
    _, group = np.unique(pairs["study"].astype(str).to_numpy() + "\x1f" + criterion, return_inverse=True)
    centred = distance - (np.bincount(group, weights=distance) / np.bincount(group))[group]
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(len(studies), np.full(len(studies), 1 / len(studies)), size=bootstrap)  # (B, studies)
    tail = (1 - confidence) / 2

    # the permutation design: slot = (study-criterion group, experiment's place in its study)
    missing = [c for c in ("experiment_a", "experiment_b") if c not in pairs]
    if missing:
        from .errors import QRAInputError

        raise QRAInputError(
            f"pairs: missing column(s) {', '.join(missing)} (the permutation test shuffles experiments)"
        )
    experiment_a = pairs["experiment_a"].astype(str).to_numpy()
    experiment_b = pairs["experiment_b"].astype(str).to_numpy()
    local: list[dict] = [{} for _ in studies]
    for s, a, b in zip(study_index, experiment_a, experiment_b):
        local[s].setdefault(a, len(local[s]))
        local[s].setdefault(b, len(local[s]))
    size = np.array([len(x) for x in local])
    group_study = np.zeros(group.max() + 1, dtype=np.int64)
    group_study[group] = study_index
    offset = np.concatenate([[0], np.cumsum(size[group_study])[:-1]])
    n_slots = int(size[group_study].sum())
    place_a = np.array([local[s][a] for s, a in zip(study_index, experiment_a)])
    place_b = np.array([local[s][b] for s, b in zip(study_index, experiment_b)])
    # perm[k, study offset + place] = the place whose answers the experiment takes in shuffle k
    study_offset = np.concatenate([[0], np.cumsum(size)[:-1]])
    perm = np.empty((permutations, int(size.sum())), dtype=np.int64)
    for s, m in enumerate(size):
        perm[:, study_offset[s] : study_offset[s] + m] = rng.permuted(np.tile(np.arange(m), (permutations, 1)), axis=1)
    slot_a, slot_b = offset[group] + place_a, offset[group] + place_b
    rows, to_test = [], []  # (row, answer classes) of the properties with enough pairs
    column = {pid: k for k, pid in enumerate(PROPERTIES)}
    answered = {}  # "same" / "differs": (pairs, properties) booleans, read in one pass over the lists
    for name in ("same", "differs"):
        answered[name] = np.zeros((len(pairs), len(column)), dtype=bool)
        for i, ids in enumerate(pairs[name]):
            answered[name][i, [column[p] for p in ids if p in column]] = True
    for pid, prop in PROPERTIES.items():
        same, differ = answered["same"][:, column[pid]], answered["differs"][:, column[pid]]
        if not (same.any() or differ.any()):
            continue
        sums = lambda mask, values: np.bincount(study_index[mask], weights=values[mask], minlength=len(studies))
        s_same, n_same = sums(same, centred), sums(same, np.ones_like(distance))
        s_diff, n_diff = sums(differ, centred), sums(differ, np.ones_like(distance))
        row = {
            "property": pid,
            "name": prop.name,
            "pairs same": int(same.sum()),
            "pairs differ": int(differ.sum()),
            "studies same": int((n_same > 0).sum()),
            "studies differ": int((n_diff > 0).sum()),
            "studies informative": int(((n_same > 0) & (n_diff > 0)).sum()),
            "mean pair CV* (same)": distance[same].mean() if same.any() else np.nan,
            "mean pair CV* (differ)": distance[differ].mean() if differ.any() else np.nan,
            "effect": np.nan,
            "ci_low": np.nan,
            "ci_high": np.nan,
            "p": np.nan,
            "p_adjusted": np.nan,
        }
        enough = min(row["pairs same"], row["pairs differ"]) >= min_pairs and row["studies informative"] >= min_studies
        if enough:
            row["effect"] = centred[differ].mean() - centred[same].mean()
            with np.errstate(divide="ignore", invalid="ignore"):
                boot = weights @ s_diff / (weights @ n_diff) - weights @ s_same / (weights @ n_same)
            boot = boot[np.isfinite(boot)]
            row["ci_low"], row["ci_high"] = np.quantile(boot, [tail, 1 - tail])
            to_test.append((row, _answer_classes(slot_a, slot_b, n_slots, same, differ)))
        rows.append(row)
    shuffles = Shuffles(perm, study_offset, size, study_index, offset[group], place_a, place_b) if to_test else None
    for row, labels in to_test:  # the permutation test (qra_widgets/shuffles.py: by order tables)
        effects = shuffles.effects(labels, centred) if permutations else np.array([])
        effects = effects[np.isfinite(effects)]
        extreme = np.abs(effects) >= abs(row["effect"]) - 1e-12 * max(1.0, abs(row["effect"]))
        row["p"] = (1 + int(extreme.sum())) / (1 + effects.size)
    frame = pd.DataFrame(rows, columns=EFFECT_COLUMNS)
    tested = frame["p"].to_numpy(dtype=float)
    if np.isfinite(tested).any():
        if adjust == "holm":
            frame["p_adjusted"] = holm(tested)
        else:
            finite = np.isfinite(tested)
            adjusted = np.full(tested.shape, np.nan)
            adjusted[finite] = false_discovery_control(tested[finite], method="bh")
            frame["p_adjusted"] = adjusted
    level = 1 - confidence
    status = np.where(
        frame["effect"].isna(),
        "too few pairs",
        np.where(
            (frame["p_adjusted"] < level) & (frame["effect"] > 0),
            "differing goes with higher CV*",
            np.where(
                (frame["p_adjusted"] < level) & (frame["effect"] < 0),
                "differing goes with lower CV*",
                "no clear effect",
            ),
        ),
    )
    frame["status"] = status
    frame["ranked"] = frame["status"] != "too few pairs"
    frame = frame.sort_values(["ranked", "effect"], ascending=[False, False], na_position="last", kind="stable")
    return frame.drop(columns="ranked").reset_index(drop=True)


def pairs_frame(studies):
    """The experiment-pair frame (as :attr:`Overview.pairs`) computed from :class:`~qra_widgets.Study`
    objects directly, for analysing studies that are not in a library."""
    import pandas as pd

    from .store import experiment_pairs

    columns = ["study", "quality_criterion", "experiment_a", "experiment_b", "distance", "n_systems", "same", "differs"]
    rows = [(study.id, *pair) for study in studies for pair in experiment_pairs(study)]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.assign(same=frame["same"].map(json.loads), differs=frame["differs"].map(json.loads))


# ----------------------------------------------------------------------------- classifying criteria

UNCLASSIFIED_COLUMNS = [
    "study",
    "quality_criterion",
    "evaluation_type",
    "qcet",
    "suggested_type",
    "suggested_qcet",
    "reason",
]


def unclassified_criteria(library, study_ids=None):
    """The criteria whose evaluation type is ``unknown`` or that have no QCET criterion, in the
    studies ``study_ids`` (default: every study of ``library``), with a suggestion for each
    (:func:`qra_widgets.properties.suggest.suggest_criterion`).  Without an evaluation type a
    criterion is ranked with the unknowns in the overview, apart from human and metric results."""
    import pandas as pd

    return pd.DataFrame(_unclassified_rows(library, study_ids), columns=UNCLASSIFIED_COLUMNS)


def unclassified_records(library, study_ids=None) -> list[dict]:
    """:func:`unclassified_criteria` as plain dicts (keys: its columns), for the app's prompt."""
    return [dict(zip(UNCLASSIFIED_COLUMNS, row)) for row in _unclassified_rows(library, study_ids)]


def _unclassified_rows(library, study_ids=None) -> list[tuple]:
    from .properties.suggest import suggest_criterion

    ids = list(study_ids) if study_ids is not None else [s.id for s in library.list()]
    rows = []
    for study_id in ids:
        for qc in library.open(study_id).quality_criteria:
            if qc.evaluation_type == "unknown" or not qc.qcet_id:
                guess = suggest_criterion(qc.name)
                rows.append(
                    (
                        study_id,
                        qc.name,
                        qc.evaluation_type,
                        qc.qcet_id or "",
                        guess.evaluation_type if qc.evaluation_type == "unknown" else qc.evaluation_type,
                        qc.qcet_id or guess.qcet_id or "",
                        guess.reason,
                    )
                )
    return rows


def classify_criteria(library, study_id: str, answers: dict) -> int:
    """Set criteria's evaluation type and QCET criterion in a library study and save it as a new
    revision (returned).  ``answers``: ``{criterion: (evaluation_type, qcet_id or None)}``; an
    unknown criterion, evaluation type or QCET id raises :class:`~qra_widgets.errors.QRAInputError`."""
    from .errors import QRAInputError
    from .properties import qcet_taxonomy

    revision = library.latest_revision(study_id)
    study = library.open(study_id, revision)
    for name, (kind, qcet) in answers.items():
        old = study.quality_criterion(name)
        if qcet and qcet not in qcet_taxonomy():
            raise QRAInputError(f"{study_id}: quality criterion {name!r}: {qcet!r} is not a QCET criterion id")
        study.replace_quality_criterion(name, replace(old, evaluation_type=kind, qcet_id=qcet or None))
    return library.save(study, expected_revision=revision)
