"""How to cite qra-widgets and the methods it implements: one line every report carries.

>>> "CITATION.cff" in cite_line() and "Belz, Popović & Mille (2022)" in cite_line()
True
"""

from __future__ import annotations

METHODS = (
    "Belz, Popović & Mille (2022), Quantified Reproducibility Assessment of NLP Results, ACL 2022; "
    "Belz (2025), QRA++: Quantified Reproducibility Assessment for Common Types of Results in NLP"
)


def cite_line() -> str:
    """``Cite qra-widgets <version> (CITATION.cff) and the method papers: ...``."""
    from .version import __version__

    return f"Cite qra-widgets {__version__} (CITATION.cff) and the method papers: {METHODS}."
