"""What is done to a study library as a whole, or to a study as files, for the app's Library tab
and the command line alike: import files into the library, save the evaluation type and QCET
criterion of what came in, and write a study (or every study of the library) as QRA3 input files
or as the one-file HTML report.

None of this edits the study being worked on, so none of it is an
:class:`~qra_widgets.widgets.state.AppState` command: the app's views call these with
``state.library`` and ``state.study``, and the commands that change the open study stay in
the state.  ``library`` is a :class:`~qra_widgets.store.StudyLibrary`.

>>> import json, tempfile, pathlib
>>> from qra_widgets.store import StudyLibrary
>>> library = StudyLibrary(pathlib.Path(tempfile.mkdtemp()) / "library.sqlite3")
>>> values = [("O", "A", 4.2), ("O", "B", 3.1), ("R1", "A", 4.0), ("R1", "B", 3.3)]
>>> metrics = "Key,Study,Experiment,System,Criterion,Result\\n" + "".join(
...     f"Demo,Demo,{e},{s},Fluency,{v}\\n" for e, s, v in values)
>>> config = {"Demo": {"scale_starts_at": 1, "experiments": {"O": "original", "R1": "repeat"}, "citation": "original",
...           "criteria": {"F": {"map": "Fluency", "apply_over_correction": False, "normal_data": True}}}}
>>> import_qra3(library, metrics.encode(), json.dumps(config).encode()).added
[('metrics.csv + config.json', 'Demo')]
>>> files, count = library_qra3_files(library)
>>> count, files["metrics.csv"].splitlines()[1]
(1, 'Demo,Demo,O,A,Fluency,4.2')
"""

from __future__ import annotations

from .bulk import ImportReport, add_studies, import_bytes
from .errors import QRAInputError
from .io.qra3 import read_qra3_bytes
from .report.qra3 import export_texts


def import_qra3(
    library,
    metrics: bytes,
    config: bytes,
    names: tuple[str, str] = ("metrics.csv", "config.json"),
    renames: dict[str, str] | None = None,
) -> ImportReport:
    """Import every study of a QRA3 ``metrics.csv`` + ``config.json`` into ``library``.

    A study whose id the library already holds (deleted ones included) is not saved, and is
    reported under ``existed``: nothing is overwritten.  ``renames`` ({id in the files: new id})
    imports such a study under a new id instead (the app offers one); with ``renames`` only the
    renamed studies are imported.  Unreadable files raise :class:`QRAInputError` (naming the
    file, row, column or key) and import nothing.
    """
    metrics_name, config_name = names
    studies = read_qra3_bytes(metrics, config, metrics_name=metrics_name, config_name=config_name)
    if renames:
        studies = [study for study in studies if study.id in renames]
        for study in studies:
            study.id = renames[study.id]
    return add_studies(library, studies, f"{metrics_name} + {config_name}")


def import_files(library, named_bytes: dict[str, bytes]) -> ImportReport:
    """Import many uploaded files (study files, zips, QRA3 pairs, annotation specs, a long CSV with a
    ``study`` column) into ``library`` (:func:`qra_widgets.bulk.import_bytes`).  Never raises for one
    bad file: the report says what was added, refused (and why) and already existed."""
    if not named_bytes:
        raise QRAInputError("import: choose one or more files first")
    return import_bytes(library, named_bytes)


def classify(library, answers: dict) -> dict[str, int]:
    """Save ``{study id: {criterion: (evaluation type, QCET id)}}`` as new library revisions
    (:func:`qra_widgets.overview.classify_criteria`); returns ``{study id: new revision}``."""
    from .overview import classify_criteria

    return {study_id: classify_criteria(library, study_id, criteria) for study_id, criteria in answers.items()}


def studies_named(names, library_path=None) -> list:
    """The studies ``names`` stand for, in order: each a study file (``.json``, ``.csv``, ``.xlsx``;
    :func:`qra_widgets.io.load_study`) or the id of a study in the library at ``library_path``
    (default: ``$QRA_WIDGETS_DB`` or the user data directory; opened only when an id is given)."""
    from pathlib import Path

    from .io import load_study

    studies, library = [], None
    for name in names:
        if Path(name).exists() or Path(name).suffix.lower() in (".json", ".csv", ".xlsx"):
            studies.append(load_study(name))
            continue
        if library is None:
            from .store import StudyLibrary

            library = StudyLibrary(library_path)
        try:
            studies.append(library.open(name))
        except KeyError:
            raise QRAInputError(f"{name}: neither a study file nor a study id in the library {library.path}") from None
    return studies


def study_qra3_files(study) -> dict[str, str]:
    """``study`` as QRA3 ``{"metrics.csv": text, "config.json": text}`` (:func:`qra_widgets.qra3.export`)."""
    if not study.scores:
        raise QRAInputError("QRA3 files: the study has no scores yet")
    return export_texts([study])


def library_qra3_files(library) -> tuple[dict[str, str], int]:
    """The latest revision of every (not deleted) library study with scores, as one QRA3
    ``metrics.csv`` + ``config.json``; and how many studies they hold."""
    studies = [study for study in (library.open(s.id) for s in library.list()) if study.scores]
    if not studies:
        raise QRAInputError("QRA3 files: the library has no study with scores yet")
    return export_texts(studies), len(studies)


def report_html(study, assessment, problem: str = "") -> str:
    """``study``'s report page (:func:`qra_widgets.report.site.study_page_html`) with ``assessment``
    (the one the app shows, with its conventions): one self-contained offline HTML file.  Without
    an assessment, :class:`QRAInputError` says why (``problem``)."""
    from .report.site import study_page_html

    if assessment is None:
        raise QRAInputError("report: nothing to report yet" + (f" ({problem})" if problem else ""))
    return study_page_html(study, assessment=assessment)


__all__ = [
    "classify",
    "import_files",
    "import_qra3",
    "library_qra3_files",
    "report_html",
    "studies_named",
    "study_qra3_files",
]
