"""Every writer: assessments and studies out to people and to other tools.

* :mod:`~qra_widgets.report.escape` -- one escaping function per output language (LaTeX, BibTeX,
  Markdown, HTML, CSV), used by every writer;
* :mod:`~qra_widgets.report.csvsafe` -- the CSV injection rule for every CSV written for people;
* :mod:`~qra_widgets.report.site` -- the static website of a library (Jinja2 templates in ``templates/``).

Readers are :mod:`qra_widgets.io`.
"""
