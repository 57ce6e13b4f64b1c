"""The dashboard: thin ipywidgets forms over the study model, ``assess`` and ``charts``.

``Dashboard()`` (or ``Dashboard(study)``) shows the whole app in JupyterLab; ``app.ipynb``
serves the same object through Voilà (``qra-widgets app``).
"""

from .dashboard import Dashboard

__all__ = ["Dashboard"]
