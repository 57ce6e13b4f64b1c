"""Replication success by several criteria side by side (issue 30; FReD's table, ReplicationSuccess).

Replication science reports more than one verdict: whether a repeat "worked" depends on the
criterion.  :func:`replication_success` gives, for each system and each repeat compared with the
original (and for the repeats pooled), the criteria a methods reviewer would choose, each with
the numbers it rests on:

* ``same_direction_significant`` -- the repeat's effect has the original's sign and differs from
  0 at ``alpha`` (two-sided z test), the "vote counting" criterion;
* ``original_in_repeat_ci`` -- the original estimate lies in the repeat's ``level`` interval;
* ``repeat_in_prediction_interval`` -- the repeat lies in the prediction interval from the
  original (Patil, Peng & Leek 2016; :func:`qra_widgets.meta.replication_interval`);
* ``tost_equivalent`` -- repeat and original are equivalent within ``±margin`` (TOST;
  :func:`qra_widgets.meta.tost`);
* ``pooled_significant`` -- the inverse-variance (fixed-effect) pool of original and repeat
  differs from 0 at ``alpha``;
* ``sceptical_p`` -- Held's (2020) sceptical p-value, recalibrated at the golden level (Held,
  Micheloud & Pawel 2022), ReplicationSuccess' ``pSceptical`` default (one-sided); success when
  it is below ``alpha / 2``; with ``relative_effect_size`` θr / θo;
* ``small_telescopes`` -- Simonsohn (2015): True when the repeat is significantly *smaller*
  (one-sided, at ``alpha``) than d33%, the effect the original had 33% power to detect; the
  original's sample could not have seen an effect that small, so the replication failed.

**The effect.**  A system's value on a rating scale is not an effect: significance needs a
value of "no effect".  The effect is the system's difference from ``baseline`` (another system
of the same experiment, standard errors combined as independent samples of items), else its
difference from ``null`` (default: the middle of the criterion's scale).  Both are recorded
with the result.  Standard errors come from item-level ratings or are given, as for
:func:`qra_widgets.forest`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .errors import QRAInputError
from .meta import _original_id, _standard_errors, random_effects, replication_interval, tost

if TYPE_CHECKING:
    import pandas as pd

    from .assess import Assessment

GOLDEN = (1 + math.sqrt(5)) / 2
CRITERIA = [
    "same_direction_significant",
    "original_in_repeat_ci",
    "repeat_in_prediction_interval",
    "tost_equivalent",
    "pooled_significant",
    "sceptical_p",
    "small_telescopes",
]
REPLICATION_COLUMNS = [
    "quality_criterion",
    "system",
    "comparison",
    "experiment",
    "effect_of",
    "theta_o",
    "se_o",
    "theta_r",
    "se_r",
    "k_repeats",
    "same_direction_significant",
    "p_r",
    "original_in_repeat_ci",
    "ci_r_low",
    "ci_r_high",
    "repeat_in_prediction_interval",
    "pi_low",
    "pi_high",
    "tost_equivalent",
    "tost_p",
    "margin",
    "pooled_significant",
    "pooled_estimate",
    "pooled_p",
    "sceptical_p",
    "sceptical_success",
    "relative_effect_size",
    "small_telescopes",
    "d33",
    "small_telescopes_p",
    "note",
]


def z_sceptical(zo: float, zr: float, c: float) -> float:
    """Held's (2020) sceptical z-value from the original's and the replication's z-values and the
    variance ratio ``c = se_o² / se_r²``: with ``H`` the harmonic and ``A`` the arithmetic mean
    of ``zo²`` and ``zr²``, ``z_S² = H / 2`` if ``c = 1``, else
    ``(sqrt(A (A + (c − 1) H)) − A) / (c − 1)`` (ReplicationSuccess ``zSceptical``).

    >>> round(z_sceptical(2, 3, 2), 6)
    1.531634
    """
    if zo == 0 or zr == 0:
        return 0.0
    h = 2.0 / (1.0 / zo**2 + 1.0 / zr**2)
    a = (zo**2 + zr**2) / 2.0
    z2 = h / 2.0 if c == 1 else (math.sqrt(a * (a + (c - 1.0) * h)) - a) / (c - 1.0)
    return math.sqrt(z2)


def sceptical_p(zo: float, zr: float, c: float, *, alternative: str = "one.sided", type: str = "golden") -> float:
    """Held's (2020) sceptical p-value: ``2 (1 − Φ(z_S))`` (``type="nominal"``) or, recalibrated
    at the golden level, ``2 (1 − Φ(z_S sqrt(φ)))`` with ``φ = (1 + √5) / 2`` (``"golden"``, Held,
    Micheloud & Pawel 2022; the default of ReplicationSuccess' ``pSceptical``).  One-sided (the
    default): half of it when the two estimates share their sign, else one minus half.  ``c`` is
    the variance ratio ``se_o² / se_r²`` (:func:`z_sceptical`).

    >>> from scipy.stats import norm
    >>> round(sceptical_p(norm.isf(0.005), norm.isf(0.01), 2), 8)  # pSceptical(p2z(0.01), p2z(0.02), c = 2)
    0.02273138
    """
    from scipy import special

    if alternative not in ("one.sided", "two.sided"):
        raise QRAInputError(f"alternative: must be 'one.sided' or 'two.sided', got {alternative!r}")
    if type not in ("golden", "nominal"):
        raise QRAInputError(f"type: must be 'golden' or 'nominal', got {type!r}")
    if not (math.isfinite(zo) and math.isfinite(zr) and math.isfinite(c) and c >= 0):
        raise QRAInputError(f"sceptical p: z-values and a variance ratio >= 0 needed, got {zo!r}, {zr!r}, {c!r}")
    z = z_sceptical(zo, zr, c) * (math.sqrt(GOLDEN) if type == "golden" else 1.0)
    p = 2.0 * float(special.ndtr(-z))
    if alternative == "one.sided":
        p = p / 2.0 if np.sign(zo) == np.sign(zr) else 1.0 - p / 2.0
    return p


def d33(se_original: float, *, alpha: float = 0.05) -> float:
    """Simonsohn's (2015) d33%: the effect a two-sided z test at ``alpha`` with the original's
    standard error detects with 33% power, ``se_o (z_{1−α/2} + Φ⁻¹(1/3))`` (power
    ``Φ(d/se_o − z_{1−α/2})``, the far tail neglected as in the paper).

    >>> round(d33(1.0), 4)
    1.5292
    """
    from scipy import special

    return se_original * (float(special.ndtri(1 - alpha / 2)) + float(special.ndtri(1 / 3)))


def _verdicts(
    theta_o: float, se_o: float, theta_r: float, se_r: float, *, margin: float, alpha: float, level: float
) -> dict:
    from scipy import special

    zl = float(special.ndtri(0.5 + level / 2))
    p_r = 2.0 * float(special.ndtr(-abs(theta_r) / se_r))
    sign = 1.0 if theta_o >= 0 else -1.0
    pi_low, pi_high = replication_interval(theta_o, se_o, se_r, level=level)
    equivalence = tost(theta_r - theta_o, math.hypot(se_o, se_r), margin=margin, alpha=alpha)
    w_o, w_r = 1 / se_o**2, 1 / se_r**2
    pooled = (w_o * theta_o + w_r * theta_r) / (w_o + w_r)
    pooled_p = 2.0 * float(special.ndtr(-abs(pooled) * math.sqrt(w_o + w_r)))
    sceptical = sceptical_p(theta_o / se_o, theta_r / se_r, se_o**2 / se_r**2)
    small = d33(se_o, alpha=alpha)
    telescopes_p = float(special.ndtr((sign * theta_r - small) / se_r))
    return {
        "same_direction_significant": bool(np.sign(theta_r) == np.sign(theta_o) and p_r < alpha and theta_o != 0),
        "p_r": p_r,
        "original_in_repeat_ci": bool(abs(theta_o - theta_r) <= zl * se_r),
        "ci_r_low": theta_r - zl * se_r,
        "ci_r_high": theta_r + zl * se_r,
        "repeat_in_prediction_interval": bool(pi_low <= theta_r <= pi_high),
        "pi_low": pi_low,
        "pi_high": pi_high,
        "tost_equivalent": equivalence.equivalent,
        "tost_p": equivalence.p,
        "pooled_significant": bool(pooled_p < alpha),
        "pooled_estimate": pooled,
        "pooled_p": pooled_p,
        "sceptical_p": sceptical,
        "sceptical_success": bool(sceptical < alpha / 2),
        "relative_effect_size": theta_r / theta_o if theta_o != 0 else float("nan"),
        "small_telescopes": bool(telescopes_p < alpha),
        "d33": sign * small,
        "small_telescopes_p": telescopes_p,
    }


def replication_success(
    assessment: Assessment,
    *,
    quality_criterion: str,
    margin: float,
    system: str | None = None,
    baseline: str | None = None,
    null: float | None = None,
    alpha: float = 0.05,
    level: float = 0.95,
    standard_errors: dict | None = None,
) -> pd.DataFrame:
    """Replication success of each repeat against the original by the criteria of the module
    docstring: one row per (system, repeat) and one per system for the repeats pooled
    (random effects, REML, with the Knapp–Hartung standard error; ``experiment`` is
    ``"pooled repeats"``).  ``margin`` (for TOST) is in the criterion's scale units.  The
    effect is the difference from ``baseline`` (a system) or from ``null`` (default: the
    middle of the scale); ``effect_of`` says which.  Rows without standard errors for both
    sides get no verdicts and a ``note``.  Columns: :data:`REPLICATION_COLUMNS`.

    Parameters
    ----------
    assessment : Assessment
        The assessment of the study (:func:`qra_widgets.assess`), with an original and repeats.
    quality_criterion : str
        The criterion whose system values are compared.
    margin : float
        The equivalence margin of the TOST criterion, in the criterion's scale units.
    system : str, optional
        Only this system; default: each system.
    baseline : str, optional
        The system whose value each effect is measured from; default: ``null``.
    null : float, optional
        The value an effect is measured from without a baseline; default: the scale's middle.
    alpha : float, default 0.05
        The significance level of the tests (and of the sceptical p-value's golden level).
    level : float, default 0.95
        The coverage of the confidence and prediction intervals.
    standard_errors : dict, optional
        ``(quality_criterion, system, experiment)`` -> a published standard error.

    Returns
    -------
    pandas.DataFrame
        One row per (system, repeat) and one per system for the pooled repeats; columns
        :data:`REPLICATION_COLUMNS`.
    """
    import warnings

    import pandas as pd

    study = assessment.study
    criterion = study.quality_criterion(quality_criterion, "quality_criterion")
    original = _original_id(study)
    if original is None:
        raise QRAInputError("experiments: replication success needs an experiment whose role is 'original'")
    if not (isinstance(margin, (int, float)) and not isinstance(margin, bool) and math.isfinite(margin) and margin > 0):
        raise QRAInputError(
            f"margin: must be a positive number in the scale units of {quality_criterion!r}, got {margin!r}"
        )
    if baseline is not None and baseline not in study.systems:
        raise QRAInputError(f"baseline: {baseline!r} is not one of the study's systems {study.systems}")
    if baseline is not None and null is not None:
        raise QRAInputError("replication_success: give a baseline system or a null value, not both")
    if baseline is None and null is None:
        if criterion.scale_max is None:
            raise QRAInputError(
                f"null: {quality_criterion!r} has no scale maximum, so give null= (the value of no effect) "
                "or baseline= (a system)"
            )
        null = (criterion.scale_min + criterion.scale_max) / 2
    if system is not None and system not in study.systems:
        raise QRAInputError(f"system: {system!r} is not one of the study's systems {study.systems}")
    effect_of = f"difference from {baseline}" if baseline is not None else f"difference from {null:g}"
    ses = _standard_errors(study, quality_criterion, standard_errors)
    nan = float("nan")

    def effect(name, experiment):
        value = study.scores.get((quality_criterion, name, experiment))
        se = ses.get((name, experiment), (nan,))[0]
        if value is None:
            return None, nan
        if baseline is None:
            return value - null, se
        base = study.scores.get((quality_criterion, baseline, experiment))
        if base is None:
            return None, nan
        return value - base, math.hypot(se, ses.get((baseline, experiment), (nan,))[0])

    repeats = [e.id for e in study.experiments if e.id != original]
    rows = []
    for name in [system] if system is not None else [s for s in study.systems if s != baseline]:
        theta_o, se_o = effect(name, original)
        if theta_o is None:
            continue
        pooled_in = []
        for experiment in repeats:
            theta_r, se_r = effect(name, experiment)
            if theta_r is None:
                continue
            row = {
                "quality_criterion": quality_criterion,
                "system": name,
                "comparison": f"{original} vs {experiment}",
                "experiment": experiment,
                "effect_of": effect_of,
                "theta_o": theta_o,
                "se_o": se_o,
                "theta_r": theta_r,
                "se_r": se_r,
                "k_repeats": 1,
                "margin": float(margin),
                "note": "",
            }
            if math.isfinite(se_r) and se_r > 0:
                pooled_in.append((theta_r, se_r))
            rows.append(row)
        if len(pooled_in) >= 2:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pooled = random_effects([t for t, _ in pooled_in], [s for _, s in pooled_in])
            rows.append(
                {
                    "quality_criterion": quality_criterion,
                    "system": name,
                    "comparison": f"{original} vs pooled repeats",
                    "experiment": "pooled repeats",
                    "effect_of": effect_of,
                    "theta_o": theta_o,
                    "se_o": se_o,
                    "theta_r": pooled.estimate,
                    "se_r": pooled.se,
                    "k_repeats": pooled.k,
                    "margin": float(margin),
                    "note": f"repeats pooled by {pooled.estimator}, Knapp–Hartung standard error",
                }
            )
    for row in rows:
        if math.isfinite(row["se_o"]) and row["se_o"] > 0 and math.isfinite(row["se_r"]) and row["se_r"] > 0:
            row.update(
                _verdicts(
                    row["theta_o"],
                    row["se_o"],
                    row["theta_r"],
                    row["se_r"],
                    margin=float(margin),
                    alpha=alpha,
                    level=level,
                )
            )
        else:
            missing = "original" if not (math.isfinite(row["se_o"]) and row["se_o"] > 0) else "repeat"
            row["note"] = f"no verdict: no standard error for the {missing} (no item-level ratings, none given)"
    frame = pd.DataFrame(rows, columns=REPLICATION_COLUMNS)
    for column in (
        "same_direction_significant",
        "original_in_repeat_ci",
        "repeat_in_prediction_interval",
        "tost_equivalent",
        "pooled_significant",
        "sceptical_success",
        "small_telescopes",
    ):
        frame[column] = frame[column].astype("boolean")
    frame["k_repeats"] = frame["k_repeats"].astype("Int64")
    frame.attrs.update(
        margin=float(margin), alpha=alpha, level=level, baseline=baseline, null=null, effect_of=effect_of
    )
    return frame


def success_matrix(frame: pd.DataFrame) -> pd.DataFrame:
    """Criterion × comparison: True where the repeat succeeds by that criterion (``sceptical_p``:
    below ``alpha/2``; ``small_telescopes``: *not* significantly smaller than d33%), False where
    it fails, ``<NA>`` without a verdict.  Columns are ``"system · comparison"``."""
    import pandas as pd

    columns = {}
    for row in frame.to_dict("records"):
        cells = []
        for criterion in CRITERIA:
            key = "sceptical_success" if criterion == "sceptical_p" else criterion
            value = row[key]
            if value is pd.NA or value is None:
                cells.append(pd.NA)
            else:
                cells.append(bool(not value) if criterion == "small_telescopes" else bool(value))
        columns[f"{row['system']} · {row['comparison']}"] = cells
    return pd.DataFrame(columns, index=pd.Index(CRITERIA, name="criterion"), dtype="boolean")
