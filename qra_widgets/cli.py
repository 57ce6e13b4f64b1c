"""The ``qra-widgets`` command line.

    qra-widgets report FILE [--labels LABELS.csv] [--scale-min 1] [--format markdown|csv|latex|json|narrative]
    qra-widgets report SPEC.json --bootstrap 2000 --seed 1  # item-level annotations, with intervals
    qra-widgets examples                       # list the bundled paper examples
    qra-widgets report --example qrapp_example1 [--conventions qra3|qrapp|JSON|FILE.json]
    qra-widgets qra3 --input metrics.csv --config config.json --out-dir DIR [--krippendorff-alpha-mode MODE] [--force]
    qra-widgets export-qra3 STUDY... --out-dir DIR [--db PATH] [--force]   # study files or library ids -> QRA3 input
    qra-widgets app [--port N] [--no-browser] [--db PATH]   # the dashboard, served by Voila
    qra-widgets export-all FOLDER [--db PATH]                # back up every study and revision
    qra-widgets import-all FOLDER [--db PATH]                # restore such a backup
    qra-widgets import PATH... [--db PATH]                   # many studies: folders, zips, QRA3 pairs, long CSVs
    qra-widgets site LIBRARY_OR_FOLDER --out DIR             # a static website of every study (offline)
    qra-widgets sensitivity STUDY --published 12.01 --quality-criterion C --system S [--config QRA3_CONFIG]
    qra-widgets atlas list | fetch [--mirror DIR | --base-url URL] | build [--db LIBRARY] | site --out DIR  [--cache DIR]

Every failure (bad input, a missing or unreadable file, a damaged or read-only library, a
full disk, a partial restore, and any unexpected error) is one line on stderr naming the
file and the problem, with exit status 2, never a traceback.  ``qra-widgets --debug ...``
(or ``QRA_WIDGETS_DEBUG=1``) adds the traceback of an unexpected error.
"""

from __future__ import annotations

import argparse
import sys

from .errors import QRAInputError

FORMATS = ("markdown", "csv", "latex", "json", "narrative")


def _report(args: argparse.Namespace) -> str:
    from . import examples
    from .assess import assess

    if (args.file is None) == (args.example is None):
        raise QRAInputError("report: give either a study FILE or --example NAME")
    study = (
        examples.load(args.example)
        if args.example
        else _study_file(args.file, args.labels, args.data_root, getattr(args, "scale_min", None))
    )
    with_results = {e for (_q, _s, e) in study.scores} | study.labels.experiments()  # labels: Type III
    if len(with_results) < 2:
        from .conventions import conventions_for
        from .report.one_experiment import one_experiment_report

        return one_experiment_report(study, args.format, conventions_for(study, args.conventions))
    result = _assess_with_progress(assess, study, args)
    if args.format == "narrative":
        return "\n\n".join(result.narrative(qc, system) for qc, system in result.cv) + "\n"
    return {"markdown": result.to_markdown, "csv": result.to_csv, "latex": result.to_latex, "json": result.to_json}[
        args.format
    ]()


def _study_file(path, labels, data_root, scale_min=None):
    """The study in a study file or annotation spec, its JSON read and parsed once."""
    from pathlib import Path

    from .io import load_study

    path = Path(path)
    if path.suffix.lower() != ".json":
        return load_study(path, labels=labels, scale_min=scale_min)
    from .io import study_from_dict
    from .io.annotations import SCHEMA, load_annotations
    from .io.reading import load_json, read_bytes

    data = load_json(read_bytes(path), path.name)
    if isinstance(data, dict) and data.get("schema") == SCHEMA:
        return load_annotations(data, base=data_root if data_root is not None else path.parent)
    study = study_from_dict(data)
    if labels is not None:
        from .io.tables import LABEL_COLUMNS, add_labels_table, read_table

        add_labels_table(study, read_table(read_bytes(labels), Path(labels).name, LABEL_COLUMNS), Path(labels).name)
    return study


