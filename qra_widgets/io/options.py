"""What the command line reads from its options: conventions given as a preset, JSON or a file."""

from __future__ import annotations

from ..conventions import PRESETS, QRA3, Conventions  # noqa: F401 (QRA3 is named in the doctest)
from ..errors import QRAInputError, finite_number


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
    raise QRAInputError(
        f"--conventions: {text[:40]!r} is not a preset ({', '.join(PRESETS)}), a JSON object or a "
        f".json file" + (f"; did you mean {close[0]!r}?" if close else "")
    )


def parse_scale_min(text: str | None) -> float | dict[str, float] | None:
    """``--scale-min``: one number for every criterion of a scores table (``1``), or
    ``CRITERION=NUMBER`` pairs separated by commas (``Fluency=1,Accuracy=0``).

    >>> parse_scale_min("1"), parse_scale_min("Fluency=1, Accuracy=0")
    (1.0, {'Fluency': 1.0, 'Accuracy': 0.0})
    """
    if text is None:
        return None

    def number(value: str, where: str) -> float:
        said = f"--scale-min: {where}{value.strip()[:40]!r} is not a"
        return finite_number(value, f"{said} number", f"{said} finite number")

    if "=" not in text:
        return number(text, "")
    pairs = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise QRAInputError(f"--scale-min: write NUMBER or CRITERION=NUMBER,..., got {part.strip()[:40]!r}")
        pairs[name.strip()] = number(value, f"{name.strip()[:40]}=")
    return pairs
