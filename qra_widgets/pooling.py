"""Random-effects pooling of a few experiments' values (the numbers behind :func:`qra_widgets.forest`).

:func:`random_effects` estimates τ² by REML or DerSimonian–Laird, gives the pooled mean with the
Knapp–Hartung (default) or normal interval, the Q-profile intervals of τ² and I², Cochran's Q and
the prediction interval.  Families of reproductions are small (2–5 experiments), where the choice
of interval matters: see docs/coverage.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import QRAInputError, undefined
from .measures._validation import undefined_reason

ESTIMATORS = {"reml": "REML (Viechtbauer 2005)", "dl": "DerSimonian–Laird (1986)"}
CI_METHODS = {"hksj": "Knapp–Hartung / Sidik–Jonkman (t, k − 1 df)", "z": "normal (z)"}
# ----------------------------------------------------------------------------- pooling


@dataclass(frozen=True)
class Pooled:
    """A random-effects meta-analysis of ``k`` values (see :func:`random_effects`).

    ``se`` is the standard error the interval uses (Knapp–Hartung's rescaled one for
    ``ci_method="hksj"``), ``se_model`` the model's ``(Σ w_i)^(-1/2)``."""

    estimate: float
    se: float
    ci_low: float
    ci_high: float
    pi_low: float
    pi_high: float
    tau2: float
    i2: float
    q: float
    q_df: int
    q_p: float
    k: int
    estimator: str
    note: str = ""
    ci_method: str = "hksj"
    se_model: float = float("nan")
    tau2_low: float = float("nan")
    tau2_high: float = float("nan")
    i2_low: float = float("nan")
    i2_high: float = float("nan")


def _tau2_dl(y: np.ndarray, v: np.ndarray) -> tuple[float, float]:
    """DerSimonian–Laird τ² (floored at 0) and Cochran's Q."""
    w = 1.0 / v
    mean = np.sum(w * y) / np.sum(w)
    q = float(np.sum(w * (y - mean) ** 2))
    c = float(np.sum(w) - np.sum(w**2) / np.sum(w))
    return max(0.0, (q - (len(y) - 1)) / c), q


