"""What every benchmark shares: the machine, a run's context, ``timed``, workers, tables, the doc.

Run a benchmark from the repository root as a module, ``python -m bench.NAME`` (``make bench`` runs
them all), with ``--quick`` (or ``BENCH_QUICK=1``: small sizes, to check that it runs) or
``--print`` (print its section, do not write it). A section holds the run (date, revision, machine,
load average at its start and end) and measurements; what they mean is written by hand outside
its markers. Standard library only: workers also run under bench/.venv-diffprivlib's python.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
THREAD_VARS = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS")
MODULE = getattr(getattr(sys.modules["__main__"], "__spec__", None), "name", "bench")  # bench.x


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def versions(*packages: str) -> dict[str, str]:
    """The interpreter's version and each installed package's."""
    installed = {(d.metadata["Name"] or "").lower(): d.version
                 for d in importlib.metadata.distributions()}
    return {"python": platform.python_version()} | {
        name: installed.get(name.lower(), "not installed") for name in packages}


def machine(env: Mapping[str, str] | None = None) -> str:
    """CPU, cores (and those this process may use), RAM, OS, versions and thread settings."""
    env = os.environ if env is None else env
    model = re.search(r"^model name\s*:\s*(.+)$", _read("/proc/cpuinfo"), re.M)
    ram = re.search(r"^MemTotal:\s*(\d+) kB", _read("/proc/meminfo"), re.M)
    allowed = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    cpu = model.group(1).strip() if model else platform.processor() or "unknown CPU"
    memory = f", {int(ram.group(1)) / 2**20:.1f} GiB RAM" if ram else ""
    v = versions("numpy", "numba")
    return (f"{cpu}, {os.cpu_count()} cores ({allowed} allowed to this process){memory}, "
            f"{platform.system()} {platform.release()} ({platform.machine()}); Python "
            f"{v['python']}, numpy {v['numpy']}, numba {v['numba']}; "
            + ", ".join(f"{k} {env.get(k, 'unset')}" for k in THREAD_VARS))


def git_revision() -> str:
    """The commit, and whether tracked files have changes."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True,
                              text=True).stdout.strip()
    try:
        dirty = " + changes" if git("status", "--porcelain", "--untracked-files=no") else ""
        return f"commit {git('rev-parse', '--short', 'HEAD')}{dirty}"
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit"


