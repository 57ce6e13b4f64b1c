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

from . import qcet_search, qcet_taxonomy

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


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9+]", "", text.lower())


def _qcet_match(text: str) -> str | None:
    """The QCET criterion whose name is ``text`` (ignoring case and punctuation), else the deepest
    node whose name contains it, else None."""
    key = _key(text)
    if len(key) < 3:
        return None
    for node in qcet_taxonomy().values():
        if _key(node.name) == key or _key(node.name.split(" (")[0]) == key:
            return node.id
    hits = qcet_search(text.strip(), limit=1)
    return hits[0].id if hits else None


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
        qcet = next((q for q in (_qcet_match(part) for part in [rest, *rest.split()] if part) if q), None)
        return Suggestion("llm-as-judge", qcet, f"the name mentions {llm.group(0)}")
    qcet = _qcet_match(text)
    if qcet is not None:
        node = qcet_taxonomy()[qcet]
        return Suggestion("human", qcet, f"named like the QCET criterion {node.name} ({qcet}), usually rated by people")
    return Suggestion("unknown", None, "the name says neither")
