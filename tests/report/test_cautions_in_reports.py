"""Every rendering that shows intervals shows their cautions (the frame's ``ci_note``): a ‡ mark on
the interval and its footnote, on van Miltenburg et al. (2024)'s fluency ratings (published field
data; our spec ``tests/data/vanmiltenburg2024/spec.json``)."""

from __future__ import annotations

import pytest

import qra_widgets as qw
from qra_widgets.report.site import study_page_html

CRITERION = "criterion-level CV* interval: too short"
OVER_RATERS = "CV* interval over items+raters: too short"
AGREEMENT = "agreement is resampled over items only, not raters"


@pytest.fixture(scope="module")
def over_items(vm):
    return qw.assess(vm, bootstrap=300, seed=1)


@pytest.fixture(scope="module")
def over_raters(vm):
    return qw.assess(vm, bootstrap=300, seed=1, resample="items+raters")


def test_the_marks_number_each_distinct_caution_in_the_order_of_the_tables(over_items, over_raters):
    assert list(over_items.interval_cautions().values()) == ["‡1"]
    assert next(iter(over_items.interval_cautions())).startswith(CRITERION)
    cautions = list(over_raters.interval_cautions())
    assert [c.split(":")[0] for c in cautions] == [
        "CV* interval over items+raters",
        "agreement is resampled over items only, not raters",
    ]
    assert over_raters.caution_footnotes()[1].startswith("‡2 " + AGREEMENT)


def test_the_template_marks_the_criterion_cv_and_not_the_system_cv(over_items):
    table = over_items.table()
    type_one = table[table["Measure applied"].isin(["(mean) CV*", "CV*"])]
    assert (
        type_one["QC level"].iloc[0] == "13.76 [11.47, 19.13]‡1"
        and type_one["Study level"].iloc[0] == "13.76 [11.47, 19.13]‡1"
    )
    assert list(type_one["System level"].iloc[1:]) == ["13.07 [9.79, 17.24]", "24.41 [17.12, 32.15]", "3.81 [0, 14.74]"]


def test_markdown_lists_the_caution_under_the_table_and_latex_puts_it_in_the_caption(over_items):
    markdown = over_items.to_markdown()
    assert "| Type I | (mean) CV\\* |  | 13.76 \\[11.47, 19.13\\]‡1 | 13.76 \\[11.47, 19.13\\]‡1 |" in markdown
    assert (
        "\n- ‡1 criterion-level CV\\* interval: too short (coverage study: 66-90%, least when the experiments agree); "
        "read the system-level intervals\n" in markdown
    )
    latex = over_items.to_latex()
    caption = next(line for line in latex.splitlines() if line.startswith(r"\caption{QRA++"))
    assert "[lower bound, 1]). ‡1 criterion-level CV* interval: too short (coverage study: 66-90\\%" in caption
    assert "13.76 [11.47, 19.13]‡1 & 13.76 [11.47, 19.13]‡1" in latex
    html = over_items._repr_html_()
    assert "<li>‡1 criterion-level CV* interval: too short" in html


def test_the_annotator_agreement_table_carries_the_mark_of_its_caution(over_raters, over_items):
    markdown = over_raters.to_markdown()
    assert "| direct | Fluency | Krippendorff's α | 0.519 \\[0.42, 0.603\\]‡2 | 300 | 2 |" in markdown
    assert (
        "- ‡2 agreement is resampled over items only, not raters: read it as the interval for these raters" in markdown
    )
    assert "| direct | Fluency | Krippendorff's α | 0.519 \\[0.42, 0.603\\] | 300 | 2 |" in over_items.to_markdown()


def test_the_narrative_says_the_caution_of_the_system_cv_interval(over_raters, over_items):
    assert (
        "The 95% confidence interval of CV* is [4.176, 24.34] (percentile, over items+raters). Caution: " + OVER_RATERS
    ) in over_raters.narrative("Fluency", "SVM")
    assert "Caution" not in over_raters.narrative("Fluency", "DExperts")  # [0, upper bound]: nothing to say
    assert "Caution" not in over_items.narrative("Fluency", "SVM")


def test_the_report_page_lists_the_cautions_with_its_notes(vm, over_items):
    page = study_page_html(vm, assessment=over_items, plotly_src="plotly.min.js")
    assert "13.76 [11.47, 19.13]‡1" in page and "<li>‡1 criterion-level CV* interval: too short" in page


def test_no_intervals_no_marks(vm):
    result = qw.assess(vm)
    assert (
        result.interval_cautions() == {} and "‡" not in result.to_markdown() + result.to_latex() + result._repr_html_()
    )


def test_a_report_rendered_again_after_its_intervals_change_follows_them(vm):
    """The agreement table a report renders is computed once per assessment state, never kept past it."""
    result = qw.assess(vm, bootstrap=200, seed=1, resample="items+raters")
    assert "| direct | Fluency | Krippendorff's α | 0.519 \\[" in result.to_markdown() and "‡2" in result.to_latex()
    result.intervals, result.bootstrap_info = {}, {}
    markdown = result.to_markdown()
    assert "| direct | Fluency | Krippendorff's α | 0.519 | 300 | 2 |" in markdown and "‡" not in markdown
