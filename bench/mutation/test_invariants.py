"""tests/test_invariants.py's tests in the mutation run, once that module exists.

Its tests are collected here (bench/mutation is the run's one test path; mutmut's config
cannot name a file that may be missing), imported as pytest imports the modules of tests/
(that folder on sys.path, the module by its own name). tests/conftest.py's fixtures, should
it grow any, would have to be imported into bench/mutation/conftest.py.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

_TESTS = Path(__file__).resolve().parents[2] / "tests"

if (_TESTS / "test_invariants.py").exists():
    if str(_TESTS) not in sys.path:
        sys.path.insert(0, str(_TESTS))
    _module = importlib.import_module("test_invariants")
    globals().update({k: v for k, v in vars(_module).items() if not k.startswith("__")})
