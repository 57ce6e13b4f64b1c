"""Every writer: assessments and studies out to people and to other tools.

* :mod:`~qra_widgets.report.template` -- the QRA++ reporting template, once: its rows as text cells,
  its caption, the sentence on its intervals;
* :mod:`~qra_widgets.report.formats` -- the writers, functions taking an
  :class:`~qra_widgets.Assessment` (Markdown, LaTeX, CSV, JSON, the narrative); ``Assessment.to_*``
  delegate to them in one line;
* :mod:`~qra_widgets.report.html` -- the one HTML door: ``table(frame)``, ``template_html(assessment)``
  and the HTML escaper, used by the app's views, the static site and the atlas site;
* :mod:`~qra_widgets.report.escape` -- one escaping function per output language (LaTeX, BibTeX,
  Markdown, HTML, CSV), used by every writer;
* :mod:`~qra_widgets.report.csvsafe` -- the CSV injection rule for every CSV written for people;
* :mod:`~qra_widgets.report.site` -- the static website of a library (Jinja2 templates in ``templates/``).

Readers are :mod:`qra_widgets.io`.
"""