def _qra3(args: argparse.Namespace) -> str:
    """Like the organisers' QRA3 command: DIR/<study>/table.csv, table.tex, data.json, references.bib, config.json."""
    from pathlib import Path

    from .qra3 import read_qra3, write_outputs

    studies = read_qra3(args.input, args.config, krippendorff_alpha_mode=args.krippendorff_alpha_mode)
    write_outputs(studies, args.out_dir, force=args.force, source=Path(args.input).name)
    return "".join(f"wrote {Path(args.out_dir) / study.id}\n" for study in studies)


def _export_qra3(args: argparse.Namespace) -> str:
    """Study files or library ids -> QRA3 metrics.csv + config.json, to hand to the organisers."""
    from .library_actions import studies_named
    from .qra3 import export_files

    written = export_files(studies_named(args.studies, args.db), args.out_dir, force=args.force)
    return "".join(f"wrote {path}\n" for path in written)


def _conventions_argument(text: str):
    """``--conventions`` through :func:`qra_widgets.io.options.parse_conventions` (argparse
    reports its QRAInputError as a usage error naming the option)."""
    from .io.options import parse_conventions

    try:
        return parse_conventions(text)
    except QRAInputError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _scale_min_argument(text: str):
    """``--scale-min`` through :func:`qra_widgets.io.options.parse_scale_min`."""
    from .io.options import parse_scale_min

    try:
        return parse_scale_min(text)
    except QRAInputError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _is_annotation_spec(path) -> bool:
    from .io.annotations import is_spec

    return is_spec(path)


def _assess_with_progress(assess, study, args: argparse.Namespace):
    """assess(), with a bootstrap and a tqdm progress bar on stderr when --bootstrap B is given."""
    from .limits import check_bootstrap, check_seed

    conventions = args.conventions
    seed = None if args.seed is None else check_seed(_whole_number(args.seed, "--seed"), "--seed")
    if not args.bootstrap:
        return assess(study, conventions)
    check_bootstrap(study, args.bootstrap, seed, args.max_work, what="--bootstrap")  # before the progress bar
    from tqdm import tqdm

    with tqdm(total=args.bootstrap, desc="bootstrap", unit="replicate", file=sys.stderr, leave=False) as bar:
        return assess(
            study,
            conventions,
            bootstrap=args.bootstrap,
            seed=seed,
            ci=args.ci,
            ci_method=args.ci_method,
            resample=args.resample,
            progress=lambda done: bar.update(done - bar.n),
            max_work=args.max_work,
        )


def _whole_number(text: str, option: str) -> int:
    """An option's text as a whole number, else a one-line refusal naming the option."""
    from .limits import check_seed, shown

    try:
        return int(text.strip())
    except ValueError:
        check_seed(str(text), option) if option == "--seed" else None
        raise QRAInputError(f"{option}: must be a whole number, got {shown(text, 30)}") from None


def _max_work(text: str) -> int:
    """``--max-work N``: a whole number of at least 1 (argparse type)."""
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text[:30]!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _examples(_args: argparse.Namespace) -> str:
    from . import examples

    return "".join(f"{name}\t{title}\n" for name, title in examples.titles().items())


APP_MODULES = ("ipywidgets", "plotly", "voila", "ipykernel", "psutil")


def _require_app_extra() -> None:
    """The dashboard needs the [app] extra; say how to get it instead of failing on an import."""
    from importlib.util import find_spec

    def installed(name: str) -> bool:
        try:
            return find_spec(name) is not None
        except (ImportError, ValueError):  # a broken or half-removed installation
            return False

    missing = [name for name in APP_MODULES if not installed(name)]
    if missing:
        raise QRAInputError(
            f"the dashboard needs {', '.join(missing)}, which this installation lacks; "
            "install the app extra: pip install 'qra-widgets[app]'"
        )


