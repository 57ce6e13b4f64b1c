"""The atlas: published original → reproduction families, recomputed from their raw files.

``manifest.json`` (in this package) holds one entry per family: the original and each
reproduction, the sources (repository, commit, path, sha256, size, licence: "none found" where
the repository has none), the spec that reads them (:mod:`qra_widgets.atlas.read`) and the
published numbers with where each was printed.  Facts only: no fetched file is in the package.

* :func:`fetch` puts each file into the cache (``<cache>/files/<family>/<owner>__<repo>/<path>``)
  from GitHub at its pinned commit, from ``base_url`` (another host with the same layout) or
  from ``mirror`` (a local folder with that layout), and verifies its sha256; a mismatch is
  refused with one line naming the file and nothing bad is cached.
* :func:`build` reads only the cache, recomputes every family (with intervals), saves it into
  a study library, and checks each published number at the digits it was printed.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import time
import urllib.parse
import urllib.request
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import QRAInputError, UndefinedMeasureWarning

MANIFEST = Path(__file__).with_name("manifest.json")
GITHUB_RAW = "https://raw.githubusercontent.com/{repository}/{commit}/{path}"
DOWNLOAD_CAP = 64 * 1024 * 1024  # bytes per file; the manifest's largest is under 3 MB (fetch's max_file_bytes)
FETCH_DEADLINE = 600.0  # seconds for a whole fetch (fetch's deadline, --deadline)
BOOTSTRAP_B, BOOTSTRAP_SEED = 200, 20260101


class ChecksumError(QRAInputError):
    """A fetched file's sha256 differs from the manifest's (the message is the one line to print)."""


def load_manifest(path: str | os.PathLike | None = None) -> dict:
    """The manifest (``qra_widgets/atlas/manifest.json`` unless ``path``), checked for its keys."""
    data = json.loads(Path(path or MANIFEST).read_text(encoding="utf-8"))
    if data.get("schema") != "qra-widgets/atlas" or not isinstance(data.get("families"), list):
        raise QRAInputError(f"{path or MANIFEST}: not an atlas manifest (schema qra-widgets/atlas with families)")
    for n, family in enumerate(data["families"]):
        for key in ("id", "title", "original", "reproductions", "sources", "spec", "published"):
            if key not in family:
                raise QRAInputError(f"atlas manifest: families[{n}] has no {key!r}")
        for source in family["sources"]:
            for key in ("repository", "commit", "licence", "files"):
                if key not in source:
                    raise QRAInputError(f"atlas manifest: {family['id']}: a source has no {key!r}")
    from .read import check_manifest_paths

    check_manifest_paths(data)
    return data


def default_cache() -> Path:
    """The user's cache folder for the atlas (platformdirs), e.g. ``~/.cache/qra-widgets/atlas``."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("qra-widgets")) / "atlas"


def _local_name(source: dict) -> str:
    return source["repository"].replace("/", "__")


def cached_path(cache: Path, family: dict, reference: str) -> Path:
    """The cached file of ``"owner/repo:path"`` in ``family``."""
    return Path(cache) / "files" / _pinned(family, reference)[0]


def _pinned(family: dict, reference: str) -> tuple[str, str]:
    """The path under the cache's ``files`` of ``"owner/repo:path"`` in ``family``, and its pinned sha256."""
    from .read import check_relative

    repository, _, path = reference.partition(":")
    for source in family["sources"]:
        for entry in source["files"]:
            if source["repository"] == repository and entry["path"] == path:
                relative = f"{check_relative(family['id'], 'atlas manifest')}/{_local_name(source)}/{path}"
                return check_relative(relative, "atlas manifest"), entry["sha256"]
    raise QRAInputError(f"{family['id']}: the spec reads {reference!r}, which no source of the manifest lists")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(
    url: str, target: Path, *, deadline: float | None = None, max_bytes: int = DOWNLOAD_CAP, shown_as: str | None = None
) -> None:
    """Download ``url`` into ``target``: at most ``max_bytes``, and given up at ``deadline``
    (a :func:`time.monotonic` time) however slowly the server drips (each wait is at most the time left)."""
    shown_as = shown_as or url
    deadline = time.monotonic() + FETCH_DEADLINE if deadline is None else deadline

    def left() -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise QRAInputError(
                f"atlas fetch: {shown_as}: the fetch's deadline passed (raise it with deadline= or --deadline)"
            )
        return min(remaining, 60.0)

    request = urllib.request.Request(url, headers={"User-Agent": "qra-widgets atlas"})
    try:
        with urllib.request.urlopen(request, timeout=left()) as response, open(target, "wb") as out:
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise QRAInputError(
                    f"atlas fetch: {shown_as}: is {int(declared):,} bytes; the limit is {max_bytes:,} per file "
                    "(raise it with max_file_bytes= or --max-file-bytes)"
                )
            read = 0
            while True:
                sock = getattr(getattr(response.fp, "raw", None), "_sock", None)
                if sock is not None:  # each wait for a byte is at most the time left
                    sock.settimeout(left())
                block = response.read1(1 << 16)
                if not block:
                    break
                read += len(block)
                if read > max_bytes:
                    raise QRAInputError(
                        f"atlas fetch: {shown_as}: larger than {max_bytes:,} bytes, the limit per file "
                        "(raise it with max_file_bytes= or --max-file-bytes)"
                    )
                out.write(block)
                left()
    except TimeoutError:
        left()
        raise QRAInputError(f"atlas fetch: {shown_as}: the server stopped answering") from None


