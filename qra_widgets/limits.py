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

The limits at read time (checked while a spec, a table or a study is read, before the array
each would need is allocated; raise one for a call with ``with limits.raised(max_systems=20_000):``,
for a command with ``qra-widgets --max-systems 20000 ...``, for a server with the environment
variable; the app's users cannot):

========================== ============= ======================= =================================
limit                       default       option                  what it bounds
========================== ============= ======================= =================================
``max_systems``             10,000        ``--max-systems``,      systems per criterion in a spec's
                                          ``QRA_WIDGETS_MAX_      files, and systems in a study
                                          SYSTEMS``               (outside the bootstrap too)
``max_spec_bytes``          200 MiB       ``--max-spec-bytes``,   bytes one spec parses, counting a
                                          ``QRA_WIDGETS_MAX_      file named twice twice (checked
                                          SPEC_BYTES``            from the sizes before any parse)
``max_experiments``         1,000         ``--max-experiments``,  experiment entries in one spec,
                                          ``QRA_WIDGETS_MAX_      and experiments in a study
                                          EXPERIMENTS``
``max_pairwise``            25,000,000    ``--max-pairwise``,     judgements x systems of one
                                          ``QRA_WIDGETS_MAX_      Bradley-Terry fit (at least
                                          PAIRWISE``              systems**2: its win matrix)
========================== ============= ======================= =================================

Values quoted from a file in a message go through :func:`shown` / :func:`shown_values`
(escaped with ``repr``, cut to :data:`MAX_SHOWN_CHARS` characters, at most
:data:`MAX_SHOWN_VALUES` distinct values), so a message cannot carry a file out.
"""

from __future__ import annotations

import contextlib
import contextvars
import numbers
import os
from dataclasses import dataclass, fields, replace
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
MAX_SYSTEMS_PER_CRITERION = 10_000
MAX_SPEC_BYTES = 200 * 2**20
MAX_EXPERIMENTS = 1_000
MAX_PAIRWISE = 25_000_000
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
        raise QRAInputError(
            f"{what}: {detail + ' is ' if detail else ''}{work:,} units of work; the limit is {limit:,} "
            "(raise it with max_work= or --max-work)"
        )


def _study_sizes(study) -> tuple[int, int, int]:
    """(systems, ratings + labels, scores) of a study, read without building any array."""
    if not all(
        hasattr(study, name) for name in ("systems", "ratings", "labels", "scores")
    ):  # duck-typed: no upward import
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
    most = (
        MAX_BOOTSTRAP if max_work is None else max(10, _limit(max_work))
    )  # a caller's max_work: the work estimate decides
    if isinstance(B, bool) or not isinstance(B, numbers.Integral) or not 10 <= B <= most:
        raise QRAInputError(
            f"{what}: B must be an integer of at least 10 and at most {most:,} "
            f"(bootstrap replicates{'; raise it with max_work= or --max-work' if max_work is None else ''}), got {_got(B)}"
        )
    check_seed(seed)
    systems, ratings, scores = _study_sizes(study)
    if systems > MAX_SYSTEMS and max_work is None:
        raise QRAInputError(
            f"{what}: the study has {systems:,} systems; the limit is {MAX_SYSTEMS:,} (raise it with max_work=)"
        )
    if ratings > MAX_RATINGS and max_work is None:
        raise QRAInputError(
            f"{what}: the study has {ratings:,} ratings and labels; the limit is {MAX_RATINGS:,} (raise it with max_work=)"
        )
    per_replicate = ratings + scores + systems
    check_work(
        what,
        B * per_replicate + systems * systems,
        max_work,
        detail=f"{B:,} replicates x {per_replicate:,} ratings, labels and scores",
    )


def check_plan(
    study, items: Any, raters_per_item: Any, B: Any, runs: Any, seed: Any = None, max_work: Any = None
) -> None:
    """Check a reproduction plan's designs, replicates, runs and seed before anything is
    allocated (:data:`MAX_PLAN_ITEMS`, :data:`MAX_PLAN_RATERS`, :func:`check_work`): every
    design simulates ``items x raters`` ratings ``runs`` times and bootstraps each ``B`` times.

    >>> from qra_widgets import examples
    >>> check_plan(examples.load("qrapp_example1"), [10**7], [2], 500, 5)
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: plan_reproduction: items must be whole numbers from 2 to 100,000, got 10000000
    """
    as_list = lambda values: (
        [values] if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__") else list(values)
    )
    items, raters_per_item = as_list(items), as_list(raters_per_item)
    raised = None if max_work is None else max(10, _limit(max_work))  # a caller's max_work replaces the count limits
    for name, values, low, high in (
        ("items", items, 2, raised or MAX_PLAN_ITEMS),
        ("raters_per_item", raters_per_item, 1, raised or MAX_PLAN_RATERS),
    ):
        if not values:
            raise QRAInputError(f"plan_reproduction: {name}: give at least one number")
        if len(values) > 100:
            raise QRAInputError(f"plan_reproduction: {name}: at most 100 values, got {len(values)}")
        for value in values:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
                raise QRAInputError(
                    f"plan_reproduction: {name} must be whole numbers from {low:,} to {high:,}, got {_got(value)}"
                )
    _whole(B, "plan_reproduction: B (bootstrap replicates)", 10, raised or MAX_BOOTSTRAP)
    _whole(runs, "plan_reproduction: runs", 1, 1000)
    check_seed(seed)
    _systems, ratings, scores = _study_sizes(study)
    simulated = sum(int(n) * int(k) for n in items for k in raters_per_item)
    designs = len(items) * len(raters_per_item)
    work = runs * B * (simulated + designs * (ratings + scores))
    check_work(
        "plan_reproduction",
        work,
        max_work,
        detail=f"{designs} designs x {runs} runs x {B:,} replicates over {simulated + designs * ratings:,} ratings",
    )


# ----------------------------------------------------------------------------- limits at read time


@dataclass(frozen=True)
class ReadLimits:
    """The limits at read time (see the module docstring): each a whole number of at least 1."""

    max_systems: int = MAX_SYSTEMS_PER_CRITERION
    max_spec_bytes: int = MAX_SPEC_BYTES
    max_experiments: int = MAX_EXPERIMENTS
    max_pairwise: int = MAX_PAIRWISE

    def __post_init__(self) -> None:
        for item in fields(self):
            _whole(getattr(self, item.name), item.name, 1, 2**62)


_RAISED: contextvars.ContextVar[ReadLimits | None] = contextvars.ContextVar("qra_widgets_read_limits", default=None)


def _option(name: str) -> str:
    """How a limit is raised, as its refusal says."""
    return f"raise it with {name}= (limits.raised), --{name.replace('_', '-')} or QRA_WIDGETS_{name.upper()}"


def _from_environment() -> ReadLimits:
    given = {}
    for item in fields(ReadLimits):
        text = os.environ.get(f"QRA_WIDGETS_{item.name.upper()}", "").strip()
        if not text:
            continue
        try:
            given[item.name] = int(text.replace("_", "").replace(",", ""))
        except ValueError:
            raise QRAInputError(
                f"QRA_WIDGETS_{item.name.upper()}: must be a whole number, got {shown(text, 30)}"
            ) from None
    try:
        return ReadLimits(**given)
    except QRAInputError as error:
        raise QRAInputError(f"QRA_WIDGETS_{str(error).split(':')[0].upper()}:{str(error).split(':', 1)[1]}") from None


def current() -> ReadLimits:
    """The limits in force: those of the innermost :func:`raised`, else the environment's, else the defaults.

    >>> current().max_systems
    10000
    >>> with raised(max_systems=20_000):
    ...     current().max_systems
    20000
    """
    return _RAISED.get() or _from_environment()


@contextlib.contextmanager
def raised(**limits: int):
    """Change limits at read time for the calls inside the ``with`` block (a library caller's option).

    >>> with raised(max_sytems=1):
    ...     pass
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: limits.raised: unknown limit 'max_sytems'; the limits are max_systems, max_spec_bytes, max_experiments, max_pairwise
    """
    known = [item.name for item in fields(ReadLimits)]
    for name in limits:
        if name not in known:
            raise QRAInputError(f"limits.raised: unknown limit {shown(name, 30)}; the limits are {', '.join(known)}")
    token = _RAISED.set(replace(current(), **limits))
    try:
        yield current()
    finally:
        _RAISED.reset(token)


def check_systems(count: int, where: str, what: str = "systems") -> None:
    """Refuse more than ``max_systems`` systems (``what``: "systems on 'Fluency'", "systems in the study").

    >>> check_systems(20_000, "pairs.csv", "systems on 'Quality'")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: pairs.csv: 20,000 systems on 'Quality'; the limit is 10,000 systems (max_systems; raise it with max_systems= (limits.raised), --max-systems or QRA_WIDGETS_MAX_SYSTEMS)
    """
    limit = current().max_systems
    if count > limit:
        raise QRAInputError(
            f"{where}: {count:,} {what}; the limit is {limit:,} systems (max_systems; {_option('max_systems')})"
        )


def check_criterion_systems(criteria, systems, where: str) -> None:
    """Refuse a table whose systems per criterion exceed ``max_systems``: ``criteria`` and
    ``systems`` are the columns of its ratings (one entry per rating), counted by hashing.

    >>> check_criterion_systems(["Q"] * 3, ["a", "b", "a"], "t.csv")
    >>> with raised(max_systems=1):
    ...     check_criterion_systems(["Q"] * 3, ["a", "b", "a"], "t.csv")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: t.csv: 2 systems on 'Q'; the limit is 1 systems (max_systems; raise it with max_systems= (limits.raised), --max-systems or QRA_WIDGETS_MAX_SYSTEMS)
    """
    import pandas as pd

    if not len(criteria):
        return
    counts = pd.DataFrame({"qc": criteria, "system": systems}).groupby("qc", sort=False)["system"].nunique()
    for qc, count in counts.items():
        check_systems(int(count), where, f"systems on {shown(qc)}")


def planned_size(name: str, files: dict | None, root) -> int:
    """The size of a file a spec names, from the uploads or ``stat`` (nothing is read; a name
    the reader will refuse counts 0), for :meth:`SpecBytes.plan`."""
    if files is not None:
        data = files.get(name)
        return len(data) if isinstance(data, (bytes, bytearray)) else 0
    try:
        return max(os.stat(os.path.join(os.fspath(root), name)).st_size, 0) if root is not None else 0
    except (OSError, ValueError, TypeError):
        return 0


def check_experiments(count: int, where: str) -> None:
    """Refuse more than ``max_experiments`` experiments in one spec or study.

    >>> check_experiments(5_000, "annotation spec")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: annotation spec: 5,000 experiments; the limit is 1,000 (max_experiments; raise it with max_experiments= (limits.raised), --max-experiments or QRA_WIDGETS_MAX_EXPERIMENTS)
    """
    limit = current().max_experiments
    if count > limit:
        raise QRAInputError(
            f"{where}: {count:,} experiments; the limit is {limit:,} (max_experiments; {_option('max_experiments')})"
        )


def _mib(size: int) -> str:
    return f"{size / 2**20:,.1f} MiB"


class SpecBytes:
    """The bytes one spec parses, re-reads counted (``max_spec_bytes``): :meth:`plan` refuses from
    the files' sizes before anything is parsed, :meth:`charge` counts what is parsed (a gzip file
    as unpacked).

    >>> budget = SpecBytes("spec.json")
    >>> budget.plan([("big.csv", 2**20)] * 5000)
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: spec.json: its files add up to 5,000.0 MiB to parse (5000 reads of 1 file); the limit is 200.0 MiB (max_spec_bytes; raise it with max_spec_bytes= (limits.raised), --max-spec-bytes or QRA_WIDGETS_MAX_SPEC_BYTES)
    """

    def __init__(self, where: str):
        self.where, self.limit, self.parsed = where, current().max_spec_bytes, 0

    def _refuse(self, total: int, detail: str) -> None:
        raise QRAInputError(
            f"{self.where}: its files add up to {_mib(total)} to parse ({detail}); the limit is "
            f"{_mib(self.limit)} (max_spec_bytes; {_option('max_spec_bytes')})"
        )

    def plan(self, reads) -> None:
        """``reads``: (name, size in bytes) of every read the spec asks for, in order."""
        reads = list(reads)
        total = sum(size for _name, size in reads)
        if total > self.limit:
            self._refuse(
                total,
                f"{len(reads)} reads of {len({name for name, _ in reads})} "
                f"file{'s' if len({name for name, _ in reads}) != 1 else ''}",
            )

    def charge(self, size: int, name: str) -> None:
        self.parsed += size
        if self.parsed > self.limit:
            self._refuse(self.parsed, f"at {shown(name)}")


def check_pairwise(judgements: int, systems: int, where: str) -> None:
    """Refuse a Bradley-Terry fit of ``judgements`` over ``systems`` before its (systems x systems)
    win matrix is allocated: its size is judgements x systems, and at least systems**2.

    >>> check_pairwise(20_000, 20_000, "pairs.csv")
    Traceback (most recent call last):
    ...
    qra_widgets.errors.QRAInputError: pairs.csv: a Bradley-Terry fit of 20,000 judgements over 20,000 systems is 400,000,000 judgements x systems; the limit is 25,000,000 (max_pairwise; raise it with max_pairwise= (limits.raised), --max-pairwise or QRA_WIDGETS_MAX_PAIRWISE)
    """
    limit = current().max_pairwise
    size = max(judgements, systems) * systems
    if size > limit:
        raise QRAInputError(
            f"{where}: a Bradley-Terry fit of {judgements:,} judgements over {systems:,} systems is "
            f"{size:,} judgements x systems; the limit is {limit:,} (max_pairwise; {_option('max_pairwise')})"
        )
