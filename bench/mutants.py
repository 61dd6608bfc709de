"""`make mutants`: the mutation score of the privacy suite over the release path.

mutmut 3.8.1 (pinned in requirements.txt) mutates the functions listed in
bench/mutation/functions.txt (the release path: where a fault changes what is released or what
it costs), and nothing else, and runs each mutant against the tests of the privacy suite that
call its function, in a process forked per mutant, two at a time (``--jobs``): every claims
row and planted bug at the row's own size (bench/mutation/test_privacy_suite.py), and
tests/test_invariants.py and tests/test_privacy_edges.py as they are; the cheapest tests first
(mutmut orders a mutant's tests by their duration in its stats run), the first failure kills.

A mutant whose only change is the text of a message is **equivalent by rule** and is not run
(:func:`message_text_only`: the changed tokens are string literals, in the argument of a
``raise ...Error(...)``, of ``warnings.warn(...)``, or a ``label=`` of a call or the default
of a ``label`` parameter: a ledger label; the text is public, fixed and holds no row). Every
other survivor is triaged one by one in bench/mutation/triage.csv: equivalent (argued: not run
again while its change stays the same), conservative (a release can differ but the claim
holds: more noise than it needs, or less ε spent than charged; a utility change the privacy
suite rightly does not see, still counted against the score), target (a gap of the suite: the
check that closes it is named) or open (not triaged yet: ``--check`` fails).

A run continues the stored results (an interrupted run resumes; a mutant with a result is not
run again) as long as dpviz, the list, the config and the suite are those they were computed
on (:func:`fingerprint`); otherwise it starts afresh. tests/test_privacy_edges.py is the
exception: tests added there (and nothing else changed in it) can only kill more, so the
survivors alone are run again, with them (:func:`added_only`). The results go into
docs/privacy.md between the ``mutants`` markers: per function killed / timeout / survived /
equivalent (by rule, argued) / not reached, the score (conservative survivors count against
it), and every survivor with its triage.

Usage (from the repository root)::

    python -m bench.mutants                  # every function; writes the docs
    python -m bench.mutants --only 'dpviz.mechanisms.*' --only '*PrivateTable._charge'
                                             # those functions only
    python -m bench.mutants --fresh          # forget the stored results first
    python -m bench.mutants --report         # rewrite the docs from the stored results
    python -m bench.mutants --check          # exit 1 if a survivor is open (stored results)
    python -m bench.mutants --list survived  # the stored mutants of a status, with their change

Run it this way, never as a bare ``mutmut run``: bench/mutants.py hooks four steps of mutmut
(pinned, so the hooks are checked against one version; :func:`_drive`):

* generation: mutants only inside the listed functions (mutmut would mutate every function
  of a file and put its trampoline in front of each: the numba kernels of dpviz/keyed.py and
  dpviz/trees/random_tree.py cannot compile a trampoline, and hot helpers pay for it);
* selection: a mutant equivalent by rule is not run; nor one on a line the suite never
  executes (it cannot be killed: reported as "not reached"); mutmut's own
  ``mutate_only_covered_lines`` would drop such mutants before numbering them, so the names in
  triage.csv would move whenever the suite's coverage did;
* the mutants that already have a result are not run again (mutmut reruns every mutant it is
  given by name): the results in the work folder are all for the same code and tests; nor
  are those triage.csv calls equivalent (for the change they still make);
* no clean run of the selected tests before the mutants: mutmut's stats run (its per-test
  map) ran the whole suite unmutated on the same code, and stops the run if a test fails
  (a change of dpviz, the tests or the list empties the work folder: :func:`fingerprint`).

mutmut's work folder is ``mutants/`` (ignored by git): its copy of dpviz with every mutant,
its per-test map (``mutmut-stats.json``) and each mutant's exit code (``*.meta``). Inspect one
mutant with ``.venv/bin/mutmut show NAME``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import csv
import fnmatch
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import time
import tokenize
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "bench" / "mutation"
FUNCTIONS = HERE / "functions.txt"
TRIAGE = HERE / "triage.csv"
DOC = ROOT / "docs" / "privacy.md"
INVARIANTS = ROOT / "tests" / "test_invariants.py"
EDGES = ROOT / "tests" / "test_privacy_edges.py"
WORK = Path("mutants")  # mutmut's work folder, relative to the repository root (its cwd)
RUNS = WORK / "dpviz-runs.json"  # when, where and how long each run of this script took
COVERAGE = WORK / "dpviz-coverage.json"  # the lines the suite executes, unmutated
FINGERPRINT = WORK / "dpviz-fingerprint"  # what the stored results were computed from
EDGES_SEEN = WORK / "dpviz-edges.py"  # the tests/test_privacy_edges.py they were computed with
RULE = WORK / "dpviz-message-text.json"  # each mutant: equivalent by rule (message text) or not
LINES = ".dpviz-lines.json"  # per mutated file: each mutant's line in the source

START = "<!-- mutants:start (generated by make mutants: bench/mutants.py) -->"
END = "<!-- mutants:end -->"
TOOL = "mutmut"
VERSION = "3.8.1"
#: A survivor's verdicts (triage.csv): only "open" fails ``--check``; only "equivalent" leaves
#: the score's denominator ("conservative" is a survivor, privacy-safe: it counts against it).
VERDICTS = ("equivalent", "conservative", "target", "open")
#: The verdicts whose ``target`` column names a test: required for "target", optional for
#: "conservative" (the unit test outside the suite that catches the utility change).
NAMED = {"target": True, "conservative": False}
#: Mutants run at a time (mutmut's forked children): the two cores of the reference machine.
JOBS = 2
#: The environment of the run: numpy's engine (numba's kernels are never needed at the suite's
#: sizes; the engine is read at import), no on-disk cache, one thread per mutant process.
ENVIRONMENT = {"DPVIZ_ENGINE": "numpy", "DPVIZ_CACHE": "off", "OMP_NUM_THREADS": "1",
               "OPENBLAS_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}


# ------------------------------------------------------------------------------ the functions
@dataclass(frozen=True)
class Function:
    """One function of the release path: its file and its name (``Class.method`` for a method)."""

    path: str
    name: str

    @property
    def module(self) -> str:
        return self.path.removesuffix(".py").replace("/", ".")

    @property
    def full(self) -> str:
        """``dpviz.privacy.PrivateTable._charge``: what ``--only`` patterns match."""
        return f"{self.module}.{self.name}"

    @property
    def prefix(self) -> str:
        """mutmut's name of this function's mutants, less the number: ``…__mutmut_``."""
        cls, _, name = self.name.rpartition(".")
        mangled = f"xǁ{cls}ǁ{name}" if cls else f"x_{name}"
        return f"{self.module}.{mangled}__mutmut_"


def read_functions(path: Path = FUNCTIONS) -> list[Function]:
    """The functions of ``functions.txt`` (``file function`` per line, ``#`` comments)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("#", 1)[0].split()
        if fields:
            if len(fields) != 2:
                raise ValueError(f"{path}: expected 'file function', got {line!r}")
            out.append(Function(*fields))
    if len(set(out)) != len(out):
        raise ValueError(f"{path}: a function is listed twice")
    return out


def _qualified_names(module: Any) -> dict[int, str]:
    """id(node) -> name of each top-level function and class method of a libcst module."""
    import libcst as cst

    names = {}
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            names[id(statement)] = statement.name.value
        elif isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock):
            for method in statement.body.body:
                if isinstance(method, cst.FunctionDef):
                    names[id(method)] = f"{statement.name.value}.{method.name.value}"
    return names


