"""Annotation specs: wide CSV, long TSV, Excel, name mapping, missing markers, and bad input."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import qra_widgets as qw
from qra_widgets.cli import main
from qra_widgets.io.annotations import guess_mapping, load_annotations, preview

TOY = Path(__file__).parents[1] / "data" / "annotations"


@pytest.fixture
def toy(tmp_path):
    for name in ("original.csv", "repeat.tsv", "spec.json"):
        shutil.copy(TOY / name, tmp_path / name)
    return tmp_path


def spec(folder: Path) -> dict:
    return json.loads((folder / "spec.json").read_text())


def write(folder: Path, data: dict) -> Path:
    (folder / "spec.json").write_text(json.dumps(data))
    return folder / "spec.json"


def test_wide_csv_and_long_tsv_with_system_names_and_missing_markers():
    study = load_annotations(TOY / "spec.json")
    assert study.systems == ["GT", "QAG"]  # "groundtruth" / "Ours" mapped to the study's names
    assert study.experiment_ids == ["O", "R1"] and study.experiment("O").role == "original"
    # original.csv, Readability of GT: 5, 4, 4, 5, 3, 3 -> 24 / 6
    assert study.scores[("Readability", "GT", "O")] == 4.0
    # Relevance of GT in original.csv: 4, 4, NA, 3, 3, * -> NA and * are missing: 14 / 4
    assert study.scores[("Relevance", "GT", "O")] == 3.5
    # repeat.tsv (long), Relevance of GT: 5, 4, 3, "" (missing), 3, 3, 4, 4 -> 26 / 7
    assert study.scores[("Relevance", "GT", "R1")] == pytest.approx(26 / 7, abs=1e-15)
    assert study.sources[("Relevance", "GT", "R1")] == "repeat.tsv: mean of 7 ratings"
    # item q7 was rated only in the repeat: allowed and reported
    assert study.metadata["annotations"]["items_not_in_all_experiments"] == 1
    assert study.ratings.coverage()["not_in_all"] == [("GT", "q7")]
    # Type III labels: ordinal -> median of the item's ratings, between two points the even one (q1 in O: 5 and 4 -> 4)
    assert study.labels[("Readability", "GT", "q1", "O")] == 4.0
    result = qw.assess(study)
    assert not result.annotator_agreement().empty


def test_excel_files_are_read(toy):
    pd.read_csv(toy / "original.csv", dtype=str, keep_default_na=False).to_excel(toy / "original.xlsx", index=False)
    data = spec(toy)
    data["experiments"][0]["file"] = "original.xlsx"
    study = load_annotations(write(toy, data))
    assert study.scores[("Relevance", "GT", "O")] == 3.5


def test_a_spec_dict_reads_paths_relative_to_base_and_uploaded_bytes():
    data = json.loads((TOY / "spec.json").read_text())
    assert load_annotations(data, base=TOY).scores == load_annotations(TOY / "spec.json").scores
    uploads = {name: (TOY / name).read_bytes() for name in ("original.csv", "repeat.tsv")}
    assert load_annotations(data, base="/nonexistent", files=uploads).scores[("Readability", "GT", "O")] == 4.0


def replaced(name: str, old: str, new: str):
    """An edit of the toy folder: in file ``name``, ``old`` (which must be there) becomes ``new``."""

    def edit(folder: Path) -> None:
        text = (folder / name).read_text()
        assert old in text, (name, old)
        (folder / name).write_text(text.replace(old, new))

    return edit


def header_only(name: str):
    """An edit of the toy folder: file ``name`` keeps its header row and loses every other."""

    def edit(folder: Path) -> None:
        (folder / name).write_text((folder / name).read_text().splitlines()[0] + "\n")

    return edit


@pytest.mark.parametrize(
    "change, message",
    [
        (
            replaced("original.csv", "relevance (1-5)", "relevance"),
            r"original.csv: column 'relevance \(1-5\)' is missing",
        ),
        (
            replaced("original.csv", "Ours,q5,L1,4,3", "Ours,q5,L1,7,3"),
            r"original.csv: row 10, column 'readability \(1-5\)': 7 is outside the scale 1..5 of 'Readability'",
        ),
        (
            replaced("original.csv", "Ours,q4,L2", "groundtruth,q4,L2"),
            r"original.csv: row 9, column 'qa_id': item 'q4' is rated under system 'GT' here and 'QAG' in row 8",
        ),
        (header_only("repeat.tsv"), r"repeat.tsv: experiment 'R1' has a header but no rows"),
        (
            replaced("original.csv", "Ours,q6,L2,1,2", "Ours,q6,L2,n/a,2"),
            r"original.csv: row 13, column 'readability \(1-5\)': 'n/a' is not a number",
        ),
        (
            replaced("original.csv", "Ours,q6,L2", "Ours,q6,L1"),
            r"original.csv: rows 12 and 13, column 'labeller_id': rater 'L1' rates item 'q6' on 'Readability' twice",
        ),
        (
            replaced("repeat.tsv", "\trel\t", "\trelevance\t"),
            r"repeat.tsv: column 'aspect' has no rows for quality criterion 'Relevance' \(value 'rel'\)",
        ),
    ],
)
def test_bad_input_names_file_row_and_column(toy, change, message):
    change(toy)
    with pytest.raises(qw.QRAInputError, match=message):
        load_annotations(toy / "spec.json")


def test_an_experiment_whose_ratings_are_all_missing_is_refused(toy):
    text = "\n".join(
        line.rsplit(",", 2)[0] + ",NA,NA" if i else line
        for i, line in enumerate((toy / "original.csv").read_text().splitlines())
    )
    (toy / "original.csv").write_text(text + "\n")
    with pytest.raises(qw.QRAInputError, match=r"original.csv: experiment 'O' has no ratings"):
        load_annotations(toy / "spec.json")


def test_a_spec_of_the_wrong_shape_is_refused_naming_the_field(toy):
    data = spec(toy)
    del data["experiments"][1]["columns"]["item"]
    with pytest.raises(qw.QRAInputError, match=r"experiments\[1\].columns: missing field 'item'"):
        load_annotations(write(toy, data))
    with pytest.raises(qw.QRAInputError, match="schema must be 'qra-widgets/annotations'"):
        load_annotations({"schema": "qra-widgets/study"})


def test_guess_mapping_and_preview_for_the_app():
    columns = list(pd.read_csv(TOY / "original.csv", nrows=0).columns)
    assert guess_mapping(columns, ["Readability", "Relevance"]) == {
        "system": "source",
        "item": "qa_id",
        "rater": "labeller_id",
        "criteria": {"Readability": "readability (1-5)", "Relevance": "relevance (1-5)"},
    }
    assert guess_mapping(["system", "item", "annotator", "aspect", "value"]) == {
        "system": "system",
        "item": "item",
        "rater": "annotator",
        "criterion": "aspect",
        "rating": "value",
    }
    head = preview((TOY / "repeat.tsv").read_bytes(), "repeat.tsv", rows=3)
    assert head.shape == (3, 5) and head.iloc[0].tolist() == ["GT", "q1", "A", "read", "5"]


def test_cli_reports_a_spec_with_a_seeded_bootstrap(capsys, vanmiltenburg2024):
    VM = vanmiltenburg2024  # our spec beside the published ratings
    assert main(["report", str(VM / "spec.json"), "--bootstrap", "300", "--seed", "7", "--format", "json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["report", str(VM / "spec.json"), "--bootstrap", "300", "--seed", "7", "--format", "json"]) == 0
    captured = capsys.readouterr()
    second = json.loads(captured.out)
    assert first == second and first["bootstrap"]["seed"] == 7
    assert "bootstrap" in captured.err  # the tqdm bar on stderr
    cv = next(r for r in first["results"] if r["measure"] == "CV*" and r["system"] == "SVM")
    assert cv["ci_low"] < cv["value"] < cv["ci_high"]
    assert {r["measure"] for r in first["annotator_agreement"]} == {"alpha", "fleiss_kappa", "kappa", "ac1", "bp"}
    assert main(["report", str(VM / "spec.json")]) == 0
    assert "Annotator agreement within each experiment" in capsys.readouterr().out
