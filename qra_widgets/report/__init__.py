"""Writing results for people: escaping by destination (:mod:`qra_widgets.report.escape`)."""