# ------------------------------------------------------------------------------ the rule
#: Tokens that carry no code: a mutant and its original are compared without them.
_LAYOUT = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT,
           tokenize.ENDMARKER}


def message_text_only(original: str, mutant: str) -> bool:
    """Whether ``mutant`` (a function's source) differs from ``original`` in message text only.

    The rule: every token that differs is a string literal on both sides, whose code (an
    f-string's replacement fields) is the same, and that is, or is part of (by concatenation),
    an argument of ``raise <Name>Error(...)`` or of ``warnings.warn(...)``, a ``label=``
    keyword argument of a call, or the default of a parameter named ``label`` (a ledger
    label). Such text is public and fixed, holds no row and decides nothing: no release can
    differ (dpviz never branches on a message or a label).
    """
    a, b = _code_tokens(original), _code_tokens(mutant)
    if a is None or b is None or len(a) != len(b):
        return False
    changed = [(x, y) for x, y in zip(a, b, strict=True)
               if (x.type, x.string) != (y.type, y.string)]
    if not changed or any(x.type != tokenize.STRING or y.type != tokenize.STRING
                          or _literal_code(x.string) is None
                          or _literal_code(x.string) != _literal_code(y.string)
                          for x, y in changed):
        return False
    tree = ast.parse(original)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    return all(_in_message(tree, parents, x.start, x.end) for x, _ in changed)


def _code_tokens(source: str) -> list[tokenize.TokenInfo] | None:
    try:
        return [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
                if t.type not in _LAYOUT]
    except (tokenize.TokenError, SyntaxError):
        return None


