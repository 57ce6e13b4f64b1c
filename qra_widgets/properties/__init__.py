"""Experiment properties (QRA++ section 4, Table 1, Appendix A) and the QCET criterion taxonomy.

The 22 properties are data (``catalogue.json``): the four general ones (``G.*``) and 18
HEDS 3.0 questions (``H2.1`` ... ``H4.3.8``), each with our own wording of the question,
its answer kind, the full option list of Appendix A, whether it applies to human
evaluation only, and whether it is answered per quality criterion.

An experiment stores answers in ``Experiment.properties``: ``{property id: value}``, where
a per-criterion property's value is ``{criterion name: value}``.  Values: ``str`` for text
and single choice, ``list[str]`` for multiple choice, ``int`` for integer.  A choice
outside the option list is written ``"Other: <text>"`` for properties that have an
"other" option.

The QCET taxonomy (v3.4.1: ids, names, tree) is the picker for H4.3.1.2; definitions are
at https://qcet.github.io (we ship ids and names only).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from ..errors import QRAInputError

KINDS = ("single", "multiple", "integer", "text")
QCET_URL = "https://qcet.github.io"


@dataclass(frozen=True)
class Property:
    """One experiment property (a condition of measurement)."""

    id: str
    name: str
    question: str
    kind: str
    options: tuple[str, ...]
    human_only: bool
    per_criterion: bool
    heds_question: str | None = None

    @property
    def has_other(self) -> bool:
        return any("please describe" in o or "please explain" in o for o in self.options)

    def check(self, value: Any, where: str = "") -> Any:
        """Validate one answer (for a per-criterion property: the answer for one criterion)."""
        where = where or self.id
        if self.kind == "integer":
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                raise QRAInputError(f"{where}: expected a whole number, got {value!r}")
            if isinstance(value, int) and value < 0:
                raise QRAInputError(f"{where}: must not be negative, got {value}")
            return value  # a str is HEDS's free-text explanation when the number varies
        if self.kind == "text":
            if not isinstance(value, str):
                raise QRAInputError(f"{where}: expected text, got {value!r}")
            return value
        choices = [value] if self.kind == "single" else value
        if self.kind == "multiple" and not isinstance(value, list):
            raise QRAInputError(f"{where}: expected a list of options, got {value!r}")
        for choice in choices:
            self._check_choice(choice, where)
        return value

    def _check_choice(self, choice: Any, where: str) -> None:
        if not isinstance(choice, str):
            raise QRAInputError(f"{where}: expected an option label, got {choice!r}")
        if choice in self.options or (self.has_other and choice.startswith("Other: ")):
            return
        raise QRAInputError(f"{where}: {choice!r} is not an option of {self.id} ({self.name})")


def _resource(name: str) -> str:
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class QCETNode:
    """A node of the QCET quality-criterion taxonomy."""

    id: str
    name: str
    parent: str | None
    depth: int

    @property
    def label(self) -> str:
        return f"{self.name} ({self.id})"


@lru_cache(maxsize=1)
def qcet_taxonomy() -> dict[str, QCETNode]:
    """QCET v3.4.1, id -> node, in tree (depth-first) order."""
    rows = csv.DictReader(_resource("qcet_taxonomy_v3.4.1.csv").splitlines())
    return {r["qcet_id"]: QCETNode(r["qcet_id"], r["name"], r["parent_id"] or None, int(r["depth"])) for r in rows}


def qcet_search(text: str, limit: int = 20) -> list[QCETNode]:
    """QCET nodes whose name or id contains ``text`` (case-insensitive), leaves first.

    >>> [n.id for n in qcet_search("fluen")]
    ['QOG-w-3']
    """
    needle = text.strip().lower()
    hits = [n for n in qcet_taxonomy().values() if needle in n.name.lower() or needle in n.id.lower()]
    return sorted(hits, key=lambda n: -n.depth)[:limit]


def _load() -> dict[str, Property]:
    data = json.loads(_resource("catalogue.json"))
    catalogue = {}
    for item in data["properties"]:
        options = tuple(item["options"])
        if item.get("options_from") == "qcet":
            options = tuple(node.label for node in qcet_taxonomy().values())
        catalogue[item["id"]] = Property(
            item["id"],
            item["name"],
            item["question"],
            item["kind"],
            options,
            item["human_only"],
            item["per_criterion"],
            item.get("heds_question"),
        )
    return catalogue


PROPERTIES: dict[str, Property] = _load()


def check_properties(values: dict, criteria: list[str] | None = None, where: str = "properties") -> dict:
    """Validate an experiment's answers against the catalogue; return them unchanged.

    Unknown ids are allowed only with an ``x-`` prefix (project-specific properties).
    """
    for property_id, value in values.items():
        if property_id.startswith("x-"):
            continue
        if property_id not in PROPERTIES:
            raise QRAInputError(
                f"{where}: unknown property {property_id!r}; use an id from the catalogue or prefix it with 'x-'"
            )
        prop = PROPERTIES[property_id]
        if prop.per_criterion:
            if not isinstance(value, dict):
                raise QRAInputError(
                    f"{where}.{property_id}: is answered per quality criterion: expected {{criterion: value}}"
                )
            for criterion, answer in value.items():
                if criteria is not None and criterion not in criteria:
                    raise QRAInputError(f"{where}.{property_id}: unknown quality criterion {criterion!r}")
                prop.check(answer, f"{where}.{property_id}[{criterion!r}]")
        else:
            prop.check(value, f"{where}.{property_id}")
    return values


__all__ = [
    "KINDS",
    "PROPERTIES",
    "QCET_URL",
    "Property",
    "QCETNode",
    "check_properties",
    "qcet_search",
    "qcet_taxonomy",
]