def fetch(
    *,
    cache: str | os.PathLike | None = None,
    mirror: str | os.PathLike | None = None,
    base_url: str | None = None,
    families: list[str] | None = None,
    manifest: dict | None = None,
    progress=None,
    deadline: float = FETCH_DEADLINE,
    max_file_bytes: int = DOWNLOAD_CAP,
) -> list[Path]:
    """Put every file of the manifest (or of ``families``) into ``cache``, verified by sha256.

    The source is ``mirror`` (a folder laid out ``<family>/<owner>__<repo>/<path>``), else
    ``base_url`` (an http(s) URL with that layout), else GitHub at each file's pinned commit.
    A file already cached with the right sha256 is kept.  A file whose sha256 differs is
    deleted and :class:`ChecksumError` is raised naming it; files verified before it stay.
    A link in the cache or the mirror is refused (never written or read through); manifest
    paths must be relative without ``..``.  The whole fetch is given up after ``deadline``
    seconds, and a file over ``max_file_bytes`` is refused.  Returns the cached paths.
    """
    from ..limits import _whole
    from .read import CacheRefused, check_manifest_paths, check_no_links, read_verified

    deadline = float(deadline)
    if not math.isfinite(deadline) or deadline <= 0:
        raise QRAInputError(f"atlas fetch: deadline must be a positive number of seconds, got {deadline!r}")
    max_file_bytes = _whole(max_file_bytes, "atlas fetch: max_file_bytes", 1, 2**40)
    until = time.monotonic() + deadline
    if mirror is not None and base_url is not None:
        raise QRAInputError("atlas fetch: give --mirror or --base-url, not both")
    if base_url is not None and urllib.parse.urlparse(base_url).scheme not in ("http", "https"):
        raise QRAInputError(f"atlas fetch: --base-url must be an http or https URL, got {base_url!r}")
    manifest = manifest or load_manifest()
    check_manifest_paths(manifest)
    cache = Path(cache) if cache is not None else default_cache()
    chosen = [f for f in manifest["families"] if families is None or f["id"] in families]
    if families is not None and len(chosen) != len(set(families)):
        unknown = sorted(set(families) - {f["id"] for f in chosen})
        raise QRAInputError(f"atlas: no family {unknown[0]!r}; known: {[f['id'] for f in manifest['families']]}")
    done = []
    for family in chosen:
        for source in family["sources"]:
            for entry in source["files"]:
                relative = Path(family["id"]) / _local_name(source) / entry["path"]
                target = cache / "files" / relative
                check_no_links(cache, f"files/{relative.as_posix()}")  # never written (or read) through a link
                if target.is_file():
                    try:
                        read_verified(cache / "files", relative.as_posix(), entry["sha256"], max_bytes=max_file_bytes)
                        done.append(target)
                        continue
                    except CacheRefused:
                        pass  # changed since: fetched again, replacing it
                target.parent.mkdir(parents=True, exist_ok=True)
                check_no_links(cache, f"files/{relative.as_posix()}")
                handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".part-")
                os.close(handle)
                temporary = Path(temporary)
                try:
                    if mirror is not None:
                        origin = Path(mirror) / relative
                        if not origin.is_file() and not origin.is_symlink():
                            raise QRAInputError(f"atlas fetch: {relative.as_posix()} is not in the mirror {mirror}")
                        temporary.write_bytes(
                            read_verified(
                                Path(mirror), relative.as_posix(), None, max_bytes=max_file_bytes, what="mirror"
                            )
                        )
                    else:
                        if base_url is not None:
                            url = base_url.rstrip("/") + "/" + urllib.parse.quote(relative.as_posix())
                        else:
                            url = GITHUB_RAW.format(
                                repository=source["repository"],
                                commit=source["commit"],
                                path=urllib.parse.quote(entry["path"]),
                            )
                        _download(
                            url, temporary, deadline=until, max_bytes=max_file_bytes, shown_as=relative.as_posix()
                        )
                    found = _sha256(temporary)
                    if found != entry["sha256"]:
                        raise ChecksumError(
                            f"atlas fetch: sha256 mismatch for {relative.as_posix()}: expected "
                            f"{entry['sha256']}, got {found}; not cached"
                        )
                    os.replace(temporary, target)
                except BaseException:
                    temporary.unlink(missing_ok=True)
                    raise
                done.append(target)
                if progress:
                    progress(relative.as_posix())
    return done


# ----------------------------------------------------------------------------- build


