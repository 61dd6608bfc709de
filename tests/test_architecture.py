"""The package's shape, checked from the source (issues 12 and 24).

* Layers you can see in the folders (:data:`ALLOWED`): the core (the modules at the top of
  ``dpviz``), ``data``, ``trees``, ``pseudocode`` and ``audit`` import nothing above them and
  neither altair nor ipywidgets; ``experiments`` imports no UI; ``ui`` (charts, widgets,
  exercise checking) imports only the layers below it; ``explore`` (one module per notebook)
  may import anything, and only the notebooks and tests import it.

* ``dpviz.explore`` (the notebooks' views) imports nothing from ``dpviz.leaf_release``
  or ``dpviz.keyed``: explorers use estimators through their public API only.
* No module reads another module's private names: no ``from m import _x`` across
  modules, and no ``obj._x`` on anything but ``self``/``cls`` unless ``_x`` is defined
  in the same module (the module's own classes comparing two of their instances). One
  exception, :data:`INSTRUMENTS`: the release invariants hook the privacy layer's internals
  (its charges, reads and draws) while they watch a fit, as a debugger would; the suite's
  planted bugs read a table's rows without a charge, as the faulty code they stand for does.
* No import cycles, counting function-level imports (which would only hide a cycle)
  and ignoring ``if TYPE_CHECKING:`` blocks (not executed).
* ``dpviz/explore`` holds under 25 % of the package's lines; no function in ``dpviz``
  has more than 80 lines of code (docstring, blank and comment lines not counted).
* Each paper has its reference implementation in ``dpviz.pseudocode`` and an
  equality test against the fast estimator.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dpviz"
MAX_FUNCTION_LINES = 80
MAX_EXPLORE_SHARE = 0.25


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {
    _module_name(p): (p, ast.parse(p.read_text(encoding="utf-8"), filename=str(p)))
    for p in sorted(PACKAGE.rglob("*.py"))
}


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """ids of the nodes inside ``if TYPE_CHECKING:`` blocks."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            for child in node.body:
                skipped.update(id(n) for n in ast.walk(child))
    return skipped


