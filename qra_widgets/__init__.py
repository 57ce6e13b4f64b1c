"""qra-widgets: quantified reproducibility assessment (QRA, QRA++) of NLP evaluation results.

Quick start::

    import qra_widgets as qw
    study = qw.load_study("paper_examples/studies/qrapp_example1.json")
    result = qw.assess(study)
    result.table()

scipy, pandas, plotly and ipywidgets load on first use, so ``import qra_widgets`` costs
little more than numpy.
"""

from __future__ import annotations

from .assess import Assessment, assess  # binds the name ``assess`` to the function, not the module
from .errors import QRAInputError, UndefinedMeasureWarning
from .io import load_study
from .io.annotations import load_annotations
from .io.heds import import_heds
from .io.qra3 import read_qra3
from .meta import consistency, forest, leave_one_out
from .overview import Overview, overview  # binds ``overview`` to the function, as for ``assess``
from .planning import plan_reproduction
from .ratings import icc
from .replication import replication_success
from .report import formats as _formats  # noqa: F401 (registers Assessment's writers: qra_widgets.writers)
from .study import Experiment, QualityCriterion, Study
from .version import __version__

__all__ = [
    "Assessment",
    "Dashboard",
    "Experiment",
    "Overview",
    "QRAInputError",
    "QualityCriterion",
    "Study",
    "UndefinedMeasureWarning",
    "__version__",
    "assess",
    "consistency",
    "forest",
    "icc",
    "import_heds",
    "leave_one_out",
    "load_annotations",
    "load_study",
    "overview",
    "plan_reproduction",
    "read_qra3",
    "replication_success",
]


def __getattr__(name: str):
    """``qra_widgets.Dashboard`` loads ipywidgets and plotly only when asked for."""
    if name == "Dashboard":
        from .widgets import Dashboard

        return Dashboard
    raise AttributeError(f"module 'qra_widgets' has no attribute {name!r}")
