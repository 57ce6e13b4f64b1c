"""The documented limits, in one place for every layer (readers, the study model, the engine).

The limits on files (checked by :mod:`qra_widgets.io.reading` before anything is parsed):

========================== ============================================================
:data:`MAX_FILE_BYTES`      20 MiB per file, checked before anything is parsed
:data:`MAX_UNPACKED_BYTES`  100 MiB unpacked from a .xlsx/.zip (the sum its zip directory
                            declares; :mod:`zipfile` refuses to inflate a member past it)
:data:`MAX_PACKING_RATIO`   100: a member that unpacks to over 100 times its packed size
                            (and to more than 1 MiB) is a zip bomb, not a spreadsheet
:data:`MAX_ROWS`            1,048,576 table rows (Excel's own sheet limit)
:data:`MAX_COLUMNS`         1,000 table columns
:data:`MAX_JSON_DEPTH`      64 nested JSON arrays/objects
:data:`MAX_INT_DIGITS`      20 digits in a JSON integer (2**64 has 20)
:data:`MAX_LINE_BYTES`      1 MiB in one CSV line (field included)
========================== ============================================================


The limits on computation (checked by :func:`check_work` before any array is allocated; the
API's ``max_work=`` and the CLI's ``--max-work`` raise :data:`MAX_WORK`, the app cannot):

========================== ============================================================
:data:`MAX_WORK`            500,000,000 work units: bootstrap replicates x (ratings +
                            labels + scores), summed over the planner's designs and runs
                            (at most ~4 GiB of float64 resampling weights)
:data:`MAX_BOOTSTRAP`       100,000 bootstrap replicates
:data:`MAX_SYSTEMS`         100,000 systems in a bootstrap
:data:`MAX_RATINGS`         10,000,000 ratings and labels in a bootstrap
:data:`MAX_PLAN_ITEMS`      100,000 items in one planned design
:data:`MAX_PLAN_RATERS`     50 raters per item in one planned design
:data:`MAX_SEED`            2**63 - 1, the largest seed (seeds are whole numbers >= 0)
========================== ============================================================

Values quoted from a file in a message go through :func:`shown` / :func:`shown_values`
(escaped with ``repr``, cut to :data:`MAX_SHOWN_CHARS` characters, at most
:data:`MAX_SHOWN_VALUES` distinct values), so a message cannot carry a file out.
"""

from __future__ import annotations

import numbers
from typing import Any

from .errors import QRAInputError

MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_UNPACKED_BYTES = 100 * 1024 * 1024
MAX_PACKING_RATIO = 100
MAX_ROWS = 1_048_576
MAX_COLUMNS = 1_000
MAX_JSON_DEPTH = 64
MAX_INT_DIGITS = 20
MAX_LINE_BYTES = 2**20
MAX_WORK = 500_000_000
MAX_BOOTSTRAP = 100_000
MAX_SYSTEMS = 100_000
MAX_RATINGS = 10_000_000
MAX_PLAN_ITEMS = 100_000
MAX_PLAN_RATERS = 50
MAX_SEED = 2**63 - 1
MAX_SHOWN_CHARS = 40
MAX_SHOWN_VALUES = 10


# ----------------------------------------------------------------------------- quoting values in messages


def shown(value: Any, limit: int = MAX_SHOWN_CHARS) -> str:
    """A value from a file as a message quotes it: ``repr`` (so a newline or a control character
    shows as an escape), cut to ``limit`` characters of the value with the full length said.

    >>> shown("Puduppully"), shown("x" * 100), shown("a\\nb")
    ("'Puduppully'", "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' (100 characters)", "'a\\\\nb'")
    """
    if not isinstance(value, str):
        value = str(value)
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}"[:-1] + f"…{repr(value)[0]} ({len(value)} characters)"


def shown_values(values, limit: int = MAX_SHOWN_VALUES) -> str:
    """Distinct values from a file, each :func:`shown`, at most ``limit`` of them with how many more.

    >>> shown_values(["a", "b", "a"]), shown_values(map(str, range(25)))
    ("['a', 'b']", "['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', … 15 more]")
    """
    distinct = list(dict.fromkeys(str(v) for v in values))
    more = f", … {len(distinct) - limit} more" if len(distinct) > limit else ""
    return "[" + ", ".join(shown(v) for v in distinct[:limit]) + more + "]"


# ----------------------------------------------------------------------------- seeds and work sizes


def _got(value: Any) -> str:
    """A value given to an option, as a message shows it: text quoted and cut, a number cut, else its type."""
    if isinstance(value, str):
        return shown(value, 30)
    if isinstance(value, numbers.Number):
        text = str(value)
        return text if len(text) <= 30 else f"{text[:30]}… ({len(text)} characters)"
    return type(value).__name__


def check_seed(seed: Any, field: str = "seed") -> int | None:
    """A random seed: ``None`` or a whole number from 0 to :data:`MAX_SEED`.

    >>> check_seed(None), check_seed(7)
    (None, 7)
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: seed: must be a whole number from 0 to 9223372036854775807, got -1
    >>> check_seed("x")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: seed: must be a whole number from 0 to 9223372036854775807, got 'x'
    """
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed <= MAX_SEED:
        raise QRAInputError(f"{field}: must be a whole number from 0 to {MAX_SEED}, got {_got(seed)}")
    return int(seed)


