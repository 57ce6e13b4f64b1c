"""``python -m qra_widgets``: the ``qra-widgets`` command line (:func:`qra_widgets.cli.main`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
