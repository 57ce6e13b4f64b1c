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
import shutil
import tempfile
import urllib.parse
import urllib.request
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import QRAInputError, UndefinedMeasureWarning

MANIFEST = Path(__file__).with_name("manifest.json")
GITHUB_RAW = "https://raw.githubusercontent.com/{repository}/{commit}/{path}"
DOWNLOAD_CAP = 64 * 1024 * 1024  # bytes per file; the manifest's largest is under 3 MB
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
    return data


def default_cache() -> Path:
    """The user's cache folder for the atlas (platformdirs), e.g. ``~/.cache/qra-widgets/atlas``."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("qra-widgets")) / "atlas"


def _local_name(source: dict) -> str:
    return source["repository"].replace("/", "__")


def cached_path(cache: Path, family: dict, reference: str) -> Path:
    """The cached file of ``"owner/repo:path"`` in ``family``."""
    repository, _, path = reference.partition(":")
    for source in family["sources"]:
        if source["repository"] == repository and any(f["path"] == path for f in source["files"]):
            return Path(cache) / "files" / family["id"] / _local_name(source) / path
    raise QRAInputError(f"{family['id']}: the spec reads {reference!r}, which no source of the manifest lists")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(url: str, target: Path) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": "qra-widgets atlas"})
    with urllib.request.urlopen(request, timeout=60) as response, open(target, "wb") as out:
        read = 0
        while block := response.read(1 << 20):
            read += len(block)
            if read > DOWNLOAD_CAP:
                raise QRAInputError(f"{url}: larger than {DOWNLOAD_CAP} bytes")
            out.write(block)


def fetch(*, cache: str | os.PathLike | None = None, mirror: str | os.PathLike | None = None,
          base_url: str | None = None, families: list[str] | None = None, manifest: dict | None = None,
          progress=None) -> list[Path]:
    """Put every file of the manifest (or of ``families``) into ``cache``, verified by sha256.

    The source is ``mirror`` (a folder laid out ``<family>/<owner>__<repo>/<path>``), else
    ``base_url`` (an http(s) URL with that layout), else GitHub at each file's pinned commit.
    A file already cached with the right sha256 is kept.  A file whose sha256 differs is
    deleted and :class:`ChecksumError` is raised naming it; files verified before it stay.
    Returns the cached paths.
    """
    if mirror is not None and base_url is not None:
        raise QRAInputError("atlas fetch: give --mirror or --base-url, not both")
    if base_url is not None and urllib.parse.urlparse(base_url).scheme not in ("http", "https"):
        raise QRAInputError(f"atlas fetch: --base-url must be an http or https URL, got {base_url!r}")
    manifest = manifest or load_manifest()
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
                if target.is_file() and _sha256(target) == entry["sha256"]:
                    done.append(target)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".part-")
                os.close(handle)
                temporary = Path(temporary)
                try:
                    if mirror is not None:
                        origin = Path(mirror) / relative
                        if not origin.is_file():
                            raise QRAInputError(f"atlas fetch: {relative.as_posix()} is not in the mirror {mirror}")
                        shutil.copyfile(origin, temporary)
                    else:
                        if base_url is not None:
                            url = base_url.rstrip("/") + "/" + urllib.parse.quote(relative.as_posix())
                        else:
                            url = GITHUB_RAW.format(repository=source["repository"], commit=source["commit"],
                                                    path=urllib.parse.quote(entry["path"]))
                        _download(url, temporary)
                    found = _sha256(temporary)
                    if found != entry["sha256"]:
                        raise ChecksumError(f"atlas fetch: sha256 mismatch for {relative.as_posix()}: expected "
                                            f"{entry['sha256']}, got {found}; not cached")
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
        return (f"{'ok ' if self.ok else 'DIFF'} {self.family}: {self.measure} {what}: published "
                f"{self.published:.{self.digits}f}, computed {self.computed:.{self.digits}f} ({self.where})")


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
        checks.append(Check(result.family["id"], published["measure"], published.get("quality_criterion", ""),
                            published.get("system", ""), published.get("experiment", ""), float(published["value"]),
                            computed, digits, published["where"], ok))
    return checks


def build_family(family: dict, cache: Path, *, bootstrap: int = BOOTSTRAP_B, seed: int = BOOTSTRAP_SEED) -> FamilyResult:
    """Recompute one family from the cache (never anywhere else): study, assessment with
    bootstrap intervals where the study has item-level ratings, and the published checks."""
    from ..assess import assess
    from .read import read_family

    def locate(reference: str) -> Path:
        path = cached_path(cache, family, reference)
        if not path.is_file():
            raise QRAInputError(f"atlas build: {family['id']}: {reference} is not in the cache {cache}; "
                                f"run `qra-widgets atlas fetch` first")
        return path

    study, standard_errors = read_family(family["spec"], locate, family=family["id"])
    with_ratings = bool(study.ratings) and len(study.ratings.experiments()) == len(study.experiments)
    with warnings.catch_warnings():  # an undefined measure is nan with its reason in the assessment's notes
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        assessment = assess(study, bootstrap=bootstrap if with_ratings else 0, seed=seed)
    result = FamilyResult(family, study, assessment, standard_errors)
    result.checks = check_published(result)
    return result


def build(*, cache: str | os.PathLike | None = None, db: str | os.PathLike | None = None,
          families: list[str] | None = None, manifest: dict | None = None, bootstrap: int = BOOTSTRAP_B) -> list[FamilyResult]:
    """Recompute every family (or ``families``) from the cache and save each study into the
    library at ``db`` (when given).  Returns the results with their published checks."""
    manifest = manifest or load_manifest()
    cache = Path(cache) if cache is not None else default_cache()
    from ..progress import bar

    chosen = [f for f in manifest["families"] if families is None or f["id"] in families]
    results = [build_family(f, cache, bootstrap=bootstrap) for f in bar(len(chosen), "atlas", "family", iterable=chosen)]
    if db is not None:
        from ..store import StudyLibrary

        library = StudyLibrary(db)
        stored = {s.id: s.latest for s in library.list(include_deleted=True)}
        for result in results:  # a family as stored adds no revision; a changed one adds one, on top of the latest
            library.save_if_changed(result.study, expected_revision=stored.get(result.study.id))
    return results