def _app(args: argparse.Namespace) -> str:
    """Serve the dashboard with Voila until SIGTERM/SIGINT, which stop Voila and all its kernels.

    Voila shuts its kernels down when it gets SIGTERM; this process passes SIGTERM and SIGINT on,
    and if Voila has not exited after :data:`STOP_SECONDS` it kills Voila and every process
    Voila started (kernels run in sessions of their own, so they are listed before the kill).
    """
    import os
    import signal
    import subprocess

    _require_app_extra()
    from .serve import FILL_DELAY, POOL_SIZE, allowed_hosts, voila_command
    from .store import default_path

    environment = dict(os.environ)
    if args.db:
        environment["QRA_WIDGETS_DB"] = str(args.db)
    library = environment.get("QRA_WIDGETS_DB") or default_path()
    command = voila_command(
        args.port,
        args.no_browser,
        args.host,
        POOL_SIZE if args.pool_size is None else args.pool_size,
        fill_delay=FILL_DELAY if args.fill_delay is None else args.fill_delay,
        allow_hosts=args.allow_host or (),
    )
    print(
        f"qra-widgets: serving on http://{args.host}:{args.port}/ (library: {library}); answering to host names "
        f"{', '.join(sorted(allowed_hosts(args.allow_host or ())))}",
        file=sys.stderr,
    )
    voila = subprocess.Popen(command, env=environment)
    stopping: list[int] = []

    def stop(signum, _frame):
        stopping.append(signum)
        if voila.poll() is None:
            voila.send_signal(signal.SIGTERM)

    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        while voila.poll() is None and not stopping:
            try:
                voila.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                continue
        if stopping:
            _stop_tree(voila, STOP_SECONDS)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if voila.returncode not in (0, None) and not stopping:
        raise QRAInputError(f"app: Voila exited with status {voila.returncode} (its messages are above)")
    return ""


STOP_SECONDS = 4.0


