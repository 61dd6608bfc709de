"""A pytest plugin that runs a test session with one held-out fault planted (bench/fault_kinds.py).

``DPVIZ_PLANT=<id> pytest -p bench.fault_plugin ...`` starts the patches of
``bench.fault_plants.PLANTS[id]`` when pytest is configured (before any test module is imported,
in the main process and in any xdist worker; processes forked by a test inherit them) and stops
them when pytest unconfigures. Without ``DPVIZ_PLANT`` it plants nothing.

``DPVIZ_PLANT_REPORT=<path>``: the first failed test (its node id, phase, the exception's type
and the first lines of its message) is written there as JSON, for the table.
"""

from __future__ import annotations

import json
import os
from typing import Any

_active: list[Any] = []
_first: dict[str, Any] = {}


def pytest_configure(config: Any) -> None:
    """Start the plant's patches (DPVIZ_PLANT), if any."""
    plant_id = os.environ.get("DPVIZ_PLANT")
    if not plant_id:
        return
    from bench.fault_plants import PLANTS

    if plant_id not in PLANTS:
        raise ValueError(f"DPVIZ_PLANT={plant_id!r} is no plant of bench.fault_plants")
    for patch in PLANTS[plant_id].patches():
        patch.start()
        _active.append(patch)


def pytest_unconfigure(config: Any) -> None:
    """Stop the patches, last started first."""
    while _active:
        _active.pop().stop()


def _message(report: Any) -> tuple[str, str]:
    """(exception type, the first lines of its message) of a failed report."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    kind, _, rest = text.partition(":")
    if " " in kind or not rest:
        kind, rest = "", text
    return kind.strip(), rest.strip()


def pytest_runtest_logreport(report: Any) -> None:
    """Keep the first failure (DPVIZ_PLANT_REPORT)."""
    path = os.environ.get("DPVIZ_PLANT_REPORT")
    if not path or _first or not report.failed:
        return
    kind, message = _message(report)
    _first.update(nodeid=report.nodeid, when=report.when, exception=kind,
                  message="\n".join(message.splitlines()[:12])[:4000])
    with open(path, "w", encoding="utf-8") as f:
        json.dump(_first, f, ensure_ascii=False, indent=1)
