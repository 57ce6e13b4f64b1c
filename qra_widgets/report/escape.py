r"""One escaping function per output language: every writer puts user-given text through these.

Names of studies, systems, criteria and experiments, notes and captions come from files other
people wrote.  Written into a report they must stay text: never a LaTeX command
(``\input{/etc/passwd}``, ``\write18``), a new Markdown row (a newline, a ``|``), an HTML tag
(``<script>``) or a spreadsheet formula (``=HYPERLINK(``).

======================= ==========================================================================
:func:`text`            plain text (a line of a terminal report): one line, line breaks as spaces,
                        other control characters (ESC, NUL...) dropped
:func:`latex`           LaTeX text (a table cell, a caption): the ten special characters as
                        commands, line breaks as spaces, other control characters dropped
:func:`latex_citation`  a citation given as LaTeX (QRA3's ``\citet{Key}``): ``\cite``-family
                        commands are kept with their keys made safe (:func:`bibtex_key`), all
                        other text goes through :func:`latex`
:func:`bibtex_key`      a BibTeX citation key: letters, digits and ``-_:.+/``, others as ``-``
:func:`bibtex_field`    a BibTeX field value, for ``field = {...}``: balanced, no commands
:func:`markdown_cell`   Markdown text (a table cell, a caption, a list item): ``< > &`` as HTML
                        entities (renderers show raw HTML, and not every one reads ``\<``),
                        the other characters Markdown reads (``\ ` * _ [ ] | ~``)
                        backslash-escaped, line breaks as spaces
:func:`html`            HTML text and attribute values: ``& < > " '`` as entities
:func:`csv_cell`        a CSV cell: a formula-like text gets a leading ``'``
                        (:func:`qra_widgets.report.csvsafe.safe_cell`, OWASP's advice)
======================= ==========================================================================

>>> latex(r"\input{/etc/passwd}")
'\\textbackslash{}input\\{/etc/passwd\\}'
>>> markdown_cell("a|b\nc <script>")
'a\\|b c &lt;script&gt;'
>>> bibtex_key("Belz & Thomson 2024"), html("<b>"), csv_cell("=HYPERLINK(1)")
('Belz-Thomson-2024', '&lt;b&gt;', "'=HYPERLINK(1)")
"""

from __future__ import annotations

import html as _html
import re
from typing import Any

__all__ = [
    "bibtex_field",
    "bibtex_key",
    "csv_cell",
    "csv_frame",
    "html",
    "latex",
    "latex_citation",
    "markdown_cell",
    "text",
]

_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_LINE_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x85\u2028\u2029]")


def _plain(text: Any) -> str:
    """Text on one line: line breaks as spaces, other control characters (NUL, ESC...) dropped."""
    text = str(text)
    if text.isprintable():  # no line break, tab or control character: nothing to replace or drop
        return text
    text = _LINE_BREAKS.sub(" ", text)
    return "".join(ch for ch in text if ch == "\t" or ch.isprintable() or ch == " ").replace("\t", " ")


def text(value: Any) -> str:
    r"""``value`` as plain text on one line (a terminal report): a newline can never start a line,
    an escape sequence can never reach the terminal.

    >>> text("GT\nREPRODUCES\x1b[2J")
    'GT REPRODUCES[2J'
    """
    return _plain(value)


def latex(text: Any) -> str:
    r"""``text`` as LaTeX text: ``\ & % $ # _ { } ~ ^`` as commands, one line, no control characters.

    >>> latex("50% of R&D_2 {x}~^")
    '50\\% of R\\&D\\_2 \\{x\\}\\textasciitilde{}\\textasciicircum{}'
    """
    return "".join(_LATEX.get(ch, ch) for ch in _plain(text))


_CITE = re.compile(r"\\(cite[a-zA-Z]*\*?)((?:\[[^\]\\{}]*\])*)\{([^{}\\]*)\}")


