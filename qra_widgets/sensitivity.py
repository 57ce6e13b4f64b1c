"""How much a published CV* depends on the choices a paper may not document: the sensitivity
report (:func:`sensitivity`) recomputes one system's CV* under every combination of scale
shift, small-sample factor, standard deviation (s/c4 as QRA defines it, the sample s without
c4 as Excel's STDEV.S, or the population sd as Excel's STDEV.P), aggregation of item-level
ratings, rounding of the system values and the spec's ``optional_exclude``
(:func:`optional_exclude_variants`), and says which combinations reproduce the number as
printed (:func:`qra_widgets.report.sensitivity.sensitivity_report` writes it as text, HTML or
LaTeX: what the ``sensitivity`` command prints).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from .errors import QRAInputError, UndefinedMeasureWarning, finite_number
from .limits import shown, shown_values

if TYPE_CHECKING:
    import pandas as pd

    from .study import Study

SENSITIVITY_CHOICES = ("optional_exclude", "scale_shift", "small_sample_factor", "sd", "aggregation", "rounding")
ROUNDINGS = (None, 2, 1)
#: The standard deviations tried: QRA's unbiased s* = s / c4(n), the sample sd without c4 (Excel's
#: STDEV.S, numpy's ddof=1) and the population sd (Excel's STDEV.P, numpy's default ddof=0).
SDS = ("s/c4", "STDEV.S", "STDEV.P")
MAX_PUBLISHED_CHARS = 30


def _sd_ratio(sd: str, n: int) -> float:
    """CV* with ``sd`` over CV* with s/c4 (CV* is linear in the sd): c4(n) for STDEV.S, and
    c4(n) sqrt((n - 1) / n) for STDEV.P."""
    from .measures.precision import c4

    return {"s/c4": 1.0, "STDEV.S": c4(n), "STDEV.P": c4(n) * float(np.sqrt((n - 1) / n))}[sd]


def check_published(published) -> tuple[float, int]:
    """A published value as printed: text of at most 30 characters holding a finite number.
    Returns the number and its printed decimals (trailing zeros count: ``"6.00"`` has 2).

    >>> check_published("12.01"), check_published("6.00")
    ((12.01, 2), (6.0, 2))
    >>> check_published("1" * 100_000)
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: published: must be a number as printed, of at most 30 characters; got 100,000 characters
    >>> check_published("inf")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: published: must be a finite number as printed, got 'inf'
    """
    if isinstance(published, bool) or not isinstance(published, (str, int, float, np.integer, np.floating)):
        raise QRAInputError(f"published: must be a number as printed, got {type(published).__name__}")
    text = str(published).strip()
    if len(text) > MAX_PUBLISHED_CHARS:
        raise QRAInputError(
            f"published: must be a number as printed, of at most {MAX_PUBLISHED_CHARS} characters; "
            f"got {len(text):,} characters"
        )
    got = f"number as printed, got {shown(text, 30)}"
    target = finite_number(text, f"published: must be a {got}", f"published: must be a finite {got}")
    mantissa = text.lower().split("e", 1)[0]
    return target, len(mantissa.split(".", 1)[1]) if "." in mantissa else 0


def sensitivity(
    study: Study, *, published, quality_criterion: str, system: str, variants: dict[str, Study] | None = None
) -> pd.DataFrame:
    """The CV* of one system under every combination of the documented choices, and which
    combinations reproduce ``published`` at its printed digits.

    Choices: ``scale_shift`` (subtract the scale minimum first, QRA 2022 section 3.1),
    ``small_sample_factor`` (the (1 + 1/(4n)) factor of CV*), ``sd`` (:data:`SDS`: QRA's
    s/c4, or a team's spreadsheet: STDEV.S without c4, STDEV.P the population sd), ``aggregation`` of item-level
    ratings into system values (``mean``, ``item_mean``, ``median``; only with ratings) and
    ``rounding`` of the system values before CV* (none, 2 or 1 decimals, as teams retype means),
    and ``optional_exclude``: ``variants`` maps a label (which of a spec's ``optional_exclude``
    were applied, e.g. ``"none"``, ``"R1"``) to the study read that way (see
    :func:`optional_exclude_variants`); without it the choice is n/a.
    A choice that cannot change the value for this input (e.g. the shift of a scale starting at 0,
    rounding values that already have 1 decimal) is ``"n/a"``; combinations giving the same
    value (to 1e-12) share a ``group``.  ``published`` is the number as printed (text keeps its
    trailing zeros: ``"6.00"`` has two digits); a combination reproduces it when its value
    differs by at most half a unit of the last printed digit.

    Returns one row per distinct combination: :data:`SENSITIVITY_CHOICES`, ``value``, ``n``,
    ``reproduces``, ``group``; ``frame.attrs`` has ``published``, ``digits`` and ``not_applicable``.
    """
    import itertools

    import pandas as pd

    from .measures.precision import cv_star

    variants = variants or {"n/a": study}
    target, digits = check_published(published)
    qc = study.quality_criterion(quality_criterion, "quality_criterion")
    if system not in study.systems:
        raise QRAInputError(f"system: {shown(system)} is not one of the study's systems {shown_values(study.systems)}")
    rated = bool(study.ratings) and quality_criterion in study.ratings.criteria()
    aggregations = ("mean", "item_mean", "median") if rated else (None,)
    values_by = {}
    for label, variant in variants.items():
        for how in aggregations:
            means = variant.ratings.system_means(quality_criterion, how) if how and variant.ratings else {}
            values = []
            for e in variant.experiment_ids:
                value = (
                    means.get((system, e), variant.scores.get((quality_criterion, system, e)))
                    if how
                    else variant.scores.get((quality_criterion, system, e))
                )
                if value is not None:
                    values.append(float(value))
            if len(values) < 2:
                raise QRAInputError(f"{quality_criterion} / {system}: CV* needs values from at least two experiments")
            values_by[(label, how)] = values
    grid = []
    for label, shift, factor, how, rounding in itertools.product(
        variants, (True, False), (True, False), aggregations, ROUNDINGS
    ):
        values = values_by[(label, how)]
        used = [round(v, rounding) for v in values] if rounding is not None else values
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMeasureWarning)
            value = cv_star(used, scale_min=qc.scale_min if shift else None, small_sample_factor=factor).cv_star
        for sd in SDS:
            grid.append(
                {
                    "optional_exclude": label,
                    "scale_shift": shift,
                    "small_sample_factor": factor,
                    "sd": sd,
                    "aggregation": how or "n/a",
                    "rounding": "none" if rounding is None else f"{rounding} decimals",
                    "value": value * _sd_ratio(sd, len(used)),
                    "n": len(used),
                }
            )
    frame = pd.DataFrame(grid)
    not_applicable = []
    for choice in SENSITIVITY_CHOICES:
        others = [c for c in SENSITIVITY_CHOICES if c != choice]
        spread = frame.groupby(others, dropna=False)["value"].agg(
            lambda v: np.nanmax(v) - np.nanmin(v) if v.notna().any() else 0.0
        )
        if (frame[choice] == "n/a").all() or (spread.fillna(0) <= 1e-12).all():
            not_applicable.append(choice)
    for choice in not_applicable:
        frame[choice] = "n/a"
    frame = frame.drop_duplicates(subset=list(SENSITIVITY_CHOICES)).reset_index(drop=True)
    frame["reproduces"] = (frame["value"] - target).abs() <= 0.5 * 10.0**-digits + 1e-9
    keys = frame["value"].round(12)
    order = {v: i + 1 for i, v in enumerate(dict.fromkeys(keys.sort_values()))}
    frame["group"] = keys.map(order).astype(int)
    frame = frame.sort_values(["group"] + list(SENSITIVITY_CHOICES), kind="stable").reset_index(drop=True)
    frame.attrs.update(
        published=str(published).strip(),
        digits=digits,
        not_applicable=not_applicable,
        quality_criterion=quality_criterion,
        system=system,
    )
    return frame


def optional_exclude_variants(spec: dict, load) -> dict[str, Study]:
    """The studies of an annotation spec under each combination of its experiments'
    ``optional_exclude`` (applied or not, experiment by experiment): label (``"none"``, ``"R1"``,
    ``"R1+R2"``) -> ``load(spec_copy)``.  In each copy the applied ones are merged into the
    experiment's ``exclude`` and every ``optional_exclude`` is removed.  At most 4 experiments
    with one (16 variants)."""
    import copy
    import itertools

    optional = [e["id"] for e in spec.get("experiments", []) if e.get("optional_exclude")]
    if len(optional) > 4:
        raise QRAInputError(
            f"optional_exclude: {len(optional)} experiments have one; the sensitivity report tries at most 4"
        )
    variants = {}
    for size in range(len(optional) + 1):
        for chosen in itertools.combinations(optional, size):
            copied = copy.deepcopy(spec)
            for entry in copied["experiments"]:
                extra = entry.pop("optional_exclude", None)
                if extra and entry["id"] in chosen:
                    merged = dict(entry.get("exclude") or {})
                    for column, values in extra.items():
                        merged[column] = list(merged.get(column, [])) + list(
                            values if isinstance(values, list) else [values]
                        )
                    entry["exclude"] = merged
            variants["+".join(chosen) or "none"] = load(copied)
    return variants