def _restricted_loglik(tau2: np.ndarray, y: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The restricted log-likelihood of τ² (up to a constant), for an array of τ² values."""
    w = 1.0 / (v[None, :] + np.asarray(tau2, dtype=float)[:, None])
    mean = (w * y).sum(1) / w.sum(1)
    return -0.5 * (np.log(1.0 / w).sum(1) + np.log(w.sum(1)) + (w * (y - mean[:, None]) ** 2).sum(1))


def _reml_score(tau2: float, y: np.ndarray, v: np.ndarray) -> float:
    """d/dτ² of the restricted log-likelihood: ½ (Σ w_i² (y_i − μ̂)² − Σ w_i + Σ w_i² / Σ w_i)."""
    w = 1.0 / (v + tau2)
    mean = w.dot(y) / w.sum()
    return 0.5 * float((w**2).dot((y - mean) ** 2) - w.sum() + w.dot(w) / w.sum())


def _tau2_reml(y: np.ndarray, v: np.ndarray) -> float:
    """REML τ² (Viechtbauer 2005): the maximiser of the restricted likelihood on τ² ≥ 0.

    The score's roots are bracketed on a geometric grid from 0 to far above any plausible τ²
    and refined by Brent's method; the candidates (those roots where the score turns from
    positive to negative, and 0) are compared by their likelihood.  So τ² is 0 exactly when
    the likelihood is largest there -- a fixed-point iteration started at the DerSimonian–Laird
    value can stall near 0 instead."""
    from scipy import optimize

    scale = float(np.var(y) * len(y) + np.max(v))
    grid = np.concatenate([[0.0], scale * np.geomspace(1e-10, 100.0, 240)])
    w = 1.0 / (v[None, :] + grid[:, None])
    mean = (w * y).sum(1, keepdims=True) / w.sum(1, keepdims=True)
    scores = (w**2 * (y - mean) ** 2).sum(1) - w.sum(1) + (w**2).sum(1) / w.sum(1)  # 2 × the score, on the grid
    candidates = [0.0]
    for i in np.flatnonzero((scores[:-1] > 0) & (scores[1:] <= 0)):
        candidates.append(
            float(optimize.brentq(_reml_score, grid[i], grid[i + 1], args=(y, v), xtol=1e-15, rtol=1e-15))
        )
    values = _restricted_loglik(np.array(candidates), y, v)
    return candidates[int(np.argmax(values))]


def _generalised_q(tau2: float, y: np.ndarray, v: np.ndarray) -> float:
    w = 1.0 / (v + tau2)
    mean = w.dot(y) / w.sum()
    return float(w.dot((y - mean) ** 2))


def q_profile(y, v, *, ci: float = 0.95) -> tuple[float, float]:
    """The Q-profile interval of τ² (Viechtbauer 2007): the τ² values at which the generalised
    ``Q(τ²) = Σ (y_i − μ̂(τ²))² / (v_i + τ²)`` equals the χ²(k − 1) quantiles ``1 − α/2``
    (lower bound) and ``α/2`` (upper bound); a bound is 0 when ``Q(0)`` is already below its
    quantile (as metafor's ``confint``)."""
    from scipy import optimize, special

    y, v = np.asarray(y, dtype=float), np.asarray(v, dtype=float)
    df = len(y) - 1
    bounds = []
    for upper_tail in (0.5 - ci / 2, 0.5 + ci / 2):
        target = float(special.chdtri(df, upper_tail))  # the χ²(k − 1) quantile with this upper tail
        if _generalised_q(0.0, y, v) <= target:
            bounds.append(0.0)
            continue
        high = float(np.var(y) * len(y) + np.max(v))
        while _generalised_q(high, y, v) > target:
            high *= 10
        bounds.append(
            float(
                optimize.brentq(
                    lambda t, target=target: _generalised_q(t, y, v) - target, 0.0, high, xtol=1e-15, rtol=1e-15
                )
            )
        )
    return bounds[0], bounds[1]


def typical_variance(v) -> float:
    """The "typical" within-experiment variance ``s² = (k − 1) Σ w / ((Σ w)² − Σ w²)``, ``w = 1/v``
    (Higgins & Thompson 2002, eq. 9), which metafor uses for ``I² = τ² / (τ² + s²)``."""
    w = 1.0 / np.asarray(v, dtype=float)
    return float((len(w) - 1) * w.sum() / (w.sum() ** 2 - (w**2).sum()))


def _method(value: str, choices: dict, name: str) -> str:
    key = value.lower() if isinstance(value, str) else value
    if key not in choices:
        raise QRAInputError(f"{name}: must be one of {sorted(choices)} (any case), got {value!r}")
    return key


def random_effects(
    values, standard_errors, *, method: str = "reml", ci: float = 0.95, ci_method: str = "hksj"
) -> Pooled:
    """Random-effects pooling of ``values`` with standard errors ``standard_errors``.

    Model: ``y_i = μ + u_i + e_i``, ``u_i ~ N(0, τ²)``, ``e_i ~ N(0, se_i²)``.  τ² is estimated
    by ``method`` ``"reml"`` (restricted maximum likelihood, Viechtbauer 2005; 0 when the
    likelihood is largest there) or ``"dl"`` (DerSimonian & Laird 1986, floored at 0), in any
    case; then ``w_i = 1/(se_i² + τ²)``, ``μ̂ = Σ w_i y_i / Σ w_i`` and
    ``SE(μ̂) = (Σ w_i)^(-1/2)``.

    The ``ci`` interval of μ is, with ``ci_method="hksj"`` (the default), Knapp & Hartung's
    (2003) / Sidik & Jonkman's (2002): ``μ̂ ± t_{k−1} SE_KH`` with
    ``SE_KH² = Σ w_i (y_i − μ̂)² / ((k − 1) Σ w_i)`` (metafor's ``test="knha"``, not truncated);
    with ``"z"``, ``μ̂ ± z SE(μ̂)``, which is too narrow for few experiments (IntHout, Ioannidis &
    Borm 2014).  τ² gets the Q-profile interval (:func:`q_profile`) and I² the interval that
    gives, ``I² = τ² / (τ² + s²)`` with :func:`typical_variance` ``s²`` (as metafor's ``confint``).

    Heterogeneity: Cochran's ``Q = Σ (y_i − ȳ_FE)² / se_i²`` with its χ²(k − 1) p-value and
    ``I² = max(0, (Q − (k − 1)) / Q)`` (Higgins & Thompson 2002; for REML this differs from
    metafor's printed I², which is ``τ̂² / (τ̂² + s²)``).  The prediction interval for a new
    experiment's true value is ``μ̂ ± t_{k−2} sqrt(τ² + SE(μ̂)²)`` (Higgins, Thompson &
    Spiegelhalter 2009, eq. 12); it is nan, with the reason in ``note``, when k < 3.

    >>> p = random_effects([0.1, 0.3, 0.35, 0.6], [0.1, 0.1, 0.15, 0.2], method="DL")
    >>> round(p.estimate, 4), round(p.tau2, 4), round(p.i2, 4), p.k, p.estimator
    (0.2914, 0.016, 0.4974, 4, 'DerSimonian–Laird (1986)')
    >>> round(p.ci_low, 4), round(p.ci_high, 4), p.ci_method
    (-0.0078, 0.5906, 'hksj')
    """
    from scipy import special

    method = _method(method, ESTIMATORS, "method")
    ci_method = _method(ci_method, CI_METHODS, "ci_method")
    if not 0 < ci < 1:
        raise QRAInputError(f"ci: must be between 0 and 1, got {ci!r}")
    y = np.asarray(values, dtype=float)
    se = np.asarray(standard_errors, dtype=float)
    if y.ndim != 1 or y.shape != se.shape:
        raise QRAInputError(
            f"values and standard_errors: need two lists of the same length, got {y.shape} and {se.shape}"
        )
    if not (np.isfinite(y).all() and np.isfinite(se).all()):
        raise QRAInputError("values and standard_errors: every value and standard error must be a finite number")
    if (se <= 0).any():
        raise QRAInputError(
            f"standard_errors: must be > 0, got {se[se <= 0][0]:g} at position {int(np.argmax(se <= 0))}"
        )
    k = len(y)
    name = ESTIMATORS[method]
    nan = float("nan")
    if k < 2:
        what = "experiment with a standard error" if k == 1 else "experiments with a standard error"
        reason = undefined_reason("random-effects pooling", count=(k, 2, what))
        value = undefined(reason)
        return Pooled(value, nan, nan, nan, nan, nan, nan, nan, nan, max(k - 1, 0), nan, k, name, reason, ci_method)
    v = se**2
    tau2, q = _tau2_dl(y, v)
    if method == "reml":
        tau2 = _tau2_reml(y, v)
    w = 1.0 / (v + tau2)
    estimate = float(np.sum(w * y) / np.sum(w))
    model_se = float(1.0 / math.sqrt(np.sum(w)))
    df = k - 1
    if ci_method == "hksj":
        pooled_se = math.sqrt(float(np.sum(w * (y - estimate) ** 2)) / (df * float(np.sum(w))))
        crit = float(special.stdtrit(df, 0.5 + ci / 2))
    else:
        pooled_se, crit = model_se, float(special.ndtri(0.5 + ci / 2))
    i2 = max(0.0, (q - df) / q) if q > 0 else 0.0
    q_p = float(special.chdtrc(df, q))
    tau2_low, tau2_high = q_profile(y, v, ci=ci)
    s2 = typical_variance(v)
    note = ""
    if k < 3:
        note = undefined_reason("the prediction interval", count=(k, 3, "experiments (t has k − 2 degrees of freedom)"))
        pi_low = pi_high = undefined(note)
    else:
        half = float(special.stdtrit(k - 2, 0.5 + ci / 2)) * math.sqrt(tau2 + model_se**2)
        pi_low, pi_high = estimate - half, estimate + half
    return Pooled(
        estimate,
        pooled_se,
        estimate - crit * pooled_se,
        estimate + crit * pooled_se,
        pi_low,
        pi_high,
        tau2,
        i2,
        q,
        df,
        q_p,
        k,
        name,
        note,
        ci_method,
        model_se,
        tau2_low,
        tau2_high,
        tau2_low / (tau2_low + s2),
        tau2_high / (tau2_high + s2),
    )
