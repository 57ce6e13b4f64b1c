"""What the command line reads from its options: conventions given as a preset, JSON or a file."""

from __future__ import annotations

from ..conventions import PRESETS, QRA3, Conventions  # noqa: F401 (QRA3 is named in the doctest)
from ..errors import QRAInputError


def parse_conventions(text: str) -> Conventions:
    """Conventions from the command line: a preset name (``qra3``), a JSON object
    (``{"name": "qrapp", "scale_shift": false}``: ``name`` is the preset the other fields
    override), or the path of a JSON file holding either.

    >>> parse_conventions('{"name": "qrapp", "scale_shift": false}').stamp()
    'qrapp+scale_shift=false'
    >>> parse_conventions("qra3") is QRA3
    True
    """
    from pathlib import Path

    from .reading import load_json, read_bytes

    text = text.strip()
    if text in PRESETS:
        return PRESETS[text]
    if text.startswith(("{", '"')):
        return Conventions.from_dict(load_json(text, "--conventions"), "--conventions")
    path = Path(text)
    if path.suffix.lower() == ".json":
        if not path.is_file():
            raise QRAInputError(f"--conventions: no such file {text[:80]!r}")
        return Conventions.from_dict(load_json(read_bytes(path), path.name), path.name)
    import difflib

    close = difflib.get_close_matches(text, list(PRESETS), n=1)
    raise QRAInputError(f"--conventions: {text[:40]!r} is not a preset ({', '.join(PRESETS)}), a JSON object or a "
                        f".json file" + (f"; did you mean {close[0]!r}?" if close else ""))
