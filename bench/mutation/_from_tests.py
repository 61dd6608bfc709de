"""Collect a module of tests/ into the mutation run (bench/mutation is the run's one test path).

mutmut's config cannot name a file that may be missing, so each module of tests/ the run needs
has a stub here that imports it, as pytest imports the modules of tests/ (that folder on
sys.path, the module by its own name), and takes its names. tests/conftest.py's fixtures, should
these modules use any, would have to be imported into bench/mutation/conftest.py.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[2] / "tests"


def collect(name: str, namespace: dict[str, Any]) -> None:
    """Put the names of tests/``name``.py into ``namespace`` (a stub's globals), if it exists."""
    if (TESTS / f"{name}.py").exists():
        if str(TESTS) not in sys.path:
            sys.path.insert(0, str(TESTS))
        module = importlib.import_module(name)
        namespace.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
