"""Sphinx configuration of the qra-widgets documentation.

Build with ``scripts/docs`` (installs the ``docs`` extra, then
``sphinx-build -W --keep-going -b html docs docs/_build/html``).

Three choices keep the built site offline, with no request leaving it:

- no intersphinx, and a theme (pydata-sphinx-theme) that vendors its icons and fonts;
- MathJax (the formulas in the measures' docstrings) from the files the
  ``sphinx-mathjax-offline`` package ships, instead of the CDN ``sphinx.ext.mathjax`` uses;
- the paper notebooks' Plotly charts are written as HTML that calls ``Plotly.newPlot`` and
  does not carry plotly.js; the one plotly.js the installed ``plotly`` package ships is
  copied to ``_static`` once and loaded only by the pages that draw a chart.

``tests/e2e/test_docs_offline.py`` loads every built page in headless Chromium and fails on
any request outside the site.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

# Document, and run the notebooks against, the checkout being built (not whatever
# qra_widgets an editable install elsewhere points to).
sys.path.insert(0, str(ROOT))
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

import qra_widgets

project = "qra-widgets"
author = "the qra-widgets authors"
copyright = "the qra-widgets authors"
version = release = qra_widgets.__version__

extensions = [
    "myst_nb",  # MyST Markdown pages and the executed paper notebooks (myst-nb loads myst-parser)
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx.ext.mathjax",
]

exclude_patterns = [
    "_build",
    "**.ipynb_checkpoints",
    "examples/paper/README.md",  # the notebooks' own README, for readers of the repository
    "examples/paper/studies",
    "examples/paper/data",
]
templates_path = ["_templates"]
root_doc = "index"
# .rst first: autosummary writes its generated pages with the first suffix.
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# MyST: ::: fences for notes, definition lists, heading anchors for links between pages.
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# The paper notebooks are executed on every build (they are committed without outputs and
# assert every published number in their last cell): an error fails the build.
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 600
nb_execution_show_tb = True
nb_merge_streams = True

# API reference: autosummary writes one page per module from the numpydoc docstrings.
autosummary_generate = True
autosummary_imported_members = False
autosummary_ignore_module_all = False  # a package's __all__ says what it offers (qra_widgets.measures)
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # numpydoc's Parameters sections give the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "pydata_sphinx_theme"
html_title = f"qra-widgets {release}"
# MathJax 3 as the sphinx-mathjax-offline package ships it, copied to _static/mathjax (its own
# extension does the same at the end of the build but does not declare itself parallel-safe).
MATHJAX = Path(importlib.util.find_spec("sphinx-mathjax-offline").origin).parent / "static"
mathjax_path = "mathjax/tex-chtml.js"
html_static_path = ["_static", str(MATHJAX)]
html_css_files = ["qra-docs.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "icon_links": [],
}
html_sidebars = {"*": []}  # top-level pages have no section navigation to show
html_show_sourcelink = False
html_copy_source = False

# ---------------------------------------------------------------------------------------
# Plotly: charts in the executed notebooks without a CDN.
# An IPython startup file in a private IPYTHONDIR registers a renderer that writes the
# figure as <div> + Plotly.newPlot(...) without plotly.js; every notebook kernel started by
# this build reads it.  The page loads _static/plotly.min.js, copied once from the plotly
# package, when it has a chart.
# ---------------------------------------------------------------------------------------
IPYTHON_DIR = DOCS / "_build" / "ipython"
PLOTLY_STARTUP = '''\
import plotly.io as pio
from plotly.io._base_renderers import MimetypeRenderer


class QRADocsRenderer(MimetypeRenderer):
    """A figure as <div> + Plotly.newPlot(...): no plotly.js, no MathJax from a CDN."""

    def to_mimebundle(self, fig_dict):
        html = pio.to_html(fig_dict, include_plotlyjs=False, include_mathjax=False, full_html=False,
                           default_width="100%", default_height=525, validate=False)
        return {"text/html": html}


pio.renderers["qra_docs"] = QRADocsRenderer()
pio.renderers.default = "qra_docs"
'''


def _plotly_js() -> Path:
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def _prepare_plotly(app) -> None:
    startup = IPYTHON_DIR / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-qra-docs-plotly.py").write_text(PLOTLY_STARTUP, encoding="utf-8")
    os.environ["IPYTHONDIR"] = str(IPYTHON_DIR)
    # Plotly's renderer env variable would override the default set above.
    os.environ.pop("PLOTLY_RENDERER", None)


def _copy_plotly_js(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        target = Path(app.outdir) / "_static" / "plotly.min.js"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_plotly_js(), target)


def _page_scripts(app, pagename, templatename, context, doctree) -> None:
    if doctree is not None and "Plotly.newPlot" in context.get("body", ""):
        app.add_js_file("plotly.min.js", priority=100)


# ---------------------------------------------------------------------------------------
# Tolerant tables of contents.  Other pages are added under docs/ as the project grows
# (the serving threat model, a coverage table, ...).  A ``%PAGES%`` line in a toctree is
# replaced by the pages of that folder: those named in PAGE_ORDER first, in that order,
# then any other page of the folder alphabetically.  A new page therefore appears in the
# navigation without editing an index, and a page that does not exist yet is not an error.
# ---------------------------------------------------------------------------------------
PAGE_ORDER = {
    "": [
        "install",
        "user-guide/index",
        "measures",
        "conventions",
        "intervals",
        "intervals-engine",
        "coverage",
        "file-formats",
        "app",
        "serving",
        "cli",
        "api/index",
        "examples/index",
        "decisions",
        "performance",
        "contributing",
        "references",
        "changelog",
    ],
    "user-guide": ["researcher", "organiser", "teacher"],  # then the topic pages, alphabetically
}


def _folder_pages(found_docs, folder: str) -> list[str]:
    prefix = f"{folder}/" if folder else ""
    here = {d[len(prefix) :] for d in found_docs if d.startswith(prefix)}
    direct = {d for d in here if "/" not in d and d != "index"}
    indexes = {d for d in here if d.count("/") == 1 and d.endswith("/index")}
    candidates = direct | indexes
    ordered = [d for d in PAGE_ORDER.get(folder, []) if d in candidates]
    return ordered + sorted(candidates - set(ordered))


def _expand_pages(app, docname, source) -> None:
    if "%PAGES%" not in source[0]:
        return
    folder = docname.rpartition("/")[0]
    pages = _folder_pages(app.env.found_docs, folder)
    source[0] = source[0].replace("%PAGES%", "\n".join(pages))


def _changelog(app, docname, source) -> None:
    """The changelog page shows ../CHANGELOG.md (without its own title), when it exists."""
    if docname != "changelog" or "%CHANGELOG%" not in source[0]:
        return
    path = ROOT / "CHANGELOG.md"
    if path.exists():
        app.env.note_dependency(str(path))
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"\A\s*#\s[^\n]*\n", "", text)  # the page has its title already
    else:
        text = "The repository has no `CHANGELOG.md` yet."
    source[0] = source[0].replace("%CHANGELOG%", text)


def setup(app):
    _prepare_plotly(app)
    app.connect("source-read", _expand_pages)
    app.connect("source-read", _changelog)
    app.connect("html-page-context", _page_scripts)
    app.connect("build-finished", _copy_plotly_js)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
