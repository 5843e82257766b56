"""Where the tests find the project, its data and its assets: one place instead of a ``Path(__file__)`` walk in every
test module (they lie one or two folders below ``tests/``). ``tests/`` is on ``sys.path`` through its conftest.py."""
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
DATA = TESTS / "data"  # the real score sets copied for the tests (see each folder's SOURCE.txt)
ASSETS = ROOT / "assets"  # the app's demo data, which tests read too