def _import_nodes(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that run (any level, ``if TYPE_CHECKING:`` blocks left out)."""
    skipped = _type_checking_nodes(tree)
    return [node for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in skipped]


def _imports(name: str) -> set[str]:
    """The dpviz modules ``name`` imports at run time (module level or inside functions)."""
    path, tree = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("dpviz"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if not module.startswith("dpviz"):
                continue
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                found.add(sub if sub in MODULES else module)
    return {m for m in found if m in MODULES and m != name}


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    graph = {name: _imports(name) for name in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for name in graph:
        if name not in index:
            visit(name)
    return components


#: The layers each layer may import (besides itself and the package root ``dpviz``).
ALLOWED = {
    "core": {"core"},
    "data": {"core"},
    "trees": {"core"},
    "pseudocode": {"core", "trees"},
    "audit": {"core", "data", "trees"},
    "experiments": {"core", "data", "trees"},
    "ui": {"core", "data", "trees", "audit"},
    "explore": {"core", "data", "trees", "pseudocode", "audit", "experiments", "ui"},
}
#: Layers that must not import a chart or widget library.
NO_UI_LIBRARIES = {"core", "data", "trees", "pseudocode", "audit", "experiments"}
UI_LIBRARIES = {"altair", "ipywidgets"}


def layer(name: str) -> str:
    """The layer of module ``name``: its folder under ``dpviz``, or ``core`` at the top."""
    parts = name.split(".")
    if len(parts) == 1:
        return "root"
    return parts[1] if len(parts) > 2 or (PACKAGE / parts[1]).is_dir() else "core"


def _external_imports(name: str) -> set[str]:
    """The top-level names of the non-dpviz packages ``name`` imports (at any level)."""
    found: set[str] = set()
    for node in _import_nodes(MODULES[name][1]):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found - {"dpviz"}


def layer_violations(modules: dict) -> list[str]:
    """Imports that cross the layers the wrong way, as ``"a -> b"`` lines."""
    found = []
    for name in modules:
        own = layer(name)
        if own == "root":
            continue
        for other in sorted(_imports(name)):
            target = layer(other)
            if target not in ("root", own) and target not in ALLOWED[own]:
                found.append(f"{name} -> {other}")
        if own in NO_UI_LIBRARIES:
            found += [f"{name} -> {lib}" for lib in sorted(_external_imports(name) & UI_LIBRARIES)]
    return found


def test_layers_import_only_what_is_below_them():
    assert layer_violations(MODULES) == []


def test_layer_rule_has_power(monkeypatch):
    """A planted upward import and a planted altair import in the core are both found."""
    planted = dict(MODULES)
    source = "import altair\nfrom dpviz.ui.plots import ledger_chart\n"
    planted["dpviz.privacy"] = (MODULES["dpviz.privacy"][0], ast.parse(source))
    monkeypatch.setattr(sys.modules[__name__], "MODULES", planted)
    assert {"dpviz.privacy -> dpviz.ui.plots", "dpviz.privacy -> altair"} <= set(
        layer_violations(planted))


def test_every_module_is_in_a_known_layer():
    assert {layer(n) for n in MODULES} <= set(ALLOWED) | {"root"}


def test_importing_the_estimators_loads_no_ui_library():
    code = ("import sys, dpviz.trees.forest, dpviz.trees.id3, dpviz.trees.rdt_sharp,"
            " dpviz.audit.suite;"
            " print(sorted(m for m in sys.modules if m.split('.')[0] in ('altair', 'ipywidgets')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_importing_dpviz_loads_no_ui_module_and_installs_nothing():
    """``import dpviz`` has no side effect: no ``dpviz.ui`` module, no IPython hook (it
    imported ``dpviz.ui.kernel`` and installed an exception handler in a kernel)."""
    code = ("import sys, dpviz; print(sorted(m for m in sys.modules"
            " if m.startswith('dpviz.ui') or m.split('.')[0] in ('IPython', 'altair')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


#: The public methods each estimator shows beyond scikit-learn's (issue 38: the FI forest
#: showed 14, among them the experiments' encoded and located fast paths, now in
#: ``dpviz.experiments.fast`` and ``dpviz.domain.Encoded``).
PUBLIC_METHODS = {
    "DPRandomForestClassifier": {"export_release", "released_labels", "votes"},
    "PrivateRDTClassifier": {"export_release", "released_counts", "update"},
    "RandomDecisionTreeClassifier": {"released_counts", "visited_leaves"},
    "RDTSharpClassifier": {"refit", "released_counts"},
    "SuLQID3Classifier": {"apply", "unclassified_mask"},
    "DiffPID3Classifier": {"apply", "unclassified_mask"},
    "DiffPC45Classifier": {"apply", "unclassified_mask"},
    "PrivaTreeClassifier": {"apply"},
}


def test_estimators_show_fit_predict_and_at_most_three_more_methods():
    from sklearn.base import BaseEstimator, ClassifierMixin

    import dpviz

    for name, extra in PUBLIC_METHODS.items():
        cls = getattr(dpviz, name)
        shown = {m for m in dir(cls) if not m.startswith("_") and callable(getattr(cls, m))
                 and not hasattr(BaseEstimator, m) and not hasattr(ClassifierMixin, m)
                 and not (m.startswith("set_") and m.endswith("_request"))}
        assert shown == {"fit", "predict", "predict_proba"} | extra, name
        assert len(extra) <= 3
def test_interpret_is_imported_by_the_first_dp_ebm_only():
    """interpret (70 MB, over a second to import) loads when a DP-EBM is built, not before:
    the registry, notebook 07's module and the other notebooks' setup do not pay for it."""
    code = ("import sys, dpviz, dpviz.experiments.registry as r, dpviz.explore;"
            " dpviz.explore.load_all();"
            " before = sorted(m for m in sys.modules if m.split('.')[0] == 'interpret');"
            " from dpviz.data.uci import load;"
            " r.make_estimator('DP-EBM (δ = 1e-6)', 1.0, load('votes'));"
            " print(before, 'interpret.privacy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT)
    assert out.stdout.strip() == "[] True"


def test_no_import_cycles():
    assert _cycles() == []


def test_package_imports_are_an_acyclic_graph_even_with_a_planted_cycle(monkeypatch):
    """The cycle finder has power: a planted back edge is found."""
    planted = dict(MODULES)
    planted["dpviz.errors"] = (
        MODULES["dpviz.errors"][0],
        ast.parse("import dpviz.domain\n"),  # domain imports errors
    )
    monkeypatch.setattr(sys.modules[__name__], "MODULES", planted)
    assert any("dpviz.errors" in c and "dpviz.domain" in c for c in _cycles())


def test_explorers_do_not_import_release_internals():
    offenders = {
        name: sorted(_imports(name) & {"dpviz.leaf_release", "dpviz.keyed"})
        for name in MODULES
        if name.startswith("dpviz.explore")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def _defined_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_reads(source: str) -> list[str]:
    """Reads of another module's private names in ``source`` (see the module docstring)."""
    tree = ast.parse(source)
    defined = _defined_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            found += [f"line {node.lineno}: from {node.module} import {a.name}"
                      for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            if node.attr not in defined:
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


#: Modules that instrument another's internals to audit them, and the names they hook.
INSTRUMENTS = {"dpviz.audit.invariants": {
    "_LeafRelease", "_charge", "_read", "_getframe", "_values", "_visited", "_codes",
    "_labels"}, "dpviz.audit.suite": {"_read"}}


def test_no_module_reads_another_modules_private_names():
    offenders = {
        name: [r for r in private_reads(path.read_text(encoding="utf-8"))
               if not any(r.endswith(h) or f" import {h}" in r for h in INSTRUMENTS.get(name, ()))]
        for name, (path, _) in MODULES.items()
    }
    assert {k: v for k, v in offenders.items() if v} == {}


@pytest.mark.parametrize(
    ("source", "n_found"),
    [
        ("from dpviz.trees._base import _tidy\n", 1),
        ("def f(model):\n    return model._flat_\n", 1),
        ("class A:\n    def f(self, other):\n        self._x = 1\n        return other._x\n", 0),
        ("def f(self):\n    return self._anything\n", 0),
        ("def f(model):\n    return model.__class__\n", 0),
    ],
)
def test_private_read_rule_has_power(source, n_found):
    assert len(private_reads(source)) == n_found


def _code_lines(function: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> int:
    body = function.body
    start = body[0].lineno
    first = body[0]
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        start = first.end_lineno + 1
    return sum(
        1 for line in lines[start - 1 : function.end_lineno]
        if line.strip() and not line.strip().startswith("#")
    )


def test_no_function_over_80_lines_of_code():
    long = {}
    for name, (path, tree) in MODULES.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = _code_lines(node, lines)
                if n > MAX_FUNCTION_LINES:
                    long[f"{name}.{node.name}"] = n
    assert long == {}


def test_explorers_are_under_a_quarter_of_the_package():
    def n_lines(path: Path) -> int:
        return len(path.read_text(encoding="utf-8").splitlines())

    total = sum(n_lines(p) for p, _ in MODULES.values())
    explore = sum(n_lines(p) for n, (p, _) in MODULES.items() if n.startswith("dpviz.explore"))
    assert explore / total < MAX_EXPLORE_SHARE, f"explore holds {explore} of {total} lines"


@pytest.mark.parametrize("paper", ["jpw", "fs", "rdt_sharp", "fi", "privatree"])
def test_every_paper_has_a_reference_implementation_tested_equal(paper):
    assert f"dpviz.pseudocode.{paper}" in MODULES
    test = ROOT / "tests" / f"test_pseudocode_{paper}.py"
    assert test.exists()
    assert "pseudocode" in test.read_text(encoding="utf-8")


def test_every_data_file_in_the_package_is_declared_package_data():
    """A data file read at run time ships in the wheel: ``pyproject.toml`` lists it."""
    import fnmatch
    import tomllib

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["dpviz"]
    files = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*")
             if p.is_file() and p.suffix in (".json", ".csv")]
    assert files
    assert [f for f in files if not any(fnmatch.fnmatch(f, pat) for pat in patterns)] == []


#: The modules that may keep results in memory (issue 24: one cache mechanism): the
#: experiment runner (``runner.recall``/``remember``, beside its disk cache), the data
#: loader (parsed files) and the domain's code tables.
CACHE_MODULES = {"dpviz.experiments.runner", "dpviz.data.uci", "dpviz.domain"}


def in_memory_caches(tree: ast.Module) -> list[str]:
    """``functools`` caches and module-level empty dicts (a hand-made cache) in ``tree``."""
    cache_names = {"cache", "lru_cache", "functools.cache", "functools.lru_cache"}
    imported = {a.asname or a.name for n in ast.walk(tree)
                if isinstance(n, ast.ImportFrom) and n.module == "functools" for a in n.names}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                name = ast.unparse(decorator).split("(")[0]
                if name in cache_names and (name.startswith("functools.") or name in imported):
                    found.append(f"{node.name}: @{name}")
    for node in tree.body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        empty = (isinstance(value, ast.Dict) and not value.keys) or (
            isinstance(value, ast.Call) and not value.args
            and ast.unparse(value.func) in ("dict", "OrderedDict", "collections.OrderedDict"))
        if empty:
            found.append(ast.unparse(node).split("=")[0].strip())
    return found


def test_caches_live_in_at_most_three_modules():
    caching = {name: in_memory_caches(tree) for name, (_, tree) in MODULES.items()}
    assert {k: v for k, v in caching.items() if v and k not in CACHE_MODULES} == {}


@pytest.mark.parametrize(("source", "n_found"), [
    ("import functools\n@functools.lru_cache(maxsize=4)\ndef f(): pass\n", 1),
    ("from functools import cache\n@cache\ndef f(): pass\n", 1),
    ("from dpviz.experiments.runner import cache\n@cache\ndef f(): pass\n", 0),  # the disk cache
    ("_POINTS: dict[str, int] = {}\n", 1),
    ("NAMES = {'a': 1}\n", 0),
])
def test_cache_rule_has_power(source, n_found):
    assert len(in_memory_caches(ast.parse(source))) == n_found
