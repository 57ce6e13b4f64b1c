"""The house plan as a test: the import-linter contracts in ``.importlinter`` hold.

Data flows one way (measures -> study -> io -> engine -> compare/overview -> report -> widgets
-> CLI) and nothing imports in a circle; a module that imports up the plan fails here.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_of_the_house_plan_are_kept():
    command = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    done = subprocess.run([command, "--config", str(ROOT / ".importlinter"), "--no-cache"], check=False, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout
