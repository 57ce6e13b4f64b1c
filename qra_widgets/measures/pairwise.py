"""System values and tests from pairwise and best-worst judgements.

A *pairwise* judgement shows two systems and records which one a rater preferred, or a
tie.  Each function takes three parallel sequences: ``system_a``, ``system_b`` and
``outcome`` (``"a"``, ``"b"`` or ``"tie"``).  A *best-worst* judgement shows a tuple of
systems and records the best and the worst of them.

==========================  =====================================================  =========
function                    value of a system                                      range
==========================  =====================================================  =========
:func:`preference_scores`   100 x mean over its comparisons of +1 (chosen),        -100..100
                            -1 (the other chosen), 0 (tie)
:func:`win_rates`           100 x wins / comparisons; a tie is half a win          0..100
                            (``ties="half"``) or left out (``ties="exclude"``)
:func:`bradley_terry`       100 x mean over the other systems of the fitted        0..100
                            probability of beating it (Bradley & Terry 1952)
:func:`best_worst_scores`   100 x (times best - times worst) / times shown         -100..100
                            (Louviere, Flynn & Marley 2015, the counting score)
==========================  =====================================================  =========

:func:`sign_tests` gives, per system pair, a two-sided binomial (sign) test of "each is
preferred equally often" on the judgements that were not ties, and Holm's (1979)
step-down adjusted p-values (:func:`holm`) beside the raw ones.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import QRAInputError

OUTCOMES = ("a", "b", "tie")
TIE_RULES = ("half", "exclude")


def _judgements(system_a, system_b, outcome) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.asarray(system_a, dtype=object)
    b = np.asarray(system_b, dtype=object)
    o = np.asarray(outcome, dtype=object)
    if not (a.ndim == b.ndim == o.ndim == 1) or not (len(a) == len(b) == len(o)):
        raise QRAInputError("system_a, system_b and outcome: expected three 1-D sequences of the same length")
    bad = ~np.isin(o, np.array(OUTCOMES, dtype=object))
    if bad.any():
        i = int(np.argmax(bad))
        raise QRAInputError(f"outcome: value {o[i]!r} at position {i} is not one of {', '.join(OUTCOMES)}")
    same = a == b
    if same.any():
        i = int(np.argmax(same))
        raise QRAInputError(f"system_a and system_b: position {i} compares {a[i]!r} with itself")
    return a, b, o


def _points(
    system_a, system_b, outcome, *, win: float, tie: float, loss: float, drop_ties: bool = False
) -> dict[str, float]:
    a, b, o = _judgements(system_a, system_b, outcome)
    if drop_ties:
        keep = o != "tie"
        a, b, o = a[keep], b[keep], o[keep]
    points_a = np.where(o == "a", win, np.where(o == "b", loss, tie))
    points_b = np.where(o == "b", win, np.where(o == "a", loss, tie))
    systems = np.concatenate([a, b])
    points = np.concatenate([points_a, points_b])
    result = {}
    for system in dict.fromkeys(systems.tolist()):
        mine = points[systems == system]
        result[str(system)] = float(100.0 * mine.mean())
    return result


def preference_scores(system_a: Sequence, system_b: Sequence, outcome: Sequence) -> dict[str, float]:
    """Each system's preference score: 100 x the mean, over the judgements it took part in,
    of +1 when it was chosen, -1 when the other system was, 0 for a tie.

    This is the -100..100 "best-worst scale" that Hosking & Lapata (2021) and Puduppully &
    Lapata (2021) report for their pairwise studies (with two systems shown, best-worst
    scaling and pairwise preference coincide).

    >>> preference_scores(["x", "x", "y"], ["y", "z", "z"], ["a", "tie", "a"])
    {'x': 50.0, 'y': 0.0, 'z': -50.0}
    """
    return _points(system_a, system_b, outcome, win=1.0, tie=0.0, loss=-1.0)


def win_rates(system_a: Sequence, system_b: Sequence, outcome: Sequence, *, ties: str = "half") -> dict[str, float]:
    """Each system's win rate, 100 x wins / comparisons.

    ``ties="half"`` counts a tie as half a win for both systems; ``ties="exclude"`` leaves
    tied judgements out (a system with only ties then has no win rate and is absent).

    >>> win_rates(["x", "x", "y"], ["y", "z", "z"], ["a", "tie", "a"])
    {'x': 75.0, 'y': 50.0, 'z': 25.0}
    >>> win_rates(["x", "x", "y"], ["y", "z", "z"], ["a", "tie", "a"], ties="exclude")
    {'x': 100.0, 'y': 50.0, 'z': 0.0}
    """
    if ties not in TIE_RULES:
        raise QRAInputError(f"ties: must be one of {', '.join(TIE_RULES)}, got {ties!r}")
    return _points(system_a, system_b, outcome, win=1.0, tie=0.5, loss=0.0, drop_ties=ties == "exclude")


def bradley_terry(system_a: Sequence, system_b: Sequence, outcome: Sequence, *, alpha: float = 0.0) -> dict[str, float]:
    """Each system's Bradley-Terry value: 100 x the mean, over the other systems, of the
    fitted probability that it beats that system.

    The Bradley & Terry (1952) model P(i beats j) = exp(t_i) / (exp(t_i) + exp(t_j)) is fitted
    by maximum likelihood with ``choix.ilsr_pairwise`` (Maystre & Grossglauser 2015); a tie
    counts as half a win each way (both orders are added).  ``alpha`` > 0 regularises the fit,
    which a system that always wins or always loses needs (its maximum-likelihood strength
    is infinite: the value is then nan with an :class:`~qra_widgets.UndefinedMeasureWarning`).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     bradley_terry(["x", "x"], ["y", "y"], ["a", "a"])
    {'x': nan, 'y': nan}
    >>> str(caught[0].message)
    'Bradley-Terry is undefined: only 0 of 2 systems both won and lost (set alpha > 0 to regularise)'
    >>> {s: round(v, 1) for s, v in bradley_terry(["x", "x"], ["y", "y"], ["a", "a"], alpha=0.5).items()}
    {'x': 75.0, 'y': 25.0}

    Cross-check against a direct maximisation of the log-likelihood with scipy:

    >>> import numpy as np
    >>> from scipy.optimize import minimize
    >>> a = ["x"] * 10 + ["y"] * 10 + ["x"] * 10
    >>> b = ["y"] * 10 + ["z"] * 10 + ["z"] * 10
    >>> o = ["a"] * 7 + ["b"] * 3 + ["a"] * 6 + ["b"] * 4 + ["a"] * 8 + ["b"] * 2
    >>> values = bradley_terry(a, b, o)
    >>> wins = {("x", "y"): 7, ("y", "x"): 3, ("y", "z"): 6, ("z", "y"): 4, ("x", "z"): 8, ("z", "x"): 2}
    >>> index = {"x": 0, "y": 1, "z": 2}
    >>> def nll(t):
    ...     return -sum(n * (t[index[i]] - np.logaddexp(t[index[i]], t[index[j]])) for (i, j), n in wins.items())
    >>> t = minimize(nll, np.zeros(3), method="BFGS", options={"gtol": 1e-10}).x
    >>> p = lambda i, j: 1 / (1 + np.exp(t[index[j]] - t[index[i]]))
    >>> direct = {s: 100 * np.mean([p(s, o) for o in index if o != s]) for s in index}
    >>> all(abs(values[s] - direct[s]) < 1e-5 for s in index)
    True
    >>> round(values["x"], 2), round(values["z"], 2)
    (75.0, 30.0)
    """
    a, b, o = _judgements(system_a, system_b, outcome)
    systems = list(dict.fromkeys(np.concatenate([a, b]).tolist()))
    if len(systems) < 2:
        raise QRAInputError("bradley_terry: needs judgements of at least two systems")
    index = {s: i for i, s in enumerate(systems)}
    i, j = np.array([index[x] for x in a], dtype=np.int64), np.array([index[y] for y in b], dtype=np.int64)
    wins = np.zeros((len(systems), len(systems)))
    np.add.at(wins, (i, j), (o != "b").astype(float))  # a won, or a tie: a "beat" b once
    np.add.at(wins, (j, i), (o != "a").astype(float))  # b won, or a tie
    found = bradley_terry_batch(wins[None], alpha=alpha)
    values = found.values[0]
    if found.reasons[0]:
        from ..errors import undefined

        value = undefined(str(found.reasons[0]))
        return {s: value for s in systems}
    return {s: float(values[index[s]]) for s in systems}


def bradley_terry_batch(wins: np.ndarray, *, alpha: float = 0.0):
    r"""Bradley-Terry values of a (B, S, S) stack of win counts: the one implementation behind
    :func:`bradley_terry` (one matrix) and the bootstrap (one matrix per replicate of the judgements).

    ``wins[b, i, j]`` is how often system i beat system j in replicate b (a tie counts once each way,
    as in :func:`bradley_terry`).  Each replicate is fitted by maximum likelihood with
    ``choix.ilsr_pairwise_dense`` (Maystre & Grossglauser 2015; to a change of the parameters
    below 1e-12); a stack of several (``alpha`` = 0) is fitted all at once by :func:`newton_fit`
    from the fit of the stack's summed counts, the same maximum with the same stopping rule
    (choix fits the replicates Newton's method leaves, each from that pooled fit), and a system's value is
    :math:`100 \cdot \frac{1}{S-1}\sum_{j \ne i} P(i \text{ beats } j)`.  A replicate in which
    some system never won or never lost, or in which some group of systems never lost to the
    others (:func:`strongly_connected`), has no maximum-likelihood fit (with ``alpha`` = 0): its
    values are nan, with the reason.

    Returns a :class:`~qra_widgets.measures._validation.Batch` whose ``values`` are (B, S).

    >>> wins = np.array([[[0, 7, 8], [3, 0, 6], [2, 4, 0]]], dtype=float)  # x beat y 7 times, ...
    >>> np.round(bradley_terry_batch(wins).values, 2).tolist()
    [[75.0, 45.0, 30.0]]
    """
    import choix

    from ._validation import Batch, undefined_reasons

    wins = np.asarray(wins, dtype=float)
    if wins.ndim != 3 or wins.shape[1] != wins.shape[2] or wins.shape[1] < 2:
        raise QRAInputError(f"wins: expected a (B, S, S) stack with S >= 2, got shape {wins.shape}")
    size, n = wins.shape[0], wins.shape[1]
    won, lost = wins.sum(axis=2) > 0, wins.sum(axis=1) > 0
    both = (won & lost).sum(axis=1)
    what = f"of {n} systems both won and lost (set alpha > 0 to regularise)"
    reasons = (
        undefined_reasons("Bradley-Terry", size, count=(both, n, what))
        if alpha == 0.0
        else np.full(size, "", dtype=object)
    )
    if alpha == 0.0 and (reasons == "").any():  # every system won and lost, yet a group may never lose to the rest
        checked = np.flatnonzero(reasons == "")
        split = checked[~strongly_connected(wins[checked] > 0)]
        reasons[split] = (
            "Bradley-Terry is undefined: some group of systems never lost to the others (the comparisons "
            "are not strongly connected, so the likelihood has no maximum; set alpha > 0 to regularise)"
        )
    values = np.full((size, n), np.nan)
    fitted = np.flatnonzero(reasons == "")
    start = None
    if len(fitted) > 1:  # replicates of one data set: each fit starts from the fit of their pooled counts
        pooled = wins[fitted].sum(axis=0)
        if alpha > 0 or ((pooled.sum(axis=1) > 0) & (pooled.sum(axis=0) > 0)).all():
            start = choix.ilsr_pairwise_dense(pooled, alpha=alpha, max_iter=1000, tol=1e-12)
    starts = [start] * len(fitted)
    if start is not None and alpha == 0.0:  # Newton's method on every replicate at once, from the pooled fit
        strength, converged = newton_fit(wins[fitted], start)
        p = 1.0 / (1.0 + np.exp(strength[:, None, :] - strength[:, :, None]))
        p[:, np.arange(n), np.arange(n)] = 0.0
        values[fitted[converged]] = 100.0 * p[converged].sum(axis=2) / (n - 1)
        fitted = fitted[~converged]  # the rest (no unique maximum, or not converged): choix, as before
        starts = [start] * len(fitted)
    for k, initial in zip(fitted, starts):
        strength = choix.ilsr_pairwise_dense(wins[k], alpha=alpha, initial_params=initial, max_iter=1000, tol=1e-12)
        p = 1.0 / (1.0 + np.exp(strength[None, :] - strength[:, None]))  # p[i, j] = P(i beats j)
        np.fill_diagonal(p, np.nan)
        values[k] = 100.0 * np.nanmean(p, axis=1)
    found = Batch(np.zeros(size), reasons)
    found.values = np.where((reasons != "")[:, None], np.nan, values)
    return found


def strongly_connected(beat: np.ndarray) -> np.ndarray:
    """Whether each of a stack of directed graphs (B, S, S) (``beat[b, i, j]``: i beat j at least
    once) is strongly connected: every system reaches every other along wins.  That is when the
    Bradley-Terry likelihood has a finite maximum, and one up to a common shift (Zermelo 1929;
    Ford 1957; Hunter 2004, assumption 1).

    >>> strongly_connected(np.array([[[0, 1, 0], [0, 0, 1], [1, 0, 0]], [[0, 1, 1], [1, 0, 0], [0, 0, 0]]]) > 0).tolist()
    [True, False]
    """
    edges = beat.astype(float)
    found = []
    for graph in (edges, np.swapaxes(edges, 1, 2)):  # reached from system 0, and reaching it
        reach = np.zeros(beat.shape[:2], dtype=bool)
        reach[:, 0] = True
        while True:
            grown = reach | (np.einsum("bi,bij->bj", reach.astype(float), graph) > 0)
            if (grown == reach).all():
                break
            reach = grown
        found.append(reach.all(axis=1))
    return found[0] & found[1]


def newton_fit(
    wins: np.ndarray, start: np.ndarray, *, tol: float = 1e-12, max_iter: int = 30
) -> tuple[np.ndarray, np.ndarray]:
    r"""Maximum-likelihood Bradley-Terry strengths (B, S) of a stack of win counts (B, S, S), all
    fitted at once by Newton's method from ``start`` (S,), and which replicates converged (B,).

    The log-likelihood :math:`\ell(t) = \sum_{ij} w_{ij} \log p_{ij}`, :math:`p_{ij} = 1 / (1 +
    e^{t_j - t_i})` (Bradley & Terry 1952), has gradient :math:`g_i = \sum_j (w_{ij} - n_{ij}
    p_{ij})` (:math:`n_{ij} = w_{ij} + w_{ji}`), and minus its Hessian is the Laplacian of the
    weights :math:`n_{ij} p_{ij} p_{ji}`, whose null space (a common shift) is removed by adding
    1/S; the log-likelihood is concave in t (Hunter 2004, Ann. Statist. 32(1)).  The fixed point is
    choix's (``ilsr_pairwise_dense``, Maystre & Grossglauser 2015: the same maximum), and the
    stopping rule is choix's: the L1 norm of the change of the centred strengths at most ``tol``
    x S.  Only replicates whose wins are :func:`strongly_connected` are iterated (elsewhere the
    likelihood has no unique maximum: a system never won or never lost, or the systems split
    into groups none of which lost to another); ``converged`` is False for those, for any that
    does not converge in ``max_iter`` steps or gives non-finite steps, and the caller fits them
    some other way.

    >>> wins = np.array([[[0, 7, 8], [3, 0, 6], [2, 4, 0]], [[0, 6, 8], [4, 0, 6], [2, 4, 0]]], dtype=float)
    >>> strength, converged = newton_fit(wins, np.zeros(3))
    >>> converged.tolist(), np.round(strength[0] - strength[0, 2], 4).tolist()
    ([True, True], [1.332, 0.4424, 0.0])
    >>> import choix  # the same maximum as choix's fit
    >>> bool(np.abs(strength[1] - choix.ilsr_pairwise_dense(wins[1], max_iter=1000, tol=1e-12)).max() < 1e-9)
    True
    """
    n_systems = wins.shape[1]
    games = wins + np.swapaxes(wins, 1, 2)
    strength = np.broadcast_to(start, wins.shape[:2]).copy()
    strength -= strength.mean(axis=1, keepdims=True)
    converged = np.zeros(len(wins), dtype=bool)
    active = np.flatnonzero(np.isfinite(strength).all(axis=1) & strongly_connected(wins > 0))
    won = wins.sum(axis=2)
    diagonal = np.arange(n_systems)
    for _ in range(max_iter):
        if not len(active):
            break
        t, n = strength[active], games[active]
        p = np.exp(t[:, None, :] - t[:, :, None])
        p += 1.0
        np.reciprocal(p, out=p)  # p[b, i, j] = P(i beats j)
        expected = n * p
        gradient = won[active] - expected.sum(axis=2)
        expected *= p
        np.subtract(n * p, expected, out=expected)  # n_ij p_ij p_ji, as p_ji = 1 - p_ij
        laplacian = np.negative(expected, out=expected)
        laplacian[:, diagonal, diagonal] -= laplacian.sum(axis=2)
        laplacian += 1.0 / n_systems
        with np.errstate(all="ignore"):
            try:
                step = np.linalg.solve(laplacian, gradient[:, :, None])[:, :, 0]
            except np.linalg.LinAlgError:  # a singular system somewhere: leave those replicates to the caller
                break
        moved = t + step
        moved -= moved.mean(axis=1, keepdims=True)
        finite = np.isfinite(moved).all(axis=1)
        done = finite & (np.abs(moved - t).sum(axis=1) <= tol * n_systems)
        strength[active[finite]] = moved[finite]
        converged[active[done]] = True
        active = active[finite & ~done]
    return strength, converged


def best_worst_scores(shown: Sequence[Sequence], best: Sequence, worst: Sequence) -> dict[str, float]:
    """Each system's best-worst score: 100 x (times chosen best - times chosen worst) / times shown.

    The counting score of best-worst scaling (Louviere, Flynn & Marley 2015, ch. 1);
    ``shown`` holds the tuple of systems of each judgement, ``best`` and ``worst`` the
    chosen systems (each must be in its tuple).

    >>> best_worst_scores([["x", "y", "z"], ["x", "y", "w"]], ["x", "y"], ["z", "x"])
    {'x': 0.0, 'y': 50.0, 'z': -100.0, 'w': 0.0}
    """
    if not (len(shown) == len(best) == len(worst)):
        raise QRAInputError("shown, best and worst: expected sequences of the same length")
    count: dict[str, list[int]] = {}
    for i, (tuple_, b, w) in enumerate(zip(shown, best, worst)):
        systems = [str(s) for s in tuple_]
        if str(b) not in systems or str(w) not in systems:
            raise QRAInputError(f"best/worst at position {i}: {b!r} / {w!r} is not among the systems shown {systems}")
        for s in systems:
            entry = count.setdefault(s, [0, 0, 0])
            entry[0] += 1
        count[str(b)][1] += 1
        count[str(w)][2] += 1
    return {s: 100.0 * (c[1] - c[2]) / c[0] for s, c in count.items()}


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values (family-wise error), in the input order.

    The k-th smallest of m p-values becomes max over j <= k of min(1, (m - j + 1) p_(j)).
    NaN p-values are left as they are and do not count in m.

    >>> holm([0.01, 0.04, 0.03, 0.005]).round(4).tolist()
    [0.03, 0.06, 0.06, 0.02]
    >>> from statsmodels.stats.multitest import multipletests  # the reference implementation
    >>> p = [0.2, 0.001, 0.049, 0.012, 0.5, 0.03]
    >>> bool(np.allclose(holm(p), multipletests(p, method="holm")[1]))
    True
    """
    p = np.asarray(p_values, dtype=float)
    result = np.full(p.shape, np.nan)
    finite = np.flatnonzero(~np.isnan(p))
    m = len(finite)
    if not m:
        return result
    order = finite[np.argsort(p[finite], kind="stable")]
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    result[order] = adjusted
    return result


def sign_tests(system_a: Sequence, system_b: Sequence, outcome: Sequence):
    """A two-sided binomial (sign) test per system pair, with Holm-adjusted p-values.

    For each unordered pair {x, y} judged against each other, ``wins_x`` and ``wins_y``
    count the judgements each won (ties are left out, as the sign test does) and ``p`` is
    ``scipy.stats.binomtest(wins_x, wins_x + wins_y, 0.5)``'s two-sided p-value; ``p_holm``
    adjusts the pairs' p-values together (:func:`holm`).  A pair with only ties has p nan.
    Returns one record (a dict) per pair, in the order the pairs first appear; ``pandas.DataFrame(records)``
    makes it a table.

    >>> t = sign_tests(["x"] * 10 + ["y"] * 4, ["y"] * 10 + ["z"] * 4, ["a"] * 9 + ["b"] + ["a", "b", "tie", "tie"])
    >>> [[r["system_x"], r["system_y"], r["wins_x"], r["wins_y"], r["ties"]] for r in t]
    [['x', 'y', 9, 1, 0], ['y', 'z', 1, 1, 2]]
    >>> [round(r["p"], 4) for r in t], [round(r["p_holm"], 4) for r in t]
    ([0.0215, 1.0], [0.043, 1.0])
    """
    from scipy.stats import binomtest

    a, b, o = _judgements(system_a, system_b, outcome)
    pairs: dict[tuple[str, str], list[int]] = {}
    for x, y, result in zip(a.tolist(), b.tolist(), o.tolist()):
        key = (x, y) if str(x) <= str(y) else (y, x)
        entry = pairs.setdefault(key, [0, 0, 0])
        if result == "tie":
            entry[2] += 1
        else:
            winner = x if result == "a" else y
            entry[0 if winner == key[0] else 1] += 1
    rows = []
    for (x, y), (wx, wy, ties) in pairs.items():
        p = binomtest(wx, wx + wy, 0.5).pvalue if wx + wy else float("nan")
        rows.append([str(x), str(y), wx, wy, ties, float(p)])
    adjusted = holm([row[5] for row in rows])
    names = ("system_x", "system_y", "wins_x", "wins_y", "ties", "p")
    return [{**dict(zip(names, row)), "p_holm": float(p_holm)} for row, p_holm in zip(rows, adjusted)]
