"""QRA3 files in and out, in one namespace: the organisers' ``metrics.csv`` + ``config.json`` read
into studies (:mod:`qra_widgets.io.qra3`), QRA3's computation of ``data.json``
(:mod:`qra_widgets.report.qra3_results`), and its output files and the export back to QRA3 input
(:mod:`qra_widgets.report.qra3`).

>>> from qra_widgets import qra3
>>> sorted(qra3.OUTPUT_FILES)
['config.json', 'data.json', 'references.bib', 'table.csv', 'table.tex']
"""

from __future__ import annotations

from .io.qra3 import (
    ALPHA_MODES,
    METRICS_COLUMNS,
    OUTPUT_FILES,
    check_config,
    conventions_for,
    metrics_from_text,
    read_config,
    read_metrics,
    read_qra3,
    read_qra3_bytes,
    study_conventions,
)
from .report.qra3 import (
    export,
    export_files,
    output_config,
    outputs,
    references_bib,
    table_csv,
    table_tex,
    write_outputs,
)
from .report.qra3_results import qra3_order, results

__all__ = [
    "ALPHA_MODES",
    "METRICS_COLUMNS",
    "OUTPUT_FILES",
    "check_config",
    "conventions_for",
    "export",
    "export_files",
    "metrics_from_text",
    "output_config",
    "outputs",
    "qra3_order",
    "read_config",
    "read_metrics",
    "read_qra3",
    "read_qra3_bytes",
    "references_bib",
    "results",
    "study_conventions",
    "table_csv",
    "table_tex",
    "write_outputs",
]
