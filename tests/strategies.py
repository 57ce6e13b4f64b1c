"""Hypothesis strategies shared by the test modules."""

from hypothesis import strategies as st

from qra_widgets import Experiment, QualityCriterion, Study

names = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12).filter(
    lambda s: s.strip() == s
)


@st.composite
def studies(draw):
    qcs = draw(st.lists(names, min_size=1, max_size=3, unique=True))
    systems = draw(st.lists(names, min_size=1, max_size=4, unique=True))
    experiments = draw(st.lists(names, min_size=1, max_size=4, unique=True))
    minimum = draw(st.floats(-10, 10, allow_nan=False))
    scores = {}
    for qc in qcs:
        for system in systems:
            for experiment in experiments:
                if draw(st.booleans()):
                    scores[(qc, system, experiment)] = minimum + draw(st.floats(0, 1e6, allow_nan=False))
    return Study(
        id=draw(names),
        name=draw(st.text(max_size=20)),
        description=draw(st.text(max_size=40)),
        quality_criteria=[QualityCriterion(q, scale_min=minimum) for q in qcs],
        systems=systems,
        experiments=[
            Experiment(
                e,
                label=draw(st.text(max_size=10)),
                role=draw(st.sampled_from(["original", "repeat"])),
                properties={"H3.2.1": draw(st.integers(0, 100))},
                conditions={"object": {"Code by": draw(st.text(max_size=5))}},
            )
            for e in experiments
        ],
        scores=scores,
    )