def latex_citation(text: Any) -> str:
    r"""A citation written in LaTeX (QRA3's ``experiments``/``citation`` settings) made safe:
    each ``\cite...[opt]{keys}`` stays a citation, its keys through :func:`bibtex_key` and its
    optional texts through :func:`latex`; everything else is :func:`latex` text, so no other
    command (``\input``, ``\write18``) survives.

    >>> latex_citation(r"\citet{Yao2022}"), latex_citation(r"\citep[p.~3]{a, b}")
    ('\\citet{Yao2022}', '\\citep[p.\\textasciitilde{}3]{a,b}')
    >>> latex_citation(r"\input{/etc/passwd}\citet{x\write18}")
    '\\textbackslash{}input\\{/etc/passwd\\}\\textbackslash{}citet\\{x\\textbackslash{}write18\\}'
    """
    text = _plain(text)
    out, position = [], 0
    for match in _CITE.finditer(text):
        out.append(latex(text[position : match.start()]))
        options = "".join(f"[{latex(o)}]" for o in re.findall(r"\[([^\]]*)\]", match.group(2)))
        keys = ",".join(bibtex_key(k) for k in match.group(3).split(",") if k.strip())
        out.append(f"\\{match.group(1)}{options}{{{keys}}}")
        position = match.end()
    out.append(latex(text[position:]))
    return "".join(out)


def cite_keys(text: Any) -> list[str]:
    r"""The (safe) keys cited in a LaTeX citation, in order, each once.

    >>> cite_keys(r"\citet{Yao2022} and \citep{a,b, Yao2022}")
    ['Yao2022', 'a', 'b']
    """
    keys = [bibtex_key(k) for match in _CITE.finditer(_plain(text)) for k in match.group(3).split(",") if k.strip()]
    return list(dict.fromkeys(keys))


_KEY_CHARACTERS = re.compile(r"[^A-Za-z0-9_:.+/-]+")


def bibtex_key(text: Any) -> str:
    """A BibTeX citation key from any text: runs of other characters than letters, digits and
    ``_:.+/-`` become one ``-`` (no space, comma, brace, ``%``, ``#``, ``\\``, quote or ``=``,
    which would end the key or the entry); never empty.

    >>> bibtex_key("Yao2022"), bibtex_key("study 1, {x}"), bibtex_key("\\\\write18"), bibtex_key("}")
    ('Yao2022', 'study-1-x', 'write18', 'key')
    """
    return _KEY_CHARACTERS.sub("-", str(text)).strip("-") or "key"


def bibtex_field(text: Any) -> str:
    r"""A BibTeX field's value, to be written as ``field = {...}``: :func:`latex` text with the
    braces as ``\textbraceleft{}``/``\textbraceright{}`` (so BibTeX's brace counting stays
    balanced) and no line break.

    >>> bibtex_field('Missing } entry "x" @misc{')
    'Missing \\textbraceright{} entry "x" @misc\\textbraceleft{}'
    """
    return "".join(
        {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}.get(ch, _LATEX.get(ch, ch)) for ch in _plain(text)
    )


_MARKDOWN = re.compile(r"([\\`*_\[\]|~])")
_MARKDOWN_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def markdown_cell(text: Any) -> str:
    r"""``text`` as Markdown text (a table cell, a caption, a list item): one line, ``< > &`` as
    HTML entities (Markdown renderers show raw HTML, and Python-Markdown, unlike CommonMark, does
    not read ``\<`` as an escape), and the other characters Markdown would read as markup
    backslash-escaped, so a name cannot end a table row, start a new one, open a link or a tag.

    >>> markdown_cell("Puduppully & Lapata"), markdown_cell("x\n| y |"), markdown_cell("<img src=x onerror=alert(1)>")
    ('Puduppully &amp; Lapata', 'x \\| y \\|', '&lt;img src=x onerror=alert(1)&gt;')
    """
    escaped = _MARKDOWN.sub(r"\\\1", _plain(text))
    return "".join(_MARKDOWN_HTML.get(ch, ch) for ch in escaped) if any(ch in escaped for ch in "&<>") else escaped


def html(text: Any) -> str:
    """``text`` for HTML (element text or a quoted attribute value): ``& < > " '`` as entities.

    >>> html("<script>alert('x')</script>")
    '&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;'
    """
    return _html.escape(str(text), quote=True)


def csv_cell(value: Any) -> Any:
    """A CSV cell: :func:`qra_widgets.report.csvsafe.safe_cell` (a formula-like text gets a leading ``'``)."""
    from .csvsafe import safe_cell

    return safe_cell(value)


def csv_frame(frame, **options) -> str:
    """A DataFrame as CSV: :func:`qra_widgets.report.csvsafe.frame_to_csv` (every text cell :func:`csv_cell`-ed)."""
    from .csvsafe import frame_to_csv

    return frame_to_csv(frame, **options)
