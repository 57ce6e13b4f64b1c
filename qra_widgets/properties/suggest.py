"""A first guess at a quality criterion's evaluation type and QCET criterion, from its name.

Where a study enters without saying (a QRA3 ``metrics.csv``, a bulk import), the app asks
for both and offers this guess; the person confirms or changes it.  The guess is only a
suggestion: it is never stored unless confirmed.

* A well-known automatic metric (BLEU, chrF, ROUGE-L, BERTScore, COMET, SARI, F1, accuracy…)
  is ``metric``, with the QCET criterion it measures where that is clear (the paper
  examples' own: BLEU ``QTG-f-1``, SARI ``QTG-w-2``, weighted F1 ``QTC-w-1``).
* A name that mentions an LLM judge (``LLM``, ``GPT``, ``judge``, ``G-Eval``) is ``llm-as-judge``.
* Otherwise a name that matches a QCET criterion's name (``Fluency`` -> ``QOG-w-3``) suggests
  that criterion and ``human`` (quality criteria of this kind are usually rated by people).
* Anything else: ``unknown``, no QCET criterion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import qcet_taxonomy

#: Metric name (lower case, letters and digits only) -> QCET id, or None where the metric's QCET criterion is not clear.
METRICS = {
    "bleu": "QTG-f-1",
    "sacrebleu": "QTG-f-1",
    "chrf": "QTG-f-1",
    "chrf++": "QTG-f-1",
    "ter": "QTG-f-1",
    "meteor": "QTG-f-1",
    "nist": "QTG-f-1",
    "rouge": "QTG-f-1",
    "rouge1": "QTG-f-1",
    "rouge2": "QTG-f-1",
    "rougel": "QTG-f-1",
    "cider": "QTG-f-1",
    "spice": "QTG-c-1",
    "bertscore": "QTG-c-1",
    "bleurt": "QTG-c-1",
    "comet": "QTG-c-1",
    "moverscore": "QTG-c-1",
    "sari": "QTG-w-2",
    "f1": "QTC-w-1",
    "wf1": "QTC-w-1",
    "macrof1": "QTC-w-1",
    "microf1": "QTC-w-1",
    "accuracy": "QTC-w-1",
    "acc": "QTC-w-1",
    "precision": "QTC-w-1",
    "recall": "QTC-w-1",
    "exactmatch": "QTC-w-3",
    "em": "QTC-w-3",
    "wer": None,
    "cer": None,
    "perplexity": None,
    "mass": None,
    "mae": None,
    "rmse": None,
    "mse": None,
    "auc": None,
}
LLM_WORDS = re.compile(r"\b(llm|gpt[-\w.]*|judge|g-?eval|prometheus|claude|gemini|llama)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Suggestion:
    """A guess for one criterion: its ``evaluation_type``, its QCET id (or None) and why."""

    evaluation_type: str
    qcet_id: str | None
    reason: str


#: Common criterion names whose QCET criterion has another name (docs/decisions.md, "One QCET guesser").
SYNONYMS = {
    "grammar": "QOC-f-1",  # Grammaticality
    "meaning": "QTC-c-1",  # Meaning Accuracy: the content judged against what it should say
    "meaningpreservation": "QTC-c-1",
    "adequacy": "QTC-c-1",
    "faithfulness": "QIC-c-3",  # Consistency with Input
    "consistency": "QIC-c-3",  # SummEval's consistency: factual alignment with the source
    "factuality": "QEC-c-1",  # Factual Truth
    "helpfulness": "QEG-w-3",  # Usefulness (nonspecific)
    "correctness": "QOC-w-1",  # Correctness of Outputs (outputs as a whole), not the CORRECTNESS category
}
_ASPECT_ORDER = {"w": 0, "c": 1, "f": 2}  # a name that does not say form or content judges the output as a whole


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9+]", "", text.lower())


def _criteria() -> list[tuple[str, str]]:
    """(id, main name in lower case) of every QCET criterion (depth 4 and below, never a category),
    those judging outputs as a whole first, then by id."""
    nodes = [n for n in qcet_taxonomy().values() if n.depth >= 4]
    aspect = lambda n: _ASPECT_ORDER.get(n.id.split("-")[1] if n.id.count("-") >= 2 else "", 3)
    return [(n.id, n.name.split(" (")[0].strip().lower()) for n in sorted(nodes, key=lambda n: (aspect(n), n.id))]


def guess_qcet(name: str) -> str | None:
    """The one guess at the QCET criterion (v3.4.1) of a criterion called ``name``, for every view
    (the Annotations tab, the criteria prompt, :func:`suggest_criterion`); None when nothing is close.

    In order: a known metric's criterion (:data:`METRICS`); a common name whose QCET criterion is
    named otherwise (:data:`SYNONYMS`); a criterion with the same main name (ignoring case,
    punctuation and the qualifier in brackets; several, e.g. Naturalness (form), (content/meaning)
    and (outputs as a whole): the one of the output as a whole, as the name does not say form or
    content); a criterion with a word of its main name starting like ``name``; the closest main name
    (difflib, cutoff 0.7).  Never a category (QOC CORRECTNESS), never a match on a qualifier
    (Nonredundancy (content/meaning) is not "Meaning").

    >>> guess_qcet("Fluency"), guess_qcet("Grammar"), guess_qcet("Meaning"), guess_qcet("Naturalness")
    ('QOG-w-3', 'QOC-f-1', 'QTC-c-1', 'QEG-w-1')
    >>> guess_qcet("BLEU"), guess_qcet("Xyzzy"), guess_qcet("ab")
    ('QTG-f-1', None, None)
    """
    import difflib

    key = _key(str(name))
    if len(key) < 3:
        return None
    if METRICS.get(key):
        return METRICS[key]
    if key in SYNONYMS:
        return SYNONYMS[key]
    criteria = _criteria()
    for qcet_id, main in criteria:
        if _key(main) == key:
            return qcet_id
    wanted = str(name).strip().lower()
    stem = wanted[: max(5, len(wanted) - 3)]
    for qcet_id, main in criteria:
        if any(word.startswith(stem) for word in main.replace("/", " ").split()):
            return qcet_id
    close = difflib.get_close_matches(wanted, [main for _, main in criteria], n=1, cutoff=0.7)
    return next((qcet_id for qcet_id, main in criteria if close and main == close[0]), None)


def suggest_criterion(name: str) -> Suggestion:
    """The guessed evaluation type and QCET criterion of a criterion called ``name``.

    >>> suggest_criterion("BLEU")
    Suggestion(evaluation_type='metric', qcet_id='QTG-f-1', reason='BLEU is an automatic metric')
    >>> suggest_criterion("Fluency").qcet_id, suggest_criterion("Fluency").evaluation_type
    ('QOG-w-3', 'human')
    >>> suggest_criterion("GPT-4 fluency").evaluation_type
    'llm-as-judge'
    >>> suggest_criterion("xyz").evaluation_type
    'unknown'
    """
    text = str(name).strip()
    words = [w for w in re.split(r"[\s_/()\[\],:;]+", text) if w]
    for word in [text, *words]:
        if _key(word) in METRICS:
            return Suggestion("metric", METRICS[_key(word)], f"{word} is an automatic metric")
    llm = LLM_WORDS.search(text)
    if llm:
        rest = LLM_WORDS.sub(" ", text).strip(" -_:()")
        qcet = next((q for q in (guess_qcet(part) for part in [rest, *rest.split()] if part) if q), None)
        return Suggestion("llm-as-judge", qcet, f"the name mentions {llm.group(0)}")
    qcet = guess_qcet(text)
    if qcet is not None:
        node = qcet_taxonomy()[qcet]
        return Suggestion("human", qcet, f"named like the QCET criterion {node.name} ({qcet}), usually rated by people")
    return Suggestion("unknown", None, "the name says neither")