def _stop_tree(process, timeout: float) -> None:
    """Wait up to ``timeout`` s for ``process`` (already sent SIGTERM); then kill it and what it started."""
    import subprocess

    import psutil

    try:
        descendants = psutil.Process(process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        descendants = []
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    for child in descendants:  # kernels Voila did not shut down in time
        try:
            child.kill()
        except psutil.NoSuchProcess:
            continue
    psutil.wait_procs(descendants, timeout=1)


def _export_all(args: argparse.Namespace) -> str:
    from .store import StudyLibrary

    library = StudyLibrary(args.db)
    written = library.export_all(args.folder)
    return f"exported {len(written)} studies (every revision) from {library.path} to {args.folder}\n"


class PartialFailure(QRAInputError):
    """Some of the work was done (``output`` says what), the rest was refused: exit 2."""

    def __init__(self, message: str, output: str):
        super().__init__(message)
        self.output = output


def _import_all(args: argparse.Namespace) -> str:
    """Restore every backup file in FOLDER; studies already in the library are left as they are.

    Every file is read and checked before anything is written.  A folder with two files for
    the same study id is ambiguous and refused as a whole (which one is the real backup?).
    If any file is refused, the others are still restored and the exit status is 2.
    """
    from pathlib import Path

    from .store import LibraryError, StudyLibrary, read_backup

    folder = Path(args.folder)
    if not folder.is_dir():
        raise QRAInputError(f"{folder}: {'is a file, not' if folder.exists() else 'no such'} backup folder")
    files = sorted(folder.glob("*.json"))
    if not files:
        raise QRAInputError(f"{folder}: no backup files (*.json) to restore")
    backups, refused, by_id = {}, [], {}
    for path in files:
        try:
            backups[path] = read_backup(path)
        except QRAInputError as error:
            refused.append(str(error))
            continue
        by_id.setdefault(backups[path]["id"], []).append(path)
    ambiguous = {study_id: paths for study_id, paths in by_id.items() if len(paths) > 1}
    if ambiguous:
        study_id, paths = next(iter(ambiguous.items()))
        raise QRAInputError(
            f"{folder}: ambiguous backup: {', '.join(p.name for p in paths)} all hold study {study_id!r}"
            f"{f' (and {len(ambiguous) - 1} more ids repeat)' if len(ambiguous) > 1 else ''}; "
            "move the stray files out of the folder; nothing was restored"
        )
    library = StudyLibrary(args.db)
    restored = []
    summary = lambda: f"restored {len(restored)} of {len(files)} studies (every revision) into {library.path}\n"
    for path, backup in backups.items():
        try:
            restored.append(library.restore_backup(backup, path.name))
        except LibraryError as error:  # the library itself, not this file: stop here
            raise PartialFailure(f"{error} (stopped at {path.name})", summary() if restored else "") from None
        except QRAInputError as error:
            refused.append(str(error))
    if refused:
        raise PartialFailure(
            f"not restored: {len(refused)} of {len(files)} backup files: " + "; ".join(refused), summary()
        )
    return summary()


def _import(args: argparse.Namespace) -> str:
    """Import studies from files, folders and zips; report added / already existed / refused / skipped.

    The report goes to stdout, every study and every file not imported on a line of its own.
    When anything was refused the exit status is 2 and stderr has the one-line summary."""
    from .bulk import import_paths
    from .store import StudyLibrary

    report = import_paths(StudyLibrary(args.db), args.paths, data_root=args.data_root, scale_min=args.scale_min)
    if report.refused:
        raise PartialFailure(
            f"import: {report.headline()} (the refused files are listed above with the reasons)", report.summary()
        )
    return report.summary()


def _site(args: argparse.Namespace) -> str:
    from .report.site import build_site

    written = build_site(args.source, args.out)
    return f"wrote {len(written)} files to {args.out}; open {args.out}/index.html (works offline)\n"


def _sensitivity(args: argparse.Namespace) -> str:
    from .io import load_study
    from .report.sensitivity import sensitivity_report
    from .sensitivity import check_published, sensitivity

    check_published(args.published)  # before any file is read: a finite number of at most 30 characters
    if args.config:
        from .qra3 import read_qra3

        studies = read_qra3(args.study, args.config)
        if len(studies) != 1:
            raise QRAInputError(f"{args.study}: holds {len(studies)} studies; sensitivity takes one")
        study = studies[0]
    elif str(args.study).lower().endswith(".json") and _is_annotation_spec(args.study):
        from pathlib import Path

        from .io.annotations import load_annotations, load_spec
        from .sensitivity import optional_exclude_variants

        spec = load_spec(args.study)
        variants = optional_exclude_variants(
            spec, lambda copied: load_annotations(copied, base=Path(args.study).parent)
        )
        frame = sensitivity(
            variants["none"],
            published=args.published,
            quality_criterion=args.quality_criterion,
            system=args.system,
            variants=variants if len(variants) > 1 else None,
        )
        return sensitivity_report(frame, args.format)
    else:
        study = load_study(args.study)
    frame = sensitivity(study, published=args.published, quality_criterion=args.quality_criterion, system=args.system)
    return sensitivity_report(frame, args.format)


def _atlas(args: argparse.Namespace) -> str:
    from . import atlas

    families = args.family or None
    if args.atlas_command == "list":
        lines = []
        for family in atlas.load_manifest()["families"]:
            files = sum(len(s["files"]) for s in family["sources"])
            licences = "; ".join(f"{s['repository']}: {s['licence']}" for s in family["sources"])
            lines.append(
                f"{family['id']}: {family['title']} ({len(family['reproductions'])} reproduction(s), "
                f"{files} files, {len(family['published'])} published numbers; licence {licences})"
            )
        return "\n".join(lines) + "\n"
    if args.atlas_command == "fetch":
        fetched = atlas.fetch(
            cache=args.cache,
            mirror=args.mirror,
            base_url=args.base_url,
            families=families,
            deadline=args.deadline,
            max_file_bytes=args.max_file_bytes,
        )
        return f"{len(fetched)} files verified (sha256) in {args.cache or atlas.default_cache()}\n"
    if args.atlas_command == "build":
        refused: list[str] = []  # a family whose cached file fails its sha256 (or is a link): named, exit 2
        results = atlas.build(cache=args.cache, db=args.db, families=families, refused=refused)
        lines = [check.line() for result in results for check in result.checks]
        bad = [r.family["id"] for r in results if not r.reproduced]
        lines.append(
            f"{len(results) - len(bad)} of {len(results)} families reproduce every published number"
            + (f"; not: {', '.join(bad)}" if bad else "")
        )
        if refused:
            raise PartialFailure(f"atlas build: {'; '.join(refused)}", "\n".join(lines + refused) + "\n")
        if bad:
            raise PartialFailure(
                f"atlas build: {', '.join(bad)} differ from their published numbers", "\n".join(lines) + "\n"
            )
        return "\n".join(lines) + "\n"
    from .atlas.site import build_atlas_site

    written = build_atlas_site(args.out, cache=args.cache, families=families)
    return f"wrote {len(written)} files to {args.out}; open {args.out}/index.html (works offline)\n"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="qra-widgets", description="Quantified reproducibility assessment (QRA++) of NLP results."
    )
    parser.add_argument(
        "--debug", action="store_true", help=f"print the traceback of an unexpected error (or set {DEBUG_ENV}=1)"
    )
    from .version import __version__

    parser.add_argument("--version", action="version", version=f"qra-widgets {__version__}")
    for name, text in READ_LIMITS.items():  # before the command: qra-widgets --max-systems 20000 report ...
        parser.add_argument(f"--{name.replace('_', '-')}", type=_max_work, default=None, metavar="N", help=text)
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser(
        "report", help="assess a study file (or an annotation spec) and print the QRA++ results"
    )
    report.add_argument("file", nargs="?", help="study file: .json, long .csv or .xlsx; or an annotation spec (.json)")
    report.add_argument(
        "--data-root",
        metavar="DIR",
        help="folder an annotation spec's files are read under (default: the spec's own folder); "
        "nothing outside it is read",
    )
    report.add_argument(
        "--labels", help="long CSV of Type III labels (experiment, quality_criterion, system, item, label)"
    )
    report.add_argument(
        "--scale-min",
        type=_scale_min_argument,
        default=None,
        metavar="NUMBER|QC=NUMBER,...",
        help="scale minimum of a scores table without a scale_min column: a number for every criterion, "
        "or CRITERION=NUMBER,... (never assumed to be 0)",
    )
    report.add_argument(
        "--example", help="assess a bundled paper example instead of a file (see `qra-widgets examples`)"
    )
    report.add_argument("--format", choices=FORMATS, default="markdown", help="output format (default: markdown)")
    report.add_argument(
        "--conventions",
        type=_conventions_argument,
        default=None,
        metavar="NAME|JSON|FILE.json",
        help="conventions: a preset (qrapp, qra3), a JSON object such as "
        '\'{"name": "qrapp", "scale_shift": false}\' (name = the preset the other fields '
        "override), or a .json file of either (default: the study's own, else qrapp)",
    )
    report.add_argument(
        "--bootstrap",
        type=int,
        default=0,
        metavar="B",
        help="add confidence intervals from B bootstrap replicates (e.g. 2000)",
    )
    report.add_argument(
        "--seed", default=None, help="random seed of the bootstrap, a whole number >= 0 (same seed, same intervals)"
    )
    report.add_argument(
        "--max-work",
        type=_max_work,
        default=None,
        metavar="N",
        help="raise the limit on the bootstrap's size (replicates x ratings; default 500,000,000; see docs/serving.md)",
    )
    report.add_argument("--ci", type=float, default=0.95, help="interval coverage (default 0.95)")
    report.add_argument("--ci-method", choices=("percentile", "bca"), default="percentile", help="bootstrap interval")
    report.add_argument(
        "--resample",
        choices=("items", "items+raters", "systems"),
        default="items",
        help="what the bootstrap resamples (default: items; systems when there are only scores)",
    )
    report.set_defaults(run=_report)
    from .planning import add_plan_command  # `plan`: its options and its run live with the planner

    add_plan_command(commands)
    qra3 = commands.add_parser(
        "qra3", help="run QRA3 on metrics.csv + config.json, writing QRA3's table.csv, table.tex, data.json"
    )
    qra3.add_argument("--input", required=True, help="QRA3 metrics.csv (Key,Study,Experiment,System,Criterion,Result)")
    qra3.add_argument("--config", required=True, help="QRA3 config.json (per-study settings)")
    qra3.add_argument("--out-dir", required=True, help="output folder; one sub-folder per study")
    qra3.add_argument(
        "--krippendorff-alpha-mode",
        choices=("nominal", "ordinal", "interval", "ratio"),
        default=None,
        help="Krippendorff's alpha level for Type III (default: the config's type_iii_krippendorff_alpha_mode)",
    )
    qra3.add_argument("--force", action="store_true", help="overwrite existing output")
    qra3.set_defaults(run=_qra3)
    to_qra3 = commands.add_parser("export-qra3", help="write studies as QRA3 metrics.csv + config.json")
    to_qra3.add_argument(
        "studies", nargs="+", metavar="STUDY", help="a study file (.json, .csv, .xlsx) or a library study id"
    )
    to_qra3.add_argument("--out-dir", required=True, help="folder for metrics.csv and config.json")
    to_qra3.add_argument("--db", help="study library file (default: $QRA_WIDGETS_DB or the user data directory)")
    to_qra3.add_argument("--force", action="store_true", help="overwrite existing files")
    to_qra3.set_defaults(run=_export_qra3)
    listing = commands.add_parser("examples", help="list the bundled paper example studies")
    listing.set_defaults(run=_examples)
    app = commands.add_parser("app", help="serve the dashboard in the browser (Voila), on loopback by default")
    app.add_argument("--port", type=int, default=8866)
    app.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: loopback only); it does not change which host names are answered",
    )
    app.add_argument(
        "--allow-host",
        action="append",
        metavar="NAME",
        help="also answer requests for this host name (exact, case-insensitive, port ignored; repeatable); "
        "always answered: localhost, 127.0.0.1, [::1]. See docs/serving.md",
    )
    app.add_argument("--no-browser", action="store_true", help="do not open a browser window")
    app.add_argument("--db", help="study library file (default: $QRA_WIDGETS_DB or the user data directory)")
    app.add_argument(
        "--pool-size",
        type=int,
        default=None,
        help="preheated kernels kept ready (default 2; 0 starts a kernel per page)",
    )
    app.add_argument(
        "--fill-delay",
        type=float,
        default=None,
        help="seconds before a handed-out preheated kernel is replaced (default 1); for a class "
        "opening the app at once, --pool-size 20 --fill-delay 60 keeps refills out of the rush",
    )
    app.set_defaults(run=_app)
    backup = commands.add_parser(
        "export-all", help="back up the study library: one JSON file per study, every revision"
    )
    backup.add_argument("folder")
    backup.add_argument("--db", help="study library file (default: $QRA_WIDGETS_DB or the user data directory)")
    backup.set_defaults(run=_export_all)
    restore = commands.add_parser(
        "import-all", help="restore an export-all backup folder into a library (existing studies are kept)"
    )
    restore.add_argument("folder")
    restore.add_argument("--db", help="study library file (default: $QRA_WIDGETS_DB or the user data directory)")
    restore.set_defaults(run=_import_all)
    bulk = commands.add_parser(
        "import", help="import many studies (files, folders, zips, QRA3 pairs, long CSVs with a study column)"
    )
    bulk.add_argument("paths", nargs="+", metavar="PATH")
    bulk.add_argument(
        "--data-root",
        metavar="DIR",
        help="folder the files named by an annotation spec given as PATH are read under (default: the spec's own folder)",
    )
    bulk.add_argument("--db", help="study library file (default: $QRA_WIDGETS_DB or the user data directory)")
    bulk.add_argument(
        "--scale-min",
        type=_scale_min_argument,
        default=None,
        metavar="NUMBER|QC=NUMBER,...",
        help="scale minimum of a scores table without a scale_min column: a number for every criterion, "
        "or CRITERION=NUMBER,... (never assumed to be 0)",
    )
    bulk.set_defaults(run=_import)
    site = commands.add_parser("site", help="write a static website (index + one page per study) that works offline")
    site.add_argument(
        "source", metavar="LIBRARY_OR_FOLDER", help="a library file (.sqlite3) or a folder of study files"
    )
    site.add_argument("--out", required=True, help="output folder")
    site.set_defaults(run=_site)
    sens = commands.add_parser(
        "sensitivity",
        help="the CV* of one system under every combination of the documented "
        "choices, and which reproduce a published value",
    )
    sens.add_argument(
        "study",
        metavar="STUDY",
        help="what `report` reads (a study file, a long CSV, an annotation spec), or a QRA3 metrics.csv with --config",
    )
    sens.add_argument("--published", required=True, help="the value as printed (its digits are the precision compared)")
    sens.add_argument("--quality-criterion", required=True)
    sens.add_argument("--system", required=True)
    sens.add_argument("--config", help="QRA3 config.json, when STUDY is a QRA3 metrics.csv")
    sens.add_argument(
        "--format", choices=("text", "html", "latex"), default="text", help="output format (default: text)"
    )
    sens.set_defaults(run=_sensitivity)
    atlas_parser = commands.add_parser(
        "atlas", help="the atlas of published original -> reproduction families: list, fetch, build, site"
    )
    atlas_commands = atlas_parser.add_subparsers(dest="atlas_command", required=True)
    from . import atlas as atlas_defaults

    atlas_help = {
        "list": "list the families of the manifest with their sources and licences",
        "fetch": "download every file at its pinned commit into the cache, verifying its sha256",
        "build": "recompute every family from the cache and check its published numbers",
        "site": "write the static atlas (one page per family, an index) from the cache",
    }
    for name, text in atlas_help.items():
        sub = atlas_commands.add_parser(name, help=text)
        sub.add_argument(
            "--cache", default=None, help="cache folder (default: the user's cache folder, qra-widgets/atlas)"
        )
        sub.add_argument("--family", action="append", help="only this family (repeatable)")
        if name == "fetch":
            where = sub.add_mutually_exclusive_group()
            where.add_argument("--mirror", help="copy from a local folder laid out <family>/<owner>__<repo>/<path>")
            where.add_argument("--base-url", help="download from this http(s) URL, laid out as the mirror")
            sub.add_argument(
                "--deadline",
                type=float,
                default=atlas_defaults.FETCH_DEADLINE,
                metavar="SECONDS",
                help=f"give the whole fetch up after this many seconds (default {atlas_defaults.FETCH_DEADLINE:.0f})",
            )
            sub.add_argument(
                "--max-file-bytes",
                type=_max_work,
                default=atlas_defaults.DOWNLOAD_CAP,
                metavar="N",
                help=f"refuse a file larger than this (default {atlas_defaults.DOWNLOAD_CAP:,} bytes)",
            )
        if name == "build":
            sub.add_argument("--db", help="also save each family's study into this library file")
        if name == "site":
            sub.add_argument("--out", required=True, help="output folder")
        sub.set_defaults(run=_atlas)
    return parser


