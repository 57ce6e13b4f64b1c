"""The measures' API to scikit-learn's standard: keyword-only options,
``replace_undefined_by`` checked everywhere, numpydoc sections with DOIs, ``npt.ArrayLike``
array arguments, and a public ``encode_values``."""

import inspect
import math
import re
import warnings

import numpy as np
import pytest

from qra_widgets import QRAInputError, UndefinedMeasureWarning
from qra_widgets import measures as m

# measure -> (its data arguments, a defined call, an undefined call)
MEASURES = {
    "cv_star": (("values",), lambda f, **kw: f([1.0, 2.0], **kw).cv_star, lambda f, **kw: f([0.0, 0.0], **kw).cv_star),
    "pearson_r": (
        ("x", "y"),
        lambda f, **kw: f([1, 2, 3], [1, 3, 2], **kw),
        lambda f, **kw: f([1, 2, 3], [2, 2, 2], **kw),
    ),
    "spearman_rho": (
        ("x", "y"),
        lambda f, **kw: f([1, 2, 3], [1, 3, 2], **kw),
        lambda f, **kw: f([1, 1, 1], [1, 2, 3], **kw),
    ),
    "kendall_tau": (
        ("x", "y"),
        lambda f, **kw: f([1, 2, 3], [1, 3, 2], **kw),
        lambda f, **kw: f([1, 1, 1], [1, 2, 3], **kw),
    ),
    "mean_pairwise_r": (
        ("scores",),
        lambda f, **kw: f([[1, 2, 3], [1, 3, 2]], **kw),
        lambda f, **kw: f([[1, 1, 1], [1, 2, 3]], **kw),
    ),
    "mean_pairwise_rho": (
        ("scores",),
        lambda f, **kw: f([[1, 2, 3], [1, 3, 2]], **kw),
        lambda f, **kw: f([[1, 1, 1], [1, 2, 3]], **kw),
    ),
    "mean_pairwise_tau": (
        ("scores",),
        lambda f, **kw: f([[1, 2, 3], [1, 3, 2]], **kw),
        lambda f, **kw: f([[1, 1, 1], [1, 2, 3]], **kw),
    ),
    "kendall_w": (
        ("scores",),
        lambda f, **kw: f([[1, 2, 3], [1, 3, 2]], **kw),
        lambda f, **kw: f([[1, 1, 1], [2, 2, 2]], **kw),
    ),
    "rank_agreement": (
        ("scores",),
        lambda f, **kw: f([[1, 2, 3], [1, 3, 2]], **kw),
        lambda f, **kw: f([[1, np.nan], [np.nan, 2]], **kw),
    ),
    "cohen_kappa": (("a", "b"), lambda f, **kw: f([1, 2, 1], [1, 2, 2], **kw), lambda f, **kw: f([1, 1], [1, 1], **kw)),
    "percent_agreement": (
        ("a", "b"),
        lambda f, **kw: f([1, 2, 1], [1, 2, 2], **kw),
        lambda f, **kw: f([1, None], [None, 2], **kw),
    ),
    "adjacent_agreement": (
        ("a", "b"),
        lambda f, **kw: f([1, 2, 1], [1, 2, 3], **kw),
        lambda f, **kw: f([1, None], [None, 2], **kw),
    ),
    "gwet_ac": (("a", "b"), lambda f, **kw: f([1, 2, 1], [1, 2, 2], **kw), lambda f, **kw: f([1, 1], [1, 1], **kw)),
    "brennan_prediger": (
        ("a", "b"),
        lambda f, **kw: f([1, 2, 1], [1, 2, 2], **kw),
        lambda f, **kw: f([1, 1], [1, 1], **kw),
    ),
    "fleiss_kappa": (
        ("labels",),
        lambda f, **kw: f([[1, 2, 1], [1, 2, 2]], **kw),
        lambda f, **kw: f([[1, 1], [1, 1]], **kw),
    ),
    "krippendorff_alpha": (
        ("labels",),
        lambda f, **kw: f([[1, 2, 1], [1, 2, 2]], **kw),
        lambda f, **kw: f([[1, 1], [1, 1]], **kw),
    ),
}
# required arguments that are not options: which measure mean_pairwise computes
SELECTORS = {"mean_pairwise": ("scores", "measure")}
HELPERS = {
    "rank_counts": ("scores",),
    "sign_counts": ("signs",),
    "category_counts": ("labels",),
    "encode": ("labels",),
    "encode_values": ("values",),
    "mean_pairwise": ("scores", "measure"),
}