@dataclass
class Check:
    """One published number against the recomputed one."""

    family: str
    measure: str
    quality_criterion: str
    system: str
    experiment: str
    published: float
    computed: float
    digits: int
    where: str
    ok: bool

    def line(self) -> str:
        what = " / ".join(p for p in (self.quality_criterion, self.system, self.experiment) if p)
        return (
            f"{'ok ' if self.ok else 'DIFF'} {self.family}: {self.measure} {what}: published "
            f"{self.published:.{self.digits}f}, computed {self.computed:.{self.digits}f} ({self.where})"
        )


@dataclass
class FamilyResult:
    family: dict
    study: Any
    assessment: Any
    standard_errors: dict
    checks: list[Check] = field(default_factory=list)

    @property
    def reproduced(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)


def _rounded_study(study, digits: int):
    """A copy of ``study`` whose system values are rounded to ``digits`` (what a team typed in)."""
    import copy

    rounded = copy.copy(study)
    rounded.scores = {k: round(v, digits) for k, v in study.scores.items()}
    return rounded


def _computed(result: FamilyResult, published: dict) -> float:
    from ..assess import assess

    measure, qc, system = published["measure"], published.get("quality_criterion"), published.get("system")
    if measure == "mean":
        return result.study.scores[(qc, system, published["experiment"])]
    assessment = result.assessment
    if published.get("input_digits") is not None:
        assessment = assess(_rounded_study(result.study, published["input_digits"]), result.assessment.conventions)
    level = "system" if measure == "CV*" else "qc"
    return assessment.value(measure, level, qc, system if measure == "CV*" else None)


def check_published(result: FamilyResult) -> list[Check]:
    """Each published number of the family against the recomputed value: equal when the
    difference is at most half a unit of the last printed digit (plus 1e-9 for binary rounding)."""
    checks = []
    for published in result.family["published"]:
        computed = float(_computed(result, published))
        digits = int(published["digits"])
        ok = math.isfinite(computed) and abs(computed - published["value"]) <= 0.5 * 10.0**-digits + 1e-9
        checks.append(
            Check(
                result.family["id"],
                published["measure"],
                published.get("quality_criterion", ""),
                published.get("system", ""),
                published.get("experiment", ""),
                float(published["value"]),
                computed,
                digits,
                published["where"],
                ok,
            )
        )
    return checks


def build_family(
    family: dict, cache: Path, *, bootstrap: int = BOOTSTRAP_B, seed: int = BOOTSTRAP_SEED
) -> FamilyResult:
    """Recompute one family from the cache (never anywhere else): study, assessment with
    bootstrap intervals where the study has item-level ratings, and the published checks."""
    from ..assess import assess
    from .read import CachedFile, read_family, read_verified

    def locate(reference: str) -> CachedFile:  # verified by sha256 on every read, before anything parses it
        relative, sha256 = _pinned(family, reference)
        path = Path(cache) / "files" / relative
        if not path.is_file() and not path.is_symlink():
            raise QRAInputError(
                f"atlas build: {family['id']}: {reference} is not in the cache {cache}; "
                f"run `qra-widgets atlas fetch` first"
            )
        return CachedFile(relative, read_verified(Path(cache) / "files", relative, sha256, max_bytes=DOWNLOAD_CAP))

    study, standard_errors = read_family(family["spec"], locate, family=family["id"])
    with_ratings = bool(study.ratings) and len(study.ratings.experiments()) == len(study.experiments)
    with warnings.catch_warnings():  # an undefined measure is nan with its reason in the assessment's notes
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        assessment = assess(study, bootstrap=bootstrap if with_ratings else 0, seed=seed)
    result = FamilyResult(family, study, assessment, standard_errors)
    result.checks = check_published(result)
    return result


def build(
    *,
    cache: str | os.PathLike | None = None,
    db: str | os.PathLike | None = None,
    families: list[str] | None = None,
    manifest: dict | None = None,
    bootstrap: int = BOOTSTRAP_B,
    refused: list[str] | None = None,
) -> list[FamilyResult]:
    """Recompute every family (or ``families``) from the cache and save each study into the
    library at ``db`` (when given).  Returns the results with their published checks.

    Every cached file is checked (sha256, no link) as it is read: a family with a file that
    fails is refused, naming the file: raised, or, when ``refused`` is a list, its one-line
    reason is appended there and the other families are built."""
    from .read import CacheRefused, check_manifest_paths

    manifest = manifest or load_manifest()
    check_manifest_paths(manifest)
    cache = Path(cache) if cache is not None else default_cache()
    from ..progress import bar

    chosen = [f for f in manifest["families"] if families is None or f["id"] in families]
    results = []
    for family in bar(len(chosen), "atlas", "family", iterable=chosen):
        try:
            results.append(build_family(family, cache, bootstrap=bootstrap))
        except CacheRefused as error:
            if refused is None:
                raise
            refused.append(f"{family['id']} refused: {error}")
    if db is not None:
        from ..store import StudyLibrary

        library = StudyLibrary(db)
        stored = {s.id: s.latest for s in library.list(include_deleted=True)}
        for result in results:  # a family as stored adds no revision; a changed one adds one, on top of the latest
            library.save_if_changed(result.study, expected_revision=stored.get(result.study.id))
    return results