def _literal_code(token: str) -> str | None:
    """A string token's code: "" for a plain string, an f-string's replacement fields as an AST
    dump; None for anything else (bytes)."""
    try:
        node = ast.parse(token, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return ""
    if isinstance(node, ast.JoinedStr):
        return ast.dump(ast.Tuple([v for v in node.values if isinstance(v, ast.FormattedValue)]))
    return None


def _in_message(tree: ast.AST, parents: dict[ast.AST, ast.AST], start: tuple[int, int],
                end: tuple[int, int]) -> bool:
    """Whether the string token at ``start``-``end`` of ``tree``'s source is message text."""
    containing = [n for n in ast.walk(tree) if hasattr(n, "end_lineno")
                  and (n.lineno, n.col_offset) <= start and (n.end_lineno, n.end_col_offset) >= end]
    node = min(containing, key=lambda n: (n.end_lineno - n.lineno, n.end_col_offset - n.col_offset),
               default=None)
    if not isinstance(node, ast.Constant | ast.JoinedStr):
        return False
    while (isinstance(parents.get(node), ast.JoinedStr)
           or (isinstance(parents.get(node), ast.BinOp) and isinstance(parents[node].op, ast.Add))):
        node = parents[node]  # a part of a concatenation: the whole string
    parent = parents.get(node)
    if isinstance(parent, ast.keyword):
        if parent.arg == "label":
            return True
        call = parents.get(parent)
    elif isinstance(parent, ast.Call) and node in parent.args:
        call = parent
    elif isinstance(parent, ast.arguments):
        return _parameter_of_default(parent, node) == "label"
    else:
        return False
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    if (isinstance(func, ast.Attribute) and func.attr == "warn"
            and isinstance(func.value, ast.Name) and func.value.id == "warnings"):
        return True
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(
        func, ast.Attribute) else ""
    raised = parents.get(call)
    return isinstance(raised, ast.Raise) and raised.exc is call and name.endswith("Error")


def _parameter_of_default(arguments: ast.arguments, default: ast.AST) -> str | None:
    """The name of the parameter whose default is ``default``."""
    positional = [*arguments.posonlyargs, *arguments.args]
    for arg, value in zip(positional[len(positional) - len(arguments.defaults):],
                          arguments.defaults, strict=True):
        if value is default:
            return arg.arg
    for arg, value in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        if value is default:
            return arg.arg
    return None


def _sources(name: str, path: str) -> tuple[str, str]:
    """The source of a mutant's function, unmutated and mutated (both named as the function)."""
    import libcst as cst
    from mutmut.mutation.diff_apply import (
        read_functions_from_index,
        read_mutant_function,
        read_mutants_module,
        read_original_function,
    )

    functions = read_functions_from_index(name, path)
    if functions is None:
        module = read_mutants_module(path)
        functions = (read_original_function(module, name), read_mutant_function(module, name))
    original, mutant = (cst.Module([f]).code.strip() for f in functions)
    return original, mutant


def message_text_mutants(path_of: dict[str, str]) -> set[str]:
    """Those of the mutants (name -> file) that are equivalent by rule (cached in the work
    folder, whose mutants are those of the code the fingerprint names)."""
    known = json.loads(RULE.read_text(encoding="utf-8")) if RULE.exists() else {}
    missing = [n for n in path_of if n not in known]
    for name in missing:
        known[name] = message_text_only(*_sources(name, path_of[name]))
    if missing:
        RULE.write_text(json.dumps(known, indent=0), encoding="utf-8")
    return {n for n in path_of if known[n]}


# ------------------------------------------------------------------------------ the run (child)
def _drive(patterns: list[str], max_children: int) -> None:
    """Run mutmut's ``run`` in this process, over the mutants matching ``patterns``, hooked.

    A child of :func:`run`: it must not have imported dpviz (mutmut's workers must import the
    mutated copy in ``mutants/``).
    """
    import mutmut
    import mutmut.__main__ as mutmut_main
    from libcst.metadata import MetadataWrapper, PositionProvider
    from mutmut.configuration import config
    from mutmut.mutation import file_mutation
    from mutmut.runners.harness import PytestRunner
    from mutmut.workers.isolation import ForkRunner, run_in_fork_with_result

    if mutmut.__version__ != VERSION:
        raise SystemExit(f"bench/mutants.py hooks mutmut {VERSION}, found {mutmut.__version__}")
    functions = read_functions()
    wanted = {(f.path, f.name): f for f in functions}
    files = sorted({f.path for f in functions})
    if sorted(config().only_mutate) != files:
        raise SystemExit("pyproject.toml [tool.mutmut] only_mutate must list exactly the files "
                         f"of {FUNCTIONS.relative_to(ROOT)}: {files}")

    # 1. generation: only the listed functions' mutants; record each one's source line
    create_mutations = file_mutation.create_mutations

    def listed_mutations(filename: str, code: str, covered_lines: Any = None,
                         coverage_excluded_lines: Any = None) -> Any:
        module, mutations, ignored_classes, ignored_functions = create_mutations(
            filename, code, None, None)
        names = _qualified_names(module)
        kept = [m for m in mutations
                if (filename, names.get(id(m.contained_by_top_level_function))) in wanted]
        positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        numbers: Counter[str] = Counter()
        lines = {}
        for m in kept:  # numbered as mutmut numbers them: per function, in this order, from 1
            function = wanted[filename, names[id(m.contained_by_top_level_function)]]
            numbers[function.name] += 1
            lines[f"{function.prefix}{numbers[function.name]}"] = \
                positions[m.original_node].start.line
        missing = [n for (path, n) in wanted if path == filename and n not in numbers]
        if missing:
            print(f"warning: no mutant in {filename}: {missing}", file=sys.stderr)
        (WORK / (filename + LINES)).write_text(json.dumps(lines, indent=0), encoding="utf-8")
        return module, kept, ignored_classes, ignored_functions

    file_mutation.create_mutations = listed_mutations

    # 2. selection: not equivalent by rule, on the lines the suite executes (measured once per
    # fresh work folder, and again when tests are added to tests/test_privacy_edges.py)
    covered: dict[str, set[int]] = {}

    def store_lines_covered_by_tests() -> None:
        if not COVERAGE.exists():
            with _unmutated(files):
                lines = run_in_fork_with_result(_measure_coverage, PytestRunner(), files)
            COVERAGE.write_text(json.dumps(lines), encoding="utf-8")
        covered.update({p: set(v) for p, v in
                        json.loads(COVERAGE.read_text(encoding="utf-8")).items()})

    mutmut_main.store_lines_covered_by_tests = store_lines_covered_by_tests
    collect = mutmut_main.collect_source_file_mutation_data

    def executed_mutants(*, mutant_names: Any) -> Any:
        mutants, by_path = collect(mutant_names=mutant_names)
        rule = message_text_mutants({key: str(m.path) for m, key, _ in mutants})
        kept = [(m, key, result) for m, key, result in mutants if key not in rule]
        print(f"    {len(mutants) - len(kept)} of {len(mutants)} mutants change only a "
              "message's text: equivalent by rule, not run")
        line_of: dict[str, int] = {}
        for path in files:
            line_of.update(json.loads((WORK / (path + LINES)).read_text(encoding="utf-8")))
        executed = [(m, key, result) for m, key, result in kept
                    if line_of.get(key) in covered.get(str(m.path), ())]
        print(f"    {len(executed)} of the other {len(kept)} on lines the suite executes")
        done = [key for _, key, result in executed if result is not None]
        kept = [(m, key, result) for m, key, result in executed if result is None]
        print(f"    {len(done)} of them have a result on this code and tests already, kept")
        equivalent = _triaged_equivalent([key for _, key, _ in kept], by_path)
        kept = [(m, key, result) for m, key, result in kept if key not in equivalent]
        print(f"    {len(equivalent)} of them triaged equivalent, not run again; "
              f"{len(kept)} to run")
        return kept, by_path

    mutmut_main.collect_source_file_mutation_data = executed_mutants

    # 3. no clean run: the stats run ran the same tests unmutated, and passed (mutmut stops
    # otherwise), on the same code (run() empties the work folder when the fingerprint moves)
    def run_clean_tests(self: ForkRunner, tests: Any) -> int:
        return 0

    ForkRunner.run_clean_tests = run_clean_tests  # type: ignore[method-assign]

    mutmut_main._run(patterns, max_children)


def _triaged_equivalent(names: list[str], by_path: dict[str, Any]) -> set[str]:
    """Those of ``names`` that triage.csv calls equivalent, for the change they still make.

    An equivalent mutant cannot be killed: it is not run again (reported as a survivor).
    """
    triage = read_triage()
    path_of = {key: str(m.path) for m in by_path.values() for key in m.exit_code_by_key}
    return {n for n in names if n in triage and triage[n].verdict == "equivalent"
            and triage[n].diff == diff_of(n, path_of[n])}


@contextlib.contextmanager
def _unmutated(files: list[str]) -> Iterator[None]:
    """The source files in the work folder, unmutated, while the coverage is measured.

    A mutant's line is its line in the source; a rerun's work folder holds mutmut's mutated
    files (every mutant's copy of its function, behind a trampoline), whose lines are not the
    source's. The fingerprint makes the source the code these mutants were made from.

    Each file gets its modification time back too: mutmut (which measures this before it
    generates mutants) mutates a file whose copy is not newer than the source and keeps a copy
    that is ("unmodified"). Restored without it, a fresh run's plain copies (made with the
    source's time) looked newer, and the run of 2026-12-03 17:38 generated no mutant at all.
    """
    saved = {p: ((WORK / p).read_bytes(), (WORK / p).stat()) for p in files
             if (WORK / p).exists()}
    try:
        for p in saved:
            shutil.copyfile(ROOT / p, WORK / p)
        yield
    finally:
        for p, (text, stat) in saved.items():
            (WORK / p).write_bytes(text)
            os.utime(WORK / p, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _measure_coverage(runner: Any, files: list[str]) -> dict[str, list[int]]:
    """The lines of ``files`` the suite executes, unmutated (in a forked child of mutmut's).

    mutmut's own measurement traces every file the tests run (numpy's, pandas', ...): about
    three times slower than tracing only the mutated files, as here.
    """
    import coverage

    paths = {p: str((WORK / p).absolute()) for p in files}
    cov = coverage.Coverage(data_file=None, include=list(paths.values()))
    code = runner.collect_main_test_coverage(cov)
    if code != 0:
        raise RuntimeError(f"the privacy suite fails unmutated (pytest exit {code})")
    data = cov.get_data()
    return {p: sorted(data.lines(path) or ()) for p, path in paths.items()}


def fingerprint() -> str:
    """What stored results depend on: the list, mutmut's config, the suite and dpviz's code.

    tests/test_privacy_edges.py is not in it: see :func:`added_only`.
    """
    paths = [FUNCTIONS, ROOT / "pyproject.toml", INVARIANTS,
             *sorted(HERE.glob("*.py")), *sorted((ROOT / "dpviz").rglob("*.py")),
             *sorted((ROOT / "dpviz" / "audit").glob("*.csv"))]
    digest = hashlib.sha256()
    for path in paths:
        if path.exists():
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def added_only(before: str, after: str) -> bool:
    """Whether the module ``after`` is ``before`` with statements added (its docstring aside).

    Then a survivor of ``before``'s run may be killed by the tests added, and no mutant that a
    test of ``before`` killed can survive: only the survivors need a new run.
    """
    def statements(source: str) -> Counter[str]:
        body = ast.parse(source).body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        return Counter(ast.dump(s) for s in body)

    try:
        return not statements(before) - statements(after)
    except SyntaxError:
        return False


def _forget_survivors() -> int:
    """Set every stored survivor back to "not run" (and the coverage to be measured again)."""
    from mutmut.stats import status_by_exit_code

    forgotten = 0
    for meta_path in WORK.rglob("*.py.meta"):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        codes = meta["exit_code_by_key"]
        survivors = [k for k, v in codes.items() if status_by_exit_code[v] == "survived"]
        for key in survivors:
            codes[key] = None
        if survivors:
            meta_path.write_text(json.dumps(meta, indent=4), encoding="utf-8")
            forgotten += len(survivors)
    COVERAGE.unlink(missing_ok=True)
    return forgotten


def run(functions: list[Function], *, fresh: bool, max_children: int) -> float:
    """Run mutmut over ``functions`` (in a child process); the seconds it took."""
    current = fingerprint()
    edges = EDGES.read_text(encoding="utf-8") if EDGES.exists() else ""
    seen = EDGES_SEEN.read_text(encoding="utf-8") if EDGES_SEEN.exists() else None
    stale = (fresh or not FINGERPRINT.exists() or FINGERPRINT.read_text() != current
             or seen is None or not added_only(seen, edges))
    forgotten = 0
    if not stale and seen != edges:
        forgotten = _forget_survivors()
        print(f"tests were added to {EDGES.relative_to(ROOT)}: the {forgotten} stored "
              "survivors run again")
    runs = json.loads(RUNS.read_text()) if RUNS.exists() and not stale else []
    if WORK.exists() and stale:
        shutil.rmtree(WORK)
    WORK.mkdir(exist_ok=True)
    FINGERPRINT.write_text(current)
    EDGES_SEEN.write_text(edges, encoding="utf-8")
    start = time.time()
    command = [sys.executable, "-m", "bench.mutants", "--drive", str(max_children),
               *(f.prefix + "*" for f in functions)]
    returncode = None
    try:  # an interrupted run is recorded too: the next one resumes it, the time is the sum
        returncode = subprocess.run(command, cwd=ROOT, env={**os.environ, **ENVIRONMENT},
                                    check=False).returncode
    finally:
        seconds = time.time() - start
        runs.append({"date": time.strftime("%Y-%m-%d %H:%M"), "seconds": round(seconds),
                     "functions": [f.full for f in functions], "cores": os.cpu_count(),
                     "children": max_children, "machine": _machine(),
                     "load": [round(x, 2) for x in os.getloadavg()],
                     "edges": EDGES.exists(), "survivors_again": forgotten,
                     "code": _code_version(), "interrupted": returncode != 0})
        RUNS.write_text(json.dumps(runs, indent=1), encoding="utf-8")
    if returncode != 0:
        raise SystemExit(f"mutmut failed (exit {returncode})")
    return seconds


def _code_version() -> str | None:
    """The commit the run mutated, and the files of dpviz or the suite changed since, if any."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
        changed = subprocess.run(["git", "status", "--porcelain", "--", "dpviz", "tests",
                                  "bench/mutation"], cwd=ROOT, check=True,
                                 capture_output=True, text=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return None
    files = [line[3:] for line in changed]
    return head + (f" + {', '.join(files)}" if 0 < len(files) <= 3 else
                   " + local changes" if files else "")


def _machine() -> str:
    from dpviz.audit.suite import machine_line

    return machine_line()


# ------------------------------------------------------------------------------ results
#: A mutant's status: mutmut's (killed, survived, timeout...), or one of these.
RULE_STATUS = "message text"  # equivalent by rule: not run
NOT_RUN = "not run"  # on a line the suite executes, no result yet


@dataclass
class Mutant:
    """One mutant of a listed function and what became of it."""

    name: str
    function: Function
    status: str  # killed, survived, timeout, message text, not executed, not run, or mutmut's
    diff: str  # a survivor's and a triaged mutant's (one line), else empty
    seconds: float | None


def one_line_diff(diff: str) -> str:
    """mutmut's unified diff of a function as ``old → new`` (each side's lines joined)."""
    lines = diff.splitlines()
    old = [x[1:].strip() for x in lines if x.startswith("-") and not x.startswith("---")]
    new = [x[1:].strip() for x in lines if x.startswith("+") and not x.startswith("+++")]
    return f"{' ⏎ '.join(old)} → {' ⏎ '.join(new)}"


def diff_of(name: str, path: str) -> str:
    """A mutant's change as :func:`one_line_diff` shows it (what triage.csv records)."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    return one_line_diff(get_diff_for_mutant(name, path=path))


def results(functions: list[Function], triage: dict[str, Triage]) -> list[Mutant]:
    """Every stored mutant of ``functions`` (mutmut's ``*.meta``) with its status and diff.

    A mutant not run because triage.csv calls it equivalent (:func:`_drive`) is a survivor; a
    mutant equivalent by rule has the status "message text", run or not.
    """
    from mutmut.stats import status_by_exit_code

    covered = json.loads(COVERAGE.read_text()) if COVERAGE.exists() else {}
    out = []
    for path in sorted({f.path for f in functions}):
        meta_path, lines_path = WORK / (path + ".meta"), WORK / (path + LINES)
        if not meta_path.exists() or not lines_path.exists():
            continue
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        line_of = json.loads(lines_path.read_text(encoding="utf-8"))
        executed = set(covered.get(path, ()))
        listed = {name: path for name in meta["exit_code_by_key"]
                  if any(name.startswith(f.prefix) for f in functions if f.path == path)}
        rule = message_text_mutants(listed)
        for function in (f for f in functions if f.path == path):
            for name, code in meta["exit_code_by_key"].items():
                if not name.startswith(function.prefix):
                    continue
                if name in rule:
                    status = RULE_STATUS
                elif code is None:
                    status = NOT_RUN if line_of.get(name) in executed else "not executed"
                else:
                    status = status_by_exit_code[code]
                # the diff of a survivor or a triaged mutant only (libcst parses: ~20 ms)
                triaged = status == NOT_RUN and name in triage
                diff = diff_of(name, path) if status == "survived" or triaged else ""
                if triaged and triage_of(Mutant(name, function, status, diff, None),
                                         triage).verdict == "equivalent":
                    status = "survived"  # not run again: triaged equivalent (_drive)
                out.append(Mutant(name, function, status, diff,
                                  meta["durations_by_key"].get(name)))
    return sorted(out, key=lambda m: (m.function.path, m.function.name,
                                      int(m.name.rpartition("_")[2])))


@dataclass(frozen=True)
class Triage:
    """A survivor's verdict: ``equivalent`` (no release can differ), ``conservative`` (a release
    can differ, the claim holds: more noise or less ε spent than charged), ``target`` (a gap the
    suite should close) or ``open``."""

    verdict: str
    target: str
    reason: str
    diff: str


def read_triage(path: Path = TRIAGE) -> dict[str, Triage]:
    """triage.csv by mutant name (columns mutant, diff, verdict, target, reason)."""
    out = {}
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            t = Triage(row["verdict"], row["target"], row["reason"], row["diff"])
            if not valid(t):
                raise ValueError(f"{path}: {row['mutant']}: verdict must be one of {VERDICTS}, "
                                 "with the target named when it is 'target', optionally when "
                                 "'conservative', and else not")
            if row["mutant"] in out:
                raise ValueError(f"{path}: {row['mutant']} triaged twice")
            out[row["mutant"]] = t
    return out


def valid(t: Triage) -> bool:
    """A known verdict, with a target exactly as :data:`NAMED` allows."""
    if t.verdict not in VERDICTS:
        return False
    if t.verdict not in NAMED:
        return not t.target
    return bool(t.target) or not NAMED[t.verdict]


def triage_of(mutant: Mutant, triage: dict[str, Triage]) -> Triage:
    """Its row of triage.csv; "open" if there is none, or if the mutant's change is not the
    one triaged (the function changed and mutmut renumbered its mutants)."""
    t = triage.get(mutant.name)
    if t is None:
        return Triage("open", "", "not triaged yet", mutant.diff)
    if t.diff != mutant.diff:
        return Triage("open", "", f"stale triage (it was for: {t.diff})", mutant.diff)
    return t


# the statuses counted as caught: a test failed, or the run exceeded mutmut's time limit (a
# SIGKILL after the CPU limit shows as "segfault"); "suspicious" is a crash of another kind
CAUGHT = ("killed", "timeout", "segfault", "suspicious", "caught by type check")
#: Not reached: on a line the suite never executes (or no test calls the function).
SKIPPED = ("not executed", "no tests", "skipped")
#: The counts of a set of mutants, in the docs' order ("conservative": those of the survivors).
COLUMNS = ("all", "killed", "timeout", "survived", "conservative", "equivalent (rule)",
           "equivalent (argued)", "not reached", NOT_RUN)


def counts(mutants: list[Mutant], triage: dict[str, Triage]) -> dict[str, int]:
    """killed / timeout / survived (conservative, target or open) / equivalent (by rule,
    argued) / not reached / not run, and the total; and the survivors per verdict."""
    c: Counter[str] = Counter()
    for m in mutants:
        if m.status == RULE_STATUS:
            c["equivalent (rule)"] += 1
        elif m.status == "survived":
            verdict = triage_of(m, triage).verdict
            c["equivalent (argued)" if verdict == "equivalent" else "survived"] += 1
            c[verdict] += 1
        elif m.status in ("timeout", "segfault"):
            c["timeout"] += 1
        elif m.status in CAUGHT:
            c["killed"] += 1
        elif m.status in SKIPPED:
            c["not reached"] += 1
        else:
            c[NOT_RUN] += 1
    c["all"] = len(mutants)
    return {k: c[k] for k in (*COLUMNS, *VERDICTS[1:])}


def score(c: dict[str, int]) -> float | None:
    """(killed + timeout) / (killed + timeout + survived): the mutants run, not equivalent (a
    conservative survivor counts against it)."""
    run_ = c["killed"] + c["timeout"] + c["survived"]
    return None if run_ == 0 else (c["killed"] + c["timeout"]) / run_


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _n(x: int) -> str:
    return f"{x:,}"


def markdown(functions: list[Function], mutants: list[Mutant], triage: dict[str, Triage],
             runs: list[dict]) -> str:
    """The generated block of docs/privacy.md."""
    by_function = {f: [m for m in mutants if m.function == f] for f in functions}
    total = counts(mutants, triage)
    ran = [f for f, ms in by_function.items() if ms and all(m.status != NOT_RUN for m in ms)]
    if runs:
        last = runs[-1]
        full = [r for r in runs if not r.get("survivors_again")]
        again = [r for r in runs if r.get("survivors_again")]
        load = max((r["load"][0] for r in runs if r.get("load")), default=0.0)
        stopped = sum(bool(r.get("interrupted")) for r in full)
        when = (f"{last['machine']}, {last['cores']} cores ({last['children']} mutants at a "
                f"time): {_duration(sum(r['seconds'] for r in full))}"
                + (f" over {len(full)} runs" if len(full) > 1 else "")
                + (f" ({stopped} stopped before its end and resumed)" if stopped else "")
                + (f", then {_duration(sum(r['seconds'] for r in again))} to run the "
                   f"{again[0]['survivors_again']} survivors again with the tests added to "
                   "tests/test_privacy_edges.py" if again else "")
                + (f" (load average up to {load:.1f} at the runs' ends: other work shared the "
                   "cores)" if load > last["cores"] / 2 else ""))
    else:
        when = "no stored run (`make mutants` has not run here yet)"
    # a function mutmut finds nothing to mutate in (a bare return of an attribute) is not "not run"
    empty = [f for f, ms in by_function.items() if not ms] if runs else []
    partial = len(ran) + len(empty) < len(functions)
    codes = list(dict.fromkeys(r["code"] for r in runs if r.get("code")))
    some = [f for f, ms in by_function.items() if f not in ran
            and any(m.status != NOT_RUN for m in ms)]
    run_ = total["killed"] + total["timeout"] + total["survived"]
    lines = [
        START, "",
        f"Produced by `make mutants` ({TOOL} {VERSION}) on {when}"
        + (f"; code {', then '.join(codes)}" if codes else "")
        + (f"; **partial: {len(ran)} of the {len(functions)} listed functions run"
           + (f", {len(some)} in part" if some else "") + "** (`python -m bench.mutants "
           "--only`, or a run stopped before its end)" if partial else "") + ". "
        f"{_n(total['all'])} mutants of the {len(functions)} functions of the release path "
        "(bench/mutation/functions.txt says which, and what is left out and why). Each mutant "
        "runs the tests of the privacy suite that call its function (mutmut's per-test map), "
        "cheapest first, until one fails: the suite at each row's own size (every claims-table "
        "row and planted bug at claims.csv's `samples`, not `make test`'s floor of 1,000 fits; "
        "bench/mutation/test_privacy_suite.py), tests/test_invariants.py as is and "
        "tests/test_privacy_edges.py. *Equivalent (rule)*: the mutant changes only the text of "
        "an error or warning message or of a ledger label (a string literal in "
        "`raise …Error(…)`, `warnings.warn(…)` or `label=`: public, fixed, holding no row), "
        "found by inspecting its change, and not run. *Equivalent (argued)*: a survivor argued "
        "one by one in bench/mutation/triage.csv (not run again while its change stays the "
        "same). *Not reached*: on a line the suite never executes (nothing in it could kill "
        "the mutant). *Survived*: conservative (a release can differ but the claim holds: more "
        "noise than it needs, or less ε spent than charged; privacy-safe, a utility change "
        "the privacy suite rightly does not see), a target, a gap of the suite that "
        "triage.csv names, or open (not triaged: `python -m bench.mutants --check` fails). "
        "*Score*: (killed + timeout) / (killed + timeout + survived), conservative survivors "
        "included.", "",
        f"**Score: {_pct(score(total))}** ({_n(total['killed'] + total['timeout'])} killed of "
        f"{_n(run_)} mutants run that are not equivalent; {_n(total['survived'])} survived "
        f"({total['conservative']} conservative, {total['target']} targets, "
        f"{total['open']} open); equivalent: "
        f"{_n(total['equivalent (rule)'])} by rule, {_n(total['equivalent (argued)'])} argued; "
        f"{_n(total['not reached'])} not reached"
        + (f"; {_n(total[NOT_RUN])} not run yet" if total[NOT_RUN] else "") + ").", "",
        "| function | mutants | killed | timeout | survived | of them conservative "
        "| equivalent (rule) | equivalent (argued) | not reached | score |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for f in functions:
        c = counts(by_function[f], triage)
        if f in empty:
            lines.append(f"| `{f.path}` {f.name} | 0 | no mutant (nothing to change) "
                         "| | | | | | | |")
            continue
        if f not in ran and f not in some:
            lines.append(f"| `{f.path}` {f.name} | {c['all']} | not run | | | | | | | |")
            continue
        lines.append(f"| `{f.path}` {f.name} | " + " | ".join(str(c[k]) for k in COLUMNS[:-1])
                     + f" | {_pct(score(c))}" + (f" ({c[NOT_RUN]} not run yet)" if c[NOT_RUN]
                                                 else "") + " |")
    lines.append("| **total** | " + " | ".join(_n(total[k]) for k in COLUMNS[:-1])
                 + f" | {_pct(score(total))} |")
    survivors = [m for m in mutants if m.status == "survived"]
    lines += ["", f"Survivors, argued equivalent, conservative or a target ({len(survivors)}; "
              "`.venv/bin/mutmut show NAME` in the work folder shows one; the mutants "
              "equivalent by rule: `python -m bench.mutants --list 'message text'`):", "",
              "| mutant | change | triage | reason |", "|---|---|---|---|"]
    for m in survivors:
        t = triage_of(m, triage)
        verdict = f"{t.verdict}: {t.target}" if t.target else t.verdict
        cells = [f"`{m.name}`", f"`{m.diff}`", verdict, t.reason]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines += ["", END]
    return "\n".join(lines)


def _duration(seconds: float) -> str:
    if seconds >= 5400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.0f} min" if seconds >= 600 else f"{seconds / 60:.1f} min"


def write_docs(text: str, path: Path = DOC) -> None:
    """Replace the block between the markers of ``path``."""
    doc = path.read_text(encoding="utf-8")
    start, end = doc.index(START), doc.index(END) + len(END)
    path.write_text(doc[:start] + text + doc[end:], encoding="utf-8")


def select(functions: list[Function], patterns: list[str]) -> list[Function]:
    """The functions whose full name (``dpviz.privacy.PrivateTable._charge``) matches one."""
    chosen = [f for f in functions if any(fnmatch.fnmatchcase(f.full, p) for p in patterns)]
    if not chosen:
        raise SystemExit(f"no listed function matches {patterns}")
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", metavar="PATTERN",
                        help="run the functions matching this pattern (fnmatch on "
                             "dpviz.module.Class.function), keeping earlier results")
    parser.add_argument("--report", action="store_true",
                        help="rewrite the docs from the stored results, run nothing")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if a stored survivor is open (not triaged)")
    parser.add_argument("--list", metavar="STATUS",
                        help="print the stored mutants of this status (killed, survived, "
                             "'message text', 'not executed', ...) with their change, run "
                             "nothing")
    parser.add_argument("--fresh", action="store_true",
                        help="empty the work folder first (else a run continues the stored "
                             "results, which are kept while dpviz, the suite and the list "
                             "stay the same)")
    parser.add_argument("--jobs", type=int, default=JOBS,
                        help=f"mutants at a time (default {JOBS})")
    parser.add_argument("--drive", type=int, help=argparse.SUPPRESS)
    parser.add_argument("patterns", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    if args.drive is not None:  # the child of run()
        # pytest imports mutants/bench/mutation as the package bench.mutation: this package
        # (bench, imported from here to run this module) must not shadow it
        for name in [n for n in sys.modules if n == "bench" or n.startswith("bench.")]:
            del sys.modules[name]
        _drive(args.patterns, args.drive)
        return 0
    functions = read_functions()
    triage = read_triage()
    if args.list:
        for m in results(functions, triage):
            if m.status == args.list:
                print(f"{m.name}: {m.diff or diff_of(m.name, m.function.path)}")
        return 0
    check_only = args.check and not (args.report or args.only)
    if not (args.report or check_only):
        chosen = select(functions, args.only) if args.only else functions
        seconds = run(chosen, fresh=args.fresh, max_children=args.jobs)
        print(f"mutmut ran {len(chosen)} functions in {_duration(seconds)}")
    mutants = results(functions, triage)
    if not check_only:
        runs = json.loads(RUNS.read_text()) if RUNS.exists() else []
        write_docs(markdown(functions, mutants, triage, runs))
        print(f"wrote {DOC.relative_to(ROOT)}")
    total = counts(mutants, triage)
    print(", ".join(f"{k} {v}" for k, v in total.items()), f"score {_pct(score(total))}")
    open_ = [m for m in mutants
             if m.status == "survived" and triage_of(m, triage).verdict == "open"]
    for m in open_:
        print(f"open: {m.name}: {m.diff}")
    return 1 if args.check and open_ else 0


if __name__ == "__main__":
    sys.exit(main())
