"""Every reader: from the files people give qra-widgets to a :class:`~qra_widgets.Study`.

One module per format, all reading bytes through :mod:`qra_widgets.io.reading` (sizes,
zip bombs, row and column caps, strict JSON):

* :mod:`~qra_widgets.io.study_json` -- the native study JSON (and its atomic save);
* :mod:`~qra_widgets.io.tables` -- long score and label tables (CSV, TSV, Excel), ``load_study``;
* :mod:`~qra_widgets.io.annotations` -- annotation specs and item-level annotation files;
* :mod:`~qra_widgets.io.heds` -- HEDS 2 and 3.0 datasheets;
* :mod:`~qra_widgets.io.parse` -- what people type or paste into the app.

Every problem raises :class:`~qra_widgets.QRAInputError` naming the file, row, column or field.
Writers of results are :mod:`qra_widgets.report`.
"""

from __future__ import annotations

from .study_json import (
    SCHEMA,
    SCHEMA_VERSION,
    atomic_write_text,
    save_study,
    study_from_dict,
    study_from_json,
    study_to_dict,
    study_to_json,
)
from .tables import (
    LABEL_COLUMNS,
    SCORE_COLUMNS,
    add_labels_table,
    load_study,
    merge_scores_table,
    read_table,
    study_from_scores_table,
)

__all__ = [
    "LABEL_COLUMNS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "SCORE_COLUMNS",
    "add_labels_table",
    "atomic_write_text",
    "load_study",
    "merge_scores_table",
    "read_table",
    "save_study",
    "study_from_dict",
    "study_from_json",
    "study_from_scores_table",
    "study_to_dict",
    "study_to_json",
]
