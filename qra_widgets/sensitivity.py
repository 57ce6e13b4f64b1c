"""How much a published CV* depends on the choices a paper may not document: the sensitivity
report (:func:`sensitivity`) recomputes one system's CV* under every combination of scale
shift, small-sample factor, aggregation of item-level ratings, rounding of the system values
and the spec's ``optional_exclude`` (:func:`optional_exclude_variants`), and says which
combinations reproduce the number as printed (:func:`sensitivity_report`: the text the
``sensitivity`` command prints).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from .errors import QRAInputError, UndefinedMeasureWarning

if TYPE_CHECKING:
    import pandas as pd

    from .study import Study

SENSITIVITY_CHOICES = ("optional_exclude", "scale_shift", "small_sample_factor", "aggregation", "rounding")
ROUNDINGS = (None, 2, 1)


def _printed_digits(published) -> int:
    text = str(published).strip()
    return len(text.split(".", 1)[1]) if "." in text else 0


def sensitivity(study: Study, *, published, quality_criterion: str, system: str,
                variants: dict[str, Study] | None = None) -> pd.DataFrame:
    """The CV* of one system under every combination of the documented choices, and which
    combinations reproduce ``published`` at its printed digits.

    Choices: ``scale_shift`` (subtract the scale minimum first, QRA 2022 section 3.1),
    ``small_sample_factor`` (the (1 + 1/(4n)) factor of CV*), ``aggregation`` of item-level
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
    qc = study.quality_criterion(quality_criterion, "quality_criterion")
    if system not in study.systems:
        raise QRAInputError(f"system: {system!r} is not one of the study's systems {study.systems}")
    try:
        target = float(published)
    except (TypeError, ValueError):
        raise QRAInputError(f"published: must be a number as printed, got {published!r}") from None
    digits = _printed_digits(published)
    rated = bool(study.ratings) and quality_criterion in study.ratings.criteria()
    aggregations = ("mean", "item_mean", "median") if rated else (None,)
    values_by = {}
    for label, variant in variants.items():
        for how in aggregations:
            means = variant.ratings.system_means(quality_criterion, how) if how and variant.ratings else {}
            values = []
            for e in variant.experiment_ids:
                value = means.get((system, e), variant.scores.get((quality_criterion, system, e))) if how else \
                    variant.scores.get((quality_criterion, system, e))
                if value is not None:
                    values.append(float(value))
            if len(values) < 2:
                raise QRAInputError(f"{quality_criterion} / {system}: CV* needs values from at least two experiments")
            values_by[(label, how)] = values
    grid = []
    for label, shift, factor, how, rounding in itertools.product(variants, (True, False), (True, False), aggregations, ROUNDINGS):
        values = values_by[(label, how)]
        used = [round(v, rounding) for v in values] if rounding is not None else values
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMeasureWarning)
            value = cv_star(used, scale_min=qc.scale_min if shift else None, small_sample_factor=factor).cv_star
        grid.append({"optional_exclude": label, "scale_shift": shift, "small_sample_factor": factor, "aggregation": how or "n/a",
                     "rounding": "none" if rounding is None else f"{rounding} decimals", "value": value, "n": len(used)})
    frame = pd.DataFrame(grid)
    not_applicable = []
    for choice in SENSITIVITY_CHOICES:
        others = [c for c in SENSITIVITY_CHOICES if c != choice]
        spread = frame.groupby(others, dropna=False)["value"].agg(lambda v: np.nanmax(v) - np.nanmin(v) if v.notna().any() else 0.0)
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
    frame.attrs.update(published=str(published), digits=digits, not_applicable=not_applicable,
                       quality_criterion=quality_criterion, system=system)
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
        raise QRAInputError(f"optional_exclude: {len(optional)} experiments have one; the sensitivity report tries at most 4")
    variants = {}
    for size in range(len(optional) + 1):
        for chosen in itertools.combinations(optional, size):
            copied = copy.deepcopy(spec)
            for entry in copied["experiments"]:
                extra = entry.pop("optional_exclude", None)
                if extra and entry["id"] in chosen:
                    merged = dict(entry.get("exclude") or {})
                    for column, values in extra.items():
                        merged[column] = list(merged.get(column, [])) + list(values if isinstance(values, list) else [values])
                    entry["exclude"] = merged
            variants["+".join(chosen) or "none"] = load(copied)
    return variants


def sensitivity_report(frame: pd.DataFrame) -> str:
    """The text the ``sensitivity`` command prints: each distinct value once with the
    combinations that give it, those that reproduce the published value marked."""
    attrs = frame.attrs
    lines = [(f"CV* of {attrs['quality_criterion']} / {attrs['system']}: published {attrs['published']} "
              f"(compared at {attrs['digits']} decimals)")]
    if attrs["not_applicable"]:
        lines.append("n/a (cannot change the value for this input): " + ", ".join(attrs["not_applicable"]))
    shown = [c for c in SENSITIVITY_CHOICES if c not in attrs["not_applicable"]]
    for group, rows in frame.groupby("group", sort=True):
        value = rows["value"].iloc[0]
        mark = "REPRODUCES" if rows["reproduces"].iloc[0] else ""
        lines.append(f"{value:.{max(attrs['digits'] + 2, 4)}f}  {mark}".rstrip())
        for _, row in rows.iterrows():
            lines.append("    " + ", ".join(f"{c}={row[c]}" for c in shown))
    found = frame[frame["reproduces"]]
    lines.append(f"{found['group'].nunique()} of {frame['group'].nunique()} distinct values reproduce the published "
                 f"value ({len(found)} of {len(frame)} combinations)")
    return "\n".join(lines) + "\n"

