"""Every escaper's one-line step: text with no line break, tab or control character is returned as
it is (the quick path), and any text comes out as the character-by-character rule gives it."""

import re

from hypothesis import given
from hypothesis import strategies as st

from qra_widgets.report.escape import _plain, latex, markdown_cell


def one_line_by_rule(text: str) -> str:
    """Line breaks as spaces, tabs as spaces, other non-printable characters dropped."""
    text = re.sub(r"\r\n|[\n\r\v\f\x85\u2028\u2029]", " ", text)
    return "".join(" " if ch == "\t" else ch for ch in text if ch in "\t " or ch.isprintable())


@given(st.text())
def test_one_line_text_is_what_the_character_rule_gives(text):
    assert _plain(text) == one_line_by_rule(text)


def test_printable_text_is_kept_and_control_characters_are_not():
    assert _plain("Fluency (1-5) = ok") == "Fluency (1-5) = ok"
    assert _plain("a\nb\tc\x00d\u2028e\r\nf") == "a b cd e f"
    assert latex("R&D\n_x") == r"R\&D \_x" and markdown_cell("a|b\x1b") == r"a\|b"