DEBUG_ENV = "QRA_WIDGETS_DEBUG"
READ_LIMITS = {
    "max_systems": "raise the limit on systems per criterion and per study (default 10,000)",
    "max_spec_bytes": "raise the limit on the bytes one annotation spec parses, re-reads counted (default 200 MiB)",
    "max_experiments": "raise the limit on experiments per spec and per study (default 1,000)",
    "max_pairwise": "raise the limit on judgements x systems of a Bradley-Terry fit (default 25,000,000)",
}


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def main(argv: list[str] | None = None) -> int:
    """Run one command.  Every failure is one line on stderr and exit status 2, never a
    traceback; ``--debug`` (or ``QRA_WIDGETS_DEBUG=1``) adds the traceback of an
    unexpected error."""
    import os

    args = build_parser().parse_args(argv)
    debug = args.debug or os.environ.get(DEBUG_ENV, "") not in ("", "0")
    try:
        from .limits import raised

        with raised(**{name: getattr(args, name) for name in READ_LIMITS if getattr(args, name) is not None}):
            output = args.run(args)
        sys.stdout.write(output)
        sys.stdout.flush()
    except PartialFailure as error:
        sys.stdout.write(error.output)
        print(f"qra-widgets: {_one_line(error)}", file=sys.stderr)
        return 2
    except QRAInputError as error:
        print(f"qra-widgets: {_one_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("qra-widgets: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `qra-widgets report ... | head`: the reader has all it wants
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:  # the disk, not the input: a full disk, a closed pipe, a permission
        if debug:
            import traceback

            traceback.print_exc()
        where = f"{error.filename}: " if error.filename else ""
        print(f"qra-widgets: {where}{_one_line(error.strerror or error)}", file=sys.stderr)
        return 2
    except Exception as error:  # noqa: BLE001 - the promise: one line and exit 2, never a traceback
        if debug:
            import traceback

            traceback.print_exc()
        hint = "" if debug else f" (run with --debug or {DEBUG_ENV}=1 for details)"
        print(f"qra-widgets: unexpected error {type(error).__name__}: {_one_line(error)[:300]}{hint}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
