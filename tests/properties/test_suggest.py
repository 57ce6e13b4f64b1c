"""The one QCET guesser (:func:`qra_widgets.properties.suggest.guess_qcet`) on 20 common criterion
names of NLP human evaluation, each decided by the QCET v3.4.1 taxonomy
(``qra_widgets/properties/qcet_taxonomy_v3.4.1.csv``; docs/decisions.md, "One QCET guesser")."""

from __future__ import annotations

import pytest

from qra_widgets.properties import qcet_taxonomy
from qra_widgets.properties.suggest import SYNONYMS, guess_qcet, suggest_criterion

COMMON = {
    "Fluency": "QOG-w-3",  # the same name
    "Grammaticality": "QOC-f-1",
    "Grammar": "QOC-f-1",  # Grammaticality
    "Meaning": "QTC-c-1",  # Meaning Accuracy, not Nonredundancy (content/meaning): a qualifier is no name
    "Meaning preservation": "QTC-c-1",
    "Adequacy": "QTC-c-1",
    "Coherence": "QOG-c-3",
    "Relevance": "QIG-c-3",  # Relevance to Input
    "Informativeness": "QOG-c-2",
    "Readability": "QOG-w-2",
    "Clarity": "QOG-w-5.1",
    "Correctness": "QOC-w-1",  # a criterion, never the category QOC CORRECTNESS
    "Faithfulness": "QIC-c-3",  # Consistency with Input
    "Consistency": "QIC-c-3",  # SummEval's: factual alignment with the source
    "Naturalness": "QEG-w-1",  # three Naturalness criteria: the name says neither form nor content
    "Diversity": "QOF-w-1",
    "Usefulness": "QEG-w-3",
    "Helpfulness": "QEG-w-3",
    "Factuality": "QEC-c-1",  # Factual Truth
    "Coverage": "QIC-c-4",
}


@pytest.mark.parametrize("name, expected", COMMON.items())
def test_the_one_guesser_gives_the_qcet_criterion_of_common_names(name, expected):
    assert guess_qcet(name) == expected
    assert guess_qcet(name.upper()) == expected and guess_qcet(f" {name.lower()} ") == expected


def test_twenty_common_names_and_each_guess_is_a_criterion_not_a_category():
    assert len(COMMON) == 20
    taxonomy = qcet_taxonomy()
    assert all(taxonomy[i].depth >= 4 for i in [*COMMON.values(), *SYNONYMS.values()])


def test_every_view_asks_the_same_guesser():
    """suggest_criterion (the criteria prompt, the overview's classification) gives guess_qcet's criterion."""
    for name, expected in COMMON.items():
        assert suggest_criterion(name).qcet_id == expected
    assert suggest_criterion("GPT-4 meaning").qcet_id == "QTC-c-1"  # an LLM judge of meaning


def test_nothing_close_gives_none():
    assert guess_qcet("Xyzzy") is None and guess_qcet("") is None and guess_qcet("ab") is None
