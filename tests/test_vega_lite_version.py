"""Nothing we draw depends on Vega-Lite newer than JupyterLab's renderer (issue 13).

altair 5.5 writes specs for Vega-Lite 5.20.1; JupyterLab 4.6's renderer (and so Voilà's) bundles
Vega-Lite 5.6.1, and the browser console warns about the difference. Every chart the notebooks
commit, and the explorers' charts at their defaults, must be valid Vega-Lite **5.6.1**: its
JSON schema (``tests/data/vega-lite-5.6.1-schema.json.gz``, from the npm package
``vega-lite@5.6.1``, ``build/vega-lite-schema.json``) refuses any property that 5.6.1 does not
know. The browser test then checks that these charts draw marks in both front-ends.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import jsonschema
import pytest

from dpviz.explore import audit as au
from dpviz.explore import building_blocks as bb
from dpviz.explore import compare as cmp

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "tests" / "data" / "vega-lite-5.6.1-schema.json.gz"
MIME = "application/vnd.vegalite.v5+json"


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(gzip.decompress(SCHEMA.read_bytes()))
    return jsonschema.validators.validator_for(schema)(schema)


def committed_specs() -> list[tuple[str, dict]]:
    specs = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for i, cell in enumerate(json.loads(path.read_text())["cells"]):
            for output in cell.get("outputs", []):
                if MIME in output.get("data", {}):
                    specs.append((f"{path.stem} cell {i}", output["data"][MIME]))
    return specs


def _problems(validator, spec: dict) -> list[str]:
    return [f"{list(e.path)[:6]}: {e.message[:160]}" for e in validator.iter_errors(spec)]


def test_the_committed_charts_are_valid_vega_lite_5_6_1(validator):
    specs = committed_specs()
    assert len(specs) >= 20  # every notebook draws; an empty list would pass vacuously
    bad = {name: _problems(validator, spec) for name, spec in specs}
    assert not any(bad.values()), {k: v for k, v in bad.items() if v}


@pytest.mark.parametrize("chart", [
    lambda: bb.noise_chart(1.0, "discrete_laplace"),
    lambda: bb.selection_chart(0.1, next(iter(bb.SELECTION_EXAMPLES))),
    lambda: bb.budget_game_chart(0.1, 0.4, 0.4),
    lambda: au.audit_explorer_chart("discrete Laplace count", 1.0, 2_000),
    lambda: cmp.compare_explorer_chart("nursery", 1.0, 1000),
], ids=["noise", "selection", "budget", "audit", "compare"])
def test_the_explorers_charts_are_valid_vega_lite_5_6_1(validator, chart):
    assert not _problems(validator, chart().to_dict())


def test_the_check_refuses_a_property_5_6_1_does_not_know(validator):
    spec = dict(committed_specs()[0][1])
    spec["mark"] = {"type": "bar", "notAVegaLite561Property": 1}
    assert _problems(validator, spec)