def _cpu_s() -> tuple[float, float]:
    """Busy CPU seconds of the machine (/proc/stat; NaN without), and of this process and its
    children."""
    fields = [int(v) for v in _read("/proc/stat").split("\n")[0].split()[1:]] or [0] * 8
    busy = (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")
    own = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return busy or float("nan"), sum(u.ru_utime + u.ru_stime for u in own)


def cli(doc: str | None, worker: Callable[[Any], Any] | None = None, **options: dict) -> Any:
    """Parse --quick, --print and ``options`` (name: add_argument's keywords); serve --worker.

    A worker (started by :func:`in_fresh_process`) prints ``worker(payload)`` as JSON and exits.
    """
    p = argparse.ArgumentParser(description=doc,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", default=os.environ.get("BENCH_QUICK") == "1",
                   help="small sizes, to check that the script runs (also BENCH_QUICK=1)")
    p.add_argument("--print", action="store_true", help="print the section, do not write it")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    for name, keywords in options.items():
        p.add_argument("--" + name.replace("_", "-"), **keywords)
    args = p.parse_args()
    if args.worker is not None and worker is not None:
        print(json.dumps(worker(json.loads(args.worker))), flush=True)
        sys.exit(0)
    return args


class Run:
    """One run of a benchmark: when, at which revision, on which machine, under which load."""

    def __init__(self, args: argparse.Namespace, env: Mapping[str, str] | None = None) -> None:
        self.args, self.env = args, {**os.environ, **(env or {})}
        self.started, self.load = dt.datetime.now(dt.UTC), os.getloadavg()
        self._clock, self._cpu = time.perf_counter(), _cpu_s()

    def header(self) -> list[str]:
        wall = time.perf_counter() - self._clock
        (busy, own), (busy0, own0) = _cpu_s(), self._cpu
        others = (busy - busy0 - (own - own0)) / wall
        command = " ".join(["python -m", MODULE, *sys.argv[1:]])
        return [
            *(["**Quick run (`--quick`): small sizes, to check the script.**", ""]
              if self.args.quick else []),
            f"Run {self.started:%Y-%m-%d %H:%M} UTC, "
            f"{f'{wall:.0f} s' if wall < 100 else f'{wall / 60:.1f} min'}, at {git_revision()}: "
            f"`{command}`.",
            f"Machine: {machine(self.env)}.",
            "Load average (1, 5, 15 min): " + " at the start, ".join(
                ", ".join(f"{x:.2f}" for x in load) for load in (self.load, os.getloadavg()))
            + f" at the end; other processes used {max(others, 0):.2f} cores on average "
            "(/proc/stat).",
        ]

    def write(self, name: str, lines: Sequence[str], doc: Path = DOC) -> None:
        """Replace section ``name`` of ``doc`` (or append it) by the run and ``lines``; print it."""
        body = "\n".join([*self.header(), "", *lines]).rstrip()
        print(body, flush=True)
        if not self.args.print:
            write_section(doc, name, body)
            print(f"wrote section {name!r} of {doc.relative_to(ROOT)}", flush=True)


def write_section(doc: Path, name: str, body: str) -> None:
    """Put ``body`` between the markers of section ``name``; keep everything else."""
    block = (f"<!-- BEGIN bench:{name} — generated by `python -m {MODULE}`, edits inside are "
             f"lost -->\n{body}\n<!-- END bench:{name} -->\n")
    text = doc.read_text() if doc.exists() else "# Benchmarks\n"
    marked = re.compile(rf"<!-- BEGIN bench:{re.escape(name)} .*?<!-- END bench:{re.escape(name)}"
                        r" -->\n?", re.S)
    text, found = marked.subn(lambda _: block, text, count=1)
    doc.write_text(text if found else text.rstrip("\n") + "\n\n" + block)


@dataclass
class Timing:
    """Seconds per call, wall (perf_counter) and CPU of this process (process_time); the last
    call's result."""

    times: list[float]
    cpu: list[float]
    result: Any

    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)


def timed(fn: Callable[..., Any], *args: Any, repeat: int = 1, **kwargs: Any) -> Timing:
    """``fn(*args, **kwargs)`` called ``repeat`` times, each timed."""
    times, cpu, result = [], [], None
    for _ in range(repeat):
        cpu0, start = time.process_time(), time.perf_counter()
        result = fn(*args, **kwargs)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu0)
    return Timing(times, cpu, result)


def memory_mb() -> tuple[float, float]:
    """This process's resident set now and its peak so far (MiB; ru_maxrss is KiB on Linux)."""
    found = re.search(r"^VmRSS:\s*(\d+)", _read("/proc/self/status"), re.M)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return (int(found.group(1)) / 1024 if found else float("nan")), peak


def in_fresh_process(name: str, payload: Any, *, python: str | Path = sys.executable,
                     env: Mapping[str, str | None] | None = None, dpviz_from: str | None = None,
                     timeout: float | None = None) -> Any:
    """``python -m bench.<name> --worker <payload as JSON>``: the JSON its last line prints
    (the script's worker function's result, see :func:`cli`). ``env``: changes (None unsets).

    Run from the repository root, or with ``dpviz_from``, from that checkout (its dpviz is
    imported, this bench package through PYTHONPATH)."""
    env = {k: v for k, v in {**os.environ, "PYTHONHASHSEED": "0", **(env or {})}.items()
           if v is not None}
    env.setdefault("DPVIZ_DATA", str(ROOT / "data"))
    if dpviz_from is not None:
        env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([str(python), "-m", f"bench.{name}", "--worker", json.dumps(payload)],
                         cwd=Path(dpviz_from or ROOT).resolve(), env=env, check=True,
                         stdout=subprocess.PIPE, text=True, timeout=timeout).stdout
    return json.loads(out.strip().splitlines()[-1])


def seconds(s: float | None) -> str:
    return "—" if s is None else f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"


def table(header: Sequence[str], rows: Iterable[Sequence[Any]], align: str = "") -> list[str]:
    """A markdown table; ``align``: one l or r per column (default: first left, others right)."""
    align = align or "l" + "r" * (len(header) - 1)
    return ["| " + " | ".join(header) + " |",
            "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|",
            *("| " + " | ".join(map(str, row)) + " |" for row in rows)]