def _limit(max_work: Any) -> int:
    if max_work is None:
        return MAX_WORK
    if isinstance(max_work, bool) or not isinstance(max_work, numbers.Integral) or max_work < 1:
        raise QRAInputError(f"max_work: must be a whole number of at least 1, got {_got(max_work)}")
    return int(max_work)


def _whole(value: Any, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
        raise QRAInputError(f"{field}: must be a whole number from {low:,} to {high:,}, got {_got(value)}")
    return int(value)


def check_work(what: str, work: int, max_work: Any = None, detail: str = "") -> None:
    """Refuse ``work`` units (see the module docstring) above ``max_work`` (default :data:`MAX_WORK`) in one line.

    >>> check_work("bootstrap", 10**9 * 100, detail="1,000,000,000 replicates x 100 ratings")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: bootstrap: 1,000,000,000 replicates x 100 ratings is 100,000,000,000 units of work; the limit is 500,000,000 (raise it with max_work= or --max-work)
    """
    limit = _limit(max_work)
    if work > limit:
        raise QRAInputError(f"{what}: {detail + ' is ' if detail else ''}{work:,} units of work; the limit is {limit:,} "
                            "(raise it with max_work= or --max-work)")


def _study_sizes(study) -> tuple[int, int, int]:
    """(systems, ratings + labels, scores) of a study, read without building any array."""
    if not all(hasattr(study, name) for name in ("systems", "ratings", "labels", "scores")):  # duck-typed: no upward import
        raise QRAInputError(f"study: expected a Study, got {type(study).__name__}")
    return len(study.systems), len(study.ratings) + len(study.labels), len(study.scores)


def check_bootstrap(study, B: Any, seed: Any = None, max_work: Any = None, *, what: str = "bootstrap") -> None:
    """Check a bootstrap's replicates, seed and size before anything is allocated
    (:data:`MAX_BOOTSTRAP`, :data:`MAX_SYSTEMS`, :data:`MAX_RATINGS`, :func:`check_work`).
    A caller who gives ``max_work`` takes the count limits into their own hands: then only
    the work estimate is checked, against ``max_work``.

    The work is ``B x (ratings + labels + scores)``, plus ``systems**2`` for the systems
    jackknife.
    """
    most = MAX_BOOTSTRAP if max_work is None else max(10, _limit(max_work))  # a caller's max_work: the work estimate decides
    if isinstance(B, bool) or not isinstance(B, numbers.Integral) or not 10 <= B <= most:
        raise QRAInputError(f"{what}: B must be an integer of at least 10 and at most {most:,} "
                            f"(bootstrap replicates{'; raise it with max_work= or --max-work' if max_work is None else ''}), got {_got(B)}")
    check_seed(seed)
    systems, ratings, scores = _study_sizes(study)
    if systems > MAX_SYSTEMS and max_work is None:
        raise QRAInputError(f"{what}: the study has {systems:,} systems; the limit is {MAX_SYSTEMS:,} (raise it with max_work=)")
    if ratings > MAX_RATINGS and max_work is None:
        raise QRAInputError(f"{what}: the study has {ratings:,} ratings and labels; the limit is {MAX_RATINGS:,} (raise it with max_work=)")
    per_replicate = ratings + scores + systems
    check_work(what, B * per_replicate + systems * systems, max_work,
               detail=f"{B:,} replicates x {per_replicate:,} ratings, labels and scores")


def check_plan(study, items: Any, raters_per_item: Any, B: Any, runs: Any, seed: Any = None,
               max_work: Any = None) -> None:
    """Check a reproduction plan's designs, replicates, runs and seed before anything is
    allocated (:data:`MAX_PLAN_ITEMS`, :data:`MAX_PLAN_RATERS`, :func:`check_work`): every
    design simulates ``items x raters`` ratings ``runs`` times and bootstraps each ``B`` times.

    >>> from qra_widgets import examples
    >>> check_plan(examples.load("qrapp_example1"), [10**7], [2], 500, 5)
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: plan_reproduction: items must be whole numbers from 2 to 100,000, got 10000000
    """
    as_list = lambda values: [values] if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__") else list(values)
    items, raters_per_item = as_list(items), as_list(raters_per_item)
    raised = None if max_work is None else max(10, _limit(max_work))  # a caller's max_work replaces the count limits
    for name, values, low, high in (("items", items, 2, raised or MAX_PLAN_ITEMS),
                                    ("raters_per_item", raters_per_item, 1, raised or MAX_PLAN_RATERS)):
        if not values:
            raise QRAInputError(f"plan_reproduction: {name}: give at least one number")
        if len(values) > 100:
            raise QRAInputError(f"plan_reproduction: {name}: at most 100 values, got {len(values)}")
        for value in values:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
                raise QRAInputError(f"plan_reproduction: {name} must be whole numbers from {low:,} to {high:,}, got {_got(value)}")
    _whole(B, "plan_reproduction: B (bootstrap replicates)", 10, raised or MAX_BOOTSTRAP)
    _whole(runs, "plan_reproduction: runs", 1, 1000)
    check_seed(seed)
    _systems, ratings, scores = _study_sizes(study)
    simulated = sum(int(n) * int(k) for n in items for k in raters_per_item)
    designs = len(items) * len(raters_per_item)
    work = runs * B * (simulated + designs * (ratings + scores))
    check_work("plan_reproduction", work, max_work,
               detail=f"{designs} designs x {runs} runs x {B:,} replicates over {simulated + designs * ratings:,} ratings")