@pytest.mark.parametrize("name", sorted(MEASURES) + sorted(HELPERS))
def test_options_are_keyword_only(name):
    data = MEASURES[name][0] if name in MEASURES else HELPERS[name]
    parameters = inspect.signature(getattr(m, name)).parameters
    assert tuple(parameters)[: len(data)] == data
    for option in tuple(parameters)[len(data) :]:
        assert parameters[option].kind is inspect.Parameter.KEYWORD_ONLY, f"{name}({option}) is not keyword-only"


def test_options_passed_by_position_are_refused():
    """The old positional forms fail loudly instead of meaning something else."""
    with pytest.raises(TypeError):
        m.cv_star([5.36, 6.14], 1)
    with pytest.raises(TypeError):
        m.krippendorff_alpha([[1, 2], [1, 2]], "ordinal")
    with pytest.raises(TypeError):
        m.cohen_kappa([1, 2], [1, 2], "linear")
    with pytest.raises(TypeError):
        m.fleiss_kappa([[1, 2], [1, 2]], [1, 2])


@pytest.mark.parametrize("name", sorted(MEASURES))
@pytest.mark.parametrize("bad", ["0", None, True, [0.0], {"value": 0}])
def test_replace_undefined_by_must_be_a_number(name, bad):
    """Checked on entry, on defined input too, so a typo cannot wait for degenerate data."""
    defined = MEASURES[name][1]
    with pytest.raises(QRAInputError, match="replace_undefined_by: must be a number or nan"):
        defined(getattr(m, name), replace_undefined_by=bad)


@pytest.mark.parametrize("name", sorted(MEASURES))
def test_replace_undefined_by_is_what_an_undefined_measure_returns(name):
    function, (_, defined, undefined) = getattr(m, name), MEASURES[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMeasureWarning)
        assert undefined(function, replace_undefined_by=-2) == -2.0
        assert math.isnan(undefined(function))
        assert not math.isnan(defined(function))
    reasons = [str(w.message) for w in caught if issubclass(w.category, UndefinedMeasureWarning)]
    assert len(reasons) == 2 and reasons[0] == reasons[1] and " is undefined: " in reasons[0]


@pytest.mark.parametrize("name", sorted(MEASURES))
def test_docstrings_have_the_numpydoc_sections_and_a_doi(name):
    doc = inspect.getdoc(getattr(m, name))
    for section in ("Parameters", "Returns", "References", "Examples"):
        assert f"\n{section}\n{'-' * len(section)}\n" in doc, f"{name}: no {section} section"
    assert "https://doi.org/10." in doc, f"{name}: no DOI"
    assert ".. math::" in doc, f"{name}: no formula"
    assert ">>> " in doc.split("Examples")[1]


@pytest.mark.parametrize("name", sorted(MEASURES) + sorted(HELPERS))
def test_array_arguments_are_typed_array_like(name):
    data = MEASURES[name][0] if name in MEASURES else HELPERS[name]
    parameters = inspect.signature(getattr(m, name)).parameters
    for argument in data:
        if argument == "measure":
            continue
        assert "ArrayLike" in str(parameters[argument].annotation), f"{name}({argument})"


def test_encode_values_is_public():
    assert "encode_values" in m.__all__ and "encode" in m.__all__
    codes, categories = m.encode_values(["b", None, "a", "b"])
    assert codes.tolist() == [1, -1, 0, 1] and categories.tolist() == ["a", "b"]
    codes, categories = m.encode_values([3, 1, float("nan")], categories=[1, 2, 3])
    assert codes.tolist() == [2, 0, -1] and categories.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("name", sorted(MEASURES))
def test_docstring_sections_and_references_are_set_apart_by_blank_lines(name):
    """numpydoc needs a blank line before each section heading, and one between references
    (gwet_ac and brennan_prediger ran "Parameters" into the text and Gwet 2014 into
    Yannakoudakis & Cummins 2015)."""
    lines = inspect.getdoc(getattr(m, name)).splitlines()
    for i, line in enumerate(lines[1:-1], start=1):
        if lines[i + 1] == "-" * len(line) and line:
            assert lines[i - 1] == "", f"{name}: no blank line before {line}"
    start = lines.index("References") + 2
    end = lines.index("Examples")
    entries = [i for i in range(start, end) if re.match(r"[A-Z][\w'-]+, [A-Z]\.", lines[i])]
    assert entries and entries[0] == start
    assert [lines[i - 1] for i in entries[1:]] == [""] * (len(entries) - 1), f"{name}: references not separated"
