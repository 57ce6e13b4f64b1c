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


def test_no_module_grows_past_about_six_hundred_lines():
    """A module that grows past ~600 lines is split by what it does (the largest today: cli.py, 614)."""
    sizes = {path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in (ROOT / "qra_widgets").rglob("*.py")}
    assert max(sizes.values()) > 100  # the walk found the package
    too_long = {name: lines for name, lines in sizes.items() if lines > 650}
    assert not too_long, too_long
