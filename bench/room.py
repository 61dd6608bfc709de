"""A room opening one notebook at once (section room): `make room` against `make voila`.

N pages of one notebook (05 by default) are opened at the same instant in headless chromium
(``/usr/bin/chromium`` driven by playwright's async API, ten pages per chromium process, one
browser context each) against a fresh server started as ``make room`` (after its "room ready"
line) or ``make voila`` starts it, on 127.0.0.1, for N = 1, 10 and 30. Per page: the time from the
request to its first chart drawn (a ``.vega-embed`` with a canvas or a mark), and to the whole
page (every cell run — Voilà's last execution message, or the page loaded without progressive
rendering — and every output drawn: no unrendered output, every chart embedded, every explorer
showing its chart). Then every page moves its first explorer's first slider ``--moves`` times, a
keyboard step each, all pages at once, one move a ``--pause`` after the previous redraw: the time
from the key to the explorer's new chart drawn (p50 and p95 over all pages' moves; the kernel's
own time from the explorer's "updated in" line). Then every page reloads at once (a burst of
reloads). Also: a room whose pool is smaller than the class (pages past the pool), and one past
its cap (the "room is full" page).

The server (Voilà and its kernels) and the browser (playwright's driver and chromium) share the
machine's cores; both are measured apart from their process trees (psutil, sampled every second):
CPU seconds per phase, and the server's memory (the sum of its processes' PSS, the shared
pages split between them; and RSS). Others: the machine's busy CPU (/proc/stat) minus these
trees and this script, in cores. Every process this script starts is stopped at the end, and
a check with ``ps`` lists any left.

    python -m bench.room [--quick] [--print] [--sizes 1,10,30] [--only room|voila|past]
                         [--section room-quiet]
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import re
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from bench.common import ROOT, Run, cli, table

CHROMIUM = "/usr/bin/chromium"
#: as tests/_browser.py launches it
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update"]
PAGES_PER_BROWSER = 10
PAGE_TIMEOUT = 600.0  # s: a page that shows nothing by then is counted as failed
MOVE_TIMEOUT = 120.0  # s: a move without a redraw by then is counted as failed
READY_TIMEOUT = 900.0  # s: the room's pool pre-heated

#: In every page before its scripts: timestamps (ms since the epoch) of the first chart drawn,
#: the load event, the current render state and since when, and a refusal page.
PAGE_SCRIPT = r"""
(() => {
  const R = window.__room = {chart: null, loaded: null, served: null, state: null, since: null,
                             refused: null, progressive: null, stop: false};
  window.addEventListener('load', () => { R.loaded = Date.now(); });
  const drawn = e => !!(e.querySelector('canvas')
    || [...e.querySelectorAll('g[class*="mark-"]')].some(g => g.childElementCount > 0));
  R.drawn = drawn;
  R.explorers = () => [...document.querySelectorAll('.widget-vbox')]
    .filter(v => [...v.children].some(c => c.classList.contains('widget-output')));
  const renderState = () => {  // as tests/_browser.py's RENDER_STATE
    if (document.querySelector('script[type="application/vnd.voila.cell-output+json"]'))
      return null;
    const embeds = [...document.querySelectorAll('.vega-embed')];
    if (!embeds.length || embeds.some(e => !e.querySelector('.vega-actions'))) return null;
    const explorers = R.explorers();
    if (explorers.some(x => !x.querySelector(':scope > .widget-output .vega-embed')))
      return null;
    return [embeds.length, explorers.length,
            document.querySelectorAll('.jp-OutputArea-output').length].join('/');
  };
  const tick = () => {
    if (R.stop) return;
    const now = Date.now();
    if (!R.served) {  // the document's last byte: the server has sent every cell it ran
      const nav = performance.getEntriesByType('navigation')[0];
      if (nav && nav.responseEnd > 0)
        R.served = Math.round(performance.timeOrigin + nav.responseEnd);
    }
    if (!R.chart && [...document.querySelectorAll('.vega-embed')].some(drawn)) R.chart = now;
    const error = document.querySelector('.voila-error');
    if (error && !R.refused) R.refused = [now, error.textContent.trim().slice(0, 300)];
    if (R.progressive === null) {
      const config = document.getElementById('jupyter-config-data');
      if (config) {
        try { R.progressive = !!JSON.parse(config.textContent).progressiveRendering; }
        catch (e) { /* still streaming */ }
      }
    }
    const state = renderState();
    if (state !== R.state) { R.state = state; R.since = now; }
  };
  setInterval(tick, 200);
})();
"""

#: Mark the first explorer's chart as old; its handle's value and limits.
MARK = r"""() => {
  const x = window.__room.explorers()[0];
  if (!x) return null;
  x.querySelectorAll(':scope > .widget-output .vega-embed')
    .forEach(e => e.setAttribute('data-room-old', '1'));
  const h = x.querySelector('.noUi-handle');
  return h ? [h.getAttribute('aria-valuenow'), h.getAttribute('aria-valuemin'),
              h.getAttribute('aria-valuemax')] : null;
}"""

#: Wait (in the page) for a new chart drawn in the first explorer: [ms since the epoch, status].
REDRAWN = r"""async (timeout) => {
  const R = window.__room, x = R.explorers()[0], end = Date.now() + timeout;
  while (Date.now() < end) {
    const fresh = [...x.querySelectorAll(':scope > .widget-output .vega-embed')]
      .filter(e => !e.hasAttribute('data-room-old'));
    if (fresh.some(R.drawn)) {
      const drawn = Date.now();  // the explorer's status line follows the chart
      const status = [...x.children].find(c => c.classList.contains('widget-html'));
      for (let i = 0; i < 40 && status && !/updated in/.test(status.textContent); i++)
        await new Promise(r => setTimeout(r, 50));
      return [drawn, status ? status.textContent.trim() : ''];
    }
    const error = x.querySelector(':scope > .widget-output [data-mime-type*="stderr"]');
    if (error) return [null, error.textContent.slice(0, 200)];
    await new Promise(r => setTimeout(r, 50));
  }
  return [null, 'timeout'];
}"""


# ------------------------------------------------------------------------------ processes

#: Every process this run started (servers, kernels, browsers), for the final check.
STARTED: set[int] = set()


def tree(pid: int) -> list[psutil.Process]:
    """A process and its descendants (those still alive)."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


class Sampler:
    """Samples the server's and the browser's process trees every second (a thread).

    CPU: the last seen user + system seconds of every process seen (a process that ends keeps
    its last sample). Memory: the server tree's PSS and RSS sums, and its peak since a mark.
    """

    def __init__(self, server_pid: int) -> None:
        self.server_pid, self.me = server_pid, os.getpid()
        self.cpu: dict[str, dict[int, float]] = {"server": {}, "browser": {}}
        self.pss = self.rss = self.peak_pss = self.peak_rss = 0.0
        self.kernels = 0
        self._lock, self._stop = threading.Lock(), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(1.0)

    def sample(self) -> None:
        server = tree(self.server_pid)
        server_pids = {p.pid for p in server}
        browser = [p for p in tree(self.me)[1:] if p.pid not in server_pids]
        pss = rss = 0.0
        kernels = 0
        with self._lock:
            for name, procs in (("server", server), ("browser", browser)):
                for p in procs:
                    try:
                        t = p.cpu_times()
                        self.cpu[name][p.pid] = t.user + t.system
                        if name == "server":
                            m = p.memory_full_info()
                            pss, rss = pss + m.pss / 2**20, rss + m.rss / 2**20
                            kernels += "ipykernel" in " ".join(p.cmdline())
                    except (psutil.NoSuchProcess, psutil.AccessDenied):
                        continue
            self.pss, self.rss, self.kernels = pss, rss, kernels
            self.peak_pss, self.peak_rss = max(self.peak_pss, pss), max(self.peak_rss, rss)

    def mark(self, *, reset: bool = True) -> dict:
        """CPU seconds so far per tree, this script's, the machine's busy seconds, the time;
        ``reset``: the memory peak starts again from now."""
        self.sample()
        with self._lock:
            cpu = {k: sum(v.values()) for k, v in self.cpu.items()}
            if reset:
                self.peak_pss, self.peak_rss = self.pss, self.rss
        t = psutil.Process(self.me).cpu_times()
        busy = psutil.cpu_times()
        return {**cpu, "bench": t.user + t.system, "wall": time.monotonic(),
                "busy": sum(busy) - busy.idle - getattr(busy, "iowait", 0.0)}

    def since(self, mark: dict) -> dict:
        """CPU seconds of each tree since ``mark``, others' cores, the memory peak."""
        now = self.mark(reset=False)
        wall = now["wall"] - mark["wall"]
        out = {k: now[k] - mark[k] for k in ("server", "browser", "bench")}
        others = (now["busy"] - mark["busy"]) - sum(out.values())
        with self._lock:
            return {**out, "wall": wall, "others": max(others, 0.0) / max(wall, 1e-9),
                    "peak_pss": self.peak_pss, "peak_rss": self.peak_rss,
                    "kernels": self.kernels}

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        with self._lock:
            STARTED.update(self.cpu["browser"])


def make_command(target: str, *variables: str) -> tuple[list[str], dict[str, str]]:
    """`make -n TARGET`'s command line (made absolute) and the variables it sets first."""
    line = subprocess.run(["make", "-s", "-n", target, *variables], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.splitlines()[-1]
    words, env = line.split(), {}
    while re.fullmatch(r"[A-Z_]+=\S*", words[0]):
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    return [str(ROOT / words[0]), *words[1:]], env


@dataclass
class Server:
    kind: str  # "room" or "voila"
    notebook: str
    pool: int | None = None
    cap: int | None = None
    proc: subprocess.Popen | None = None
    port: int = 0
    log: Path | None = None
    seen: set[int] = field(default_factory=set)  # every descendant seen
    ready_s: float | None = None
    ready_lines: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log else ""


@contextlib.contextmanager
def serve(kind: str, notebook: str, work: Path, *, pool: int | None = None,
          cap: int | None = None) -> Iterator[Server]:
    """A fresh server as `make room` / `make voila` start it (its own empty result cache, this
    checkout's dpviz), on 127.0.0.1 and a free port; stopped (SIGTERM, then SIGKILL) at the end,
    with every process it started."""
    variables = [f"NB={notebook}", "VOILA_IP=127.0.0.1"]
    variables += [f"POOL={pool}"] * (pool is not None) + [f"CAP={cap}"] * (cap is not None)
    command, env = make_command(kind, *variables)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    drop = ("DPVIZ_QUICK", "DPVIZ_RECOMPUTE", "DPVIZ_SAVE_RESULTS")
    env = {k: v for k, v in os.environ.items() if k not in drop} | env | {
        "DPVIZ_CACHE": tempfile.mkdtemp(prefix="cache-", dir=work), "PYTHONPATH": str(ROOT),
        "JUPYTER_RUNTIME_DIR": tempfile.mkdtemp(prefix="runtime-", dir=work)}
    server = Server(kind, notebook, pool, cap, port=port,
                    log=Path(tempfile.mkstemp(prefix=f"{kind}-", suffix=".log", dir=work)[1]))
    with server.log.open("w") as out:
        server.proc = subprocess.Popen([*command, f"--port={port}"], cwd=ROOT, env=env,
                                       stdout=out, stderr=subprocess.STDOUT)
    try:
        start, deadline = time.monotonic(), time.monotonic() + READY_TIMEOUT
        while True:
            server.seen |= {p.pid for p in tree(server.proc.pid)}
            if server.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{kind} did not start:\n{server.log_text()[-3000:]}")
            with socket.socket() as probe:
                listening = probe.connect_ex(("127.0.0.1", port)) == 0
            if listening and (kind != "room" or "room ready" in server.log_text()):
                break
            time.sleep(0.5)
        if kind == "room":
            server.ready_s = time.monotonic() - start
            server.ready_lines = [line for line in server.log_text().splitlines()
                                  if line.startswith("room")]
        yield server
    finally:
        stop(server)


def stop(server: Server) -> None:
    """Stop the server (SIGTERM: Voilà shuts its kernels down), then any process left."""
    proc = server.proc
    server.seen |= {p.pid for p in tree(proc.pid)}
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and alive(server.seen - {proc.pid}):
        time.sleep(0.5)
    for pid in alive(server.seen - {proc.pid}):
        with contextlib.suppress(psutil.NoSuchProcess):
            psutil.Process(pid).kill()
    STARTED.update(server.seen)


def alive(pids: set[int]) -> list[int]:
    """The pids still running (not zombies)."""
    found = []
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                found.append(pid)
    return found


# ---------------------------------------------------------------------------------- pages

@dataclass
class PageResult:
    first_chart: float | None = None
    served: float | None = None  # the server's part: the page's HTML, or its last cell, sent
    whole: float | None = None
    refused: str | None = None
    refused_s: float | None = None
    failed: str | None = None
    kernel: str | None = None
    moves: list[float] = field(default_factory=list)
    kernel_ms: list[float] = field(default_factory=list)
    failed_moves: int = 0


class Page:
    """One student's tab: a page in its own browser context."""

    def __init__(self, page) -> None:
        self.page = page
        self.cells_done: float | None = None  # Voilà's last execution message (progressive)
        page.on("websocket", self._websocket)

    def _websocket(self, ws) -> None:
        if "/voila/execution/" in ws.url:
            ws.on("framereceived", self._frame)

    def _frame(self, frame: str | bytes) -> None:
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            message = json.loads(frame)
            payload = message.get("payload") or {}
            if (message.get("action") == "execution_result"
                    and payload.get("cell_index", -2) + 1 == payload.get("total_cell")):
                self.cells_done = time.time()

    async def open(self, url: str, *, reload: bool = False) -> PageResult:
        """Request the page (or reload it) and wait for its first chart and its whole page."""
        self.cells_done = None
        start = time.time()
        result = PageResult()
        try:
            if reload:
                await self.page.reload(wait_until="commit", timeout=PAGE_TIMEOUT * 1000)
            else:
                await self.page.goto(url, wait_until="commit", timeout=PAGE_TIMEOUT * 1000)
            await self._wait(start, result)
        except Exception as error:  # a timeout, a closed page: counted, not raised
            result.failed = f"{type(error).__name__}: {str(error)[:200]}"
        return result

    async def _wait(self, start: float, result: PageResult) -> None:
        deadline = start + PAGE_TIMEOUT
        while time.time() < deadline:
            await asyncio.sleep(0.5)
            r = await self.page.evaluate("() => { const R = window.__room || {}; return "
                                         "[R.chart, R.loaded, R.state, R.since, R.refused, "
                                         "R.progressive, R.served]; }")
            chart, loaded, state, since, refused, progressive, served = r
            if chart and result.first_chart is None:
                result.first_chart = chart / 1000 - start
            if refused:
                result.refused, result.refused_s = refused[1], refused[0] / 1000 - start
                return
            done = self.cells_done if progressive else (loaded and loaded / 1000)
            if done and state and since and time.time() - since / 1000 > 1.0:
                result.whole = max(done, since / 1000) - start
                result.served = (self.cells_done if progressive else served / 1000) - start
                await self.page.evaluate("() => { window.__room.stop = true; }")
                result.kernel = await self.page.evaluate(
                    "() => { try { return JSON.parse(document.getElementById("
                    "'jupyter-config-data').textContent).kernelId || null } "
                    "catch (e) { return null } }")
                return
        result.failed = f"not whole after {PAGE_TIMEOUT:.0f} s"

    async def move(self, result: PageResult, moves: int, pause: float) -> None:
        """Move the first explorer's first slider ``moves`` keyboard steps, one at a time."""
        handle = self.page.locator(".widget-vbox:has(> .widget-output) .noUi-handle").first
        for _ in range(moves):
            try:
                now, low, high = await self.page.evaluate(MARK)
                key = "ArrowRight" if now == low else "ArrowLeft" if now == high else (
                    "ArrowLeft" if len(result.moves) % 2 == 0 else "ArrowRight")
                await handle.focus()
                start = time.time()
                await self.page.keyboard.press(key)
                drawn, status = await self.page.evaluate(REDRAWN, MOVE_TIMEOUT * 1000)
            except Exception:
                drawn, status = None, "error"
            if drawn is None:
                result.failed_moves += 1
                continue
            result.moves.append(drawn / 1000 - start)
            found = re.search(r"updated in (\d+) ms", status)
            if found:
                result.kernel_ms.append(float(found.group(1)))
            await asyncio.sleep(pause)


def niced_chromium(work: Path, nice: int) -> str:
    """A chromium started at niceness ``nice`` (a script that execs it): the class's browsers
    run on the students' machines, so here they yield the CPU to the server."""
    if nice <= 0:
        return CHROMIUM
    wrapper = work / "chromium"
    wrapper.write_text(f'#!/bin/sh\nexec nice -n {nice} {CHROMIUM} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


@contextlib.asynccontextmanager
async def pages(n: int, chromium: str):
    """``n`` pages, ten per chromium process, each in its own context; closed at the end."""
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browsers = [await p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
                    for _ in range(math.ceil(n / PAGES_PER_BROWSER))]
        try:
            found = []
            for i in range(n):
                context = await browsers[i // PAGES_PER_BROWSER].new_context(
                    viewport={"width": 1000, "height": 1000})
                await context.route("https://**", lambda route: route.fulfill(
                    status=200, content_type="text/css", body=""))  # offline, as a classroom
                await context.add_init_script(PAGE_SCRIPT)
                found.append(Page(await context.new_page()))
            yield found
        finally:
            for browser in browsers:
                with contextlib.suppress(Exception):
                    await browser.close()


# ------------------------------------------------------------------------------ scenarios

def pooled_kernels(server: Server) -> set[str]:
    return set(re.findall(r"Using pre-heated kernel: ([0-9a-f-]+)", server.log_text()))


def summary(results: list[PageResult], server: Server, usage: dict) -> dict:
    """One row's numbers."""
    pooled = pooled_kernels(server)
    moves = [m for r in results for m in r.moves]
    return {
        "pages": len(results),
        "first_chart": [r.first_chart for r in results if r.first_chart is not None],
        "whole": [r.whole for r in results if r.whole is not None],
        "served": [r.served for r in results if r.served is not None],
        "refused": sum(r.refused is not None for r in results),
        "refused_after": [r.refused_s for r in results if r.refused_s is not None],
        "failed": [r.failed for r in results if r.failed],
        "from_pool": sum(r.kernel in pooled for r in results if r.kernel),
        "moves": moves,
        "kernel_ms": [m for r in results for m in r.kernel_ms],
        "failed_moves": sum(r.failed_moves for r in results),
        **usage,
    }


async def room_case(server: Server, n: int, *, moves: int, pause: float, reload: bool,
                    chromium: str) -> dict:
    """Open ``n`` pages at once, move their sliders, reload them at once: one dict per phase."""
    sampler = Sampler(server.proc.pid)
    out: dict[str, dict] = {}
    try:
        async with pages(n, chromium) as tabs:
            mark = sampler.mark()
            results = await asyncio.gather(*(t.open(server.url) for t in tabs))
            out["open"] = summary(results, server, sampler.since(mark))
            print(f"  {server.kind} n={n} open: {brief(out['open'])}", flush=True)
            movable = [(t, r) for t, r in zip(tabs, results, strict=True) if r.whole]
            if moves and movable:
                mark = sampler.mark()
                await asyncio.gather(*(t.move(r, moves, pause) for t, r in movable))
                out["moves"] = summary([r for _, r in movable], server, sampler.since(mark))
                print(f"  {server.kind} n={n} moves: {brief(out['moves'], moves=True)}",
                      flush=True)
            if reload:
                before = pooled_kernels(server)
                mark = sampler.mark()
                results = await asyncio.gather(*(t.open(server.url, reload=True) for t in tabs))
                out["reload"] = summary(results, server, sampler.since(mark))
                out["reload"]["from_pool"] = sum(
                    r.kernel in pooled_kernels(server) - before for r in results if r.kernel)
                print(f"  {server.kind} n={n} reload: {brief(out['reload'])}", flush=True)
        await asyncio.sleep(2)
        out["after"] = {"kernels": sampler.since(sampler.mark())["kernels"]}
    finally:
        sampler.stop()
    return out


def preheat_usage(server: Server) -> dict:
    """The pool's cost: the server tree's CPU seconds so far and its memory now."""
    cpu = pss = rss = 0.0
    for p in tree(server.proc.pid):
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            t, m = p.cpu_times(), p.memory_full_info()
            cpu, pss, rss = cpu + t.user + t.system, pss + m.pss / 2**20, rss + m.rss / 2**20
    return {"ready_s": server.ready_s, "cpu": cpu, "pss": pss, "rss": rss,
            "kernels": sum("ipykernel" in " ".join(p.cmdline()) for p in tree(server.proc.pid)),
            "lines": server.ready_lines, "load": os.getloadavg()[0]}


# ------------------------------------------------------------------------------- reporting

def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def s(x: float | None) -> str:
    return "—" if x is None else f"{x:.1f} s" if x >= 1 else f"{x:.2f} s"


def spread(values: list[float]) -> str:
    if not values:
        return "—"
    if len(values) == 1:
        return s(values[0])
    return f"{s(statistics.median(values))} / {s(max(values))}"


def brief(row: dict, *, moves: bool = False) -> str:
    """One line of progress."""
    pages = (f"moves p50 {s(pct(row['moves'], .5))} p95 {s(pct(row['moves'], .95))} "
             f"({len(row['moves'])}, lost {row['failed_moves']}), kernel "
             f"{pct(row['kernel_ms'], .5) or 0:.0f} ms" if moves else
             f"first chart {spread(row['first_chart'])}, served {spread(row['served'])}, "
             f"whole {spread(row['whole'])}, refused {row['refused']}, failed "
             f"{len(row['failed'])}, from pool {row['from_pool']}")
    return (f"{pages}, "
            f"server {row['server']:.0f} CPU-s, browser {row['browser']:.0f} CPU-s, "
            f"others {row['others']:.2f} cores, peak PSS {row['peak_pss'] / 1024:.1f} GB, "
            f"kernels {row['kernels']}, load {os.getloadavg()[0]:.2f}")


def move_cell(moves: dict | None) -> str:
    """p50 / p95 of the moves (their number, and those lost: no redraw)."""
    if not moves:
        return "—"
    lost = f", {moves['failed_moves']} lost" if moves["failed_moves"] else ""
    return (f"{s(pct(moves['moves'], .5))} / {s(pct(moves['moves'], .95))} "
            f"({len(moves['moves'])}{lost})")


def cpu_cell(row: dict, moves: dict | None, key: str) -> str:
    """CPU seconds of a tree while the pages opened (its cores), then during the moves."""
    cell = f"{row[key]:.0f} s ({row[key] / max(row['wall'], 1e-9):.2f})"
    if moves:
        cell += f"; {moves[key]:.0f} s ({moves[key] / max(moves['wall'], 1e-9):.2f})"
    return cell


def rows(cases: list[dict]) -> list[list[str]]:
    """The results table: one line per (case, phase)."""
    out = []
    for case in cases:
        for phase in ("open", "reload"):
            row = case.get(phase)
            if row is None:
                continue
            moves = case.get("moves") if phase == "open" else None
            n = row["pages"]
            refused = (f"{row['refused']}" + (f" ({spread(row['refused_after'])})"
                                              if row["refused"] else "")
                       + (f", {len(row['failed'])} failed" if row["failed"] else ""))
            out.append([
                case["label"],
                f"{n} {'reload' if phase == 'reload' else 'page'}{'s' * (n > 1)}",
                f"{row['from_pool']}" if case["kind"] == "room" else "—",
                spread(row["first_chart"]), spread(row["served"]), spread(row["whole"]),
                refused, move_cell(moves),
                "—" if not moves or not moves["kernel_ms"] else
                f"{pct(moves['kernel_ms'], .5):.0f} / {pct(moves['kernel_ms'], .95):.0f} ms",
                cpu_cell(row, moves, "server"), cpu_cell(row, moves, "browser"),
                f"{row['peak_pss'] / 1024:.1f} / {row['peak_rss'] / 1024:.1f} GB",
                f"{row['kernels']}",
                f"{row['others']:.2f}" + (f"; {moves['others']:.2f}" if moves else ""),
                f"{case['load'][0]:.2f} → {case['load'][1]:.2f}",
            ])
    return out


def calm(limit: float, wait: float) -> None:
    """Wait (at most ``wait`` s) for the 1-minute load average to fall below ``limit``."""
    deadline = time.monotonic() + wait
    while limit > 0 and os.getloadavg()[0] >= limit and time.monotonic() < deadline:
        time.sleep(10)


# ------------------------------------------------------------------------------------ main

def plan(args) -> list[tuple[str, str, int, int | None, int | None, bool]]:
    """(kind, label, pages, POOL, CAP, reload) of every case: `make voila` and `make room` at
    each size, then a room smaller than the class and one past its cap."""
    sizes = [int(x) for x in ("1,2" if args.quick else args.sizes).split(",")]
    pool = 2 if args.quick else None  # None: `make room`'s default (30)
    cases = [(kind, f"`make {kind}`" + (f" (POOL={pool})" if pool and kind == "room" else ""),
              n, pool if kind == "room" else None, None, n > 1)
             for n in sizes for kind in ("voila", "room") if args.only in ("", kind)]
    if args.only in ("", "past"):
        past = ([(1, 4, 2), (1, 2, 3)] if args.quick else [(10, 60, 20), (2, 3, 5)])
        cases += [("room", f"{label} (POOL={p}, CAP={cap})", n, p, cap, False)
                  for label, (p, cap, n) in zip(("past the pool", "past the cap"), past,
                                                strict=True)]
    return cases


def main() -> None:
    args = cli(__doc__,
               sizes={"default": "1,10,30", "help": "pages opened at once, e.g. 1,10,30"},
               only={"default": "", "help": "room, voila, past (past the pool and the cap)"},
               notebook={"default": "notebooks/05_dp_random_forest.ipynb"},
               moves={"type": int, "default": 5, "help": "slider moves per page"},
               pause={"type": float, "default": 1.0, "help": "seconds between two moves"},
               nice={"type": int, "default": 10,
                     "help": "the browsers' niceness (0: compete with the server as equals)"},
               section={"default": "room",
                        "help": "the section of docs/benchmarks.md to write: a partial run "
                                "(some sizes or cases) another one, so the full run's stays"},
               calm={"type": float, "default": 0.0,
                     "help": "before each case, wait up to 10 minutes for a 1-minute load "
                             "average below this (0: do not wait)"})
    run = Run(args)
    cases: list[dict] = []
    preheats: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-room-") as tmp:
        work = Path(tmp)
        chromium = niced_chromium(work, args.nice)
        for kind, label, n, pool, cap, reload in plan(args):
            calm(args.calm, 600)
            load = os.getloadavg()[0]
            with serve(kind, args.notebook, work, pool=pool, cap=cap) as server:
                if kind == "room":
                    preheats.append(preheat_usage(server) | {"pool": pool or 30,
                                                             "load0": load})
                    print(f"  room ready after {server.ready_s:.0f} s: {preheats[-1]}",
                          flush=True)
                    load = os.getloadavg()[0]
                case = asyncio.run(room_case(
                    server, n, moves=args.moves if cap is None or cap > n else 0,
                    pause=args.pause, reload=reload, chromium=chromium))
                cases.append(case | {"kind": kind, "label": label,
                                     "load": (load, os.getloadavg()[0])})
    left = leftovers()
    run.write(args.section, report(cases, preheats, args, left))


def leftovers() -> list[str]:
    """Processes this run started that are still there (``ps``): Voilà, kernels, chromium,
    and this script's children."""
    out = subprocess.run(["ps", "-eo", "pid,ppid,stat,args"], capture_output=True,
                         text=True).stdout.splitlines()[1:]
    me, mine = os.getpid(), set(alive(STARTED))
    return [line.strip()[:160] for line in out
            if (int(line.split()[0]) in mine or int(line.split()[1]) == me)
            and "ps -eo" not in line and "Z" not in line.split()[2]]


def report(cases: list[dict], preheats: list[dict], args, left: list[str]) -> list[str]:
    """The section's lines after the run's header."""
    lines = [
        f"Notebook `{args.notebook}`, full mode, each case on a fresh server with an empty "
        f"result cache; {args.moves} slider moves per page, {args.pause:.1f} s apart; "
        f"{PAGES_PER_BROWSER} pages per chromium process, the browsers at niceness "
        f"{args.nice}. Times from the request (or the reload), median / slowest over the "
        "pages: to the first chart drawn; *served*, the server's part (the page's last byte "
        "without progressive rendering, Voilà's last cell result with it); to the whole page "
        "drawn. Moves: p50 / p95 over every page's moves, from the key to the new chart "
        "drawn, and the kernel's own time (the explorer's \"updated in\"). CPU: seconds of "
        "the server (Voilà and its kernels) and of the browsers (playwright and chromium) "
        "while the pages opened, with the cores they used, then during the moves. Memory: the "
        "server's peak PSS / RSS. Kernels: at the end of the phase. Others: cores used by "
        "other processes (opening; moves). Load: the 1-minute load average at the case's "
        "start (once its room was ready) and end.", ""]
    lines += table(["case", "at once", "from the pool", "first chart", "served", "whole page",
                    "refused (after)", "slider move p50 / p95 (moves)", "kernel time",
                    "server CPU", "browser CPU", "server memory", "kernels", "others",
                    "load"], rows(cases))
    lines += ["", "Pre-heating (`make room`: from the start to its \"room ready\" line):", ""]
    lines += table(["pool", "ready after", "server CPU", "memory PSS / RSS", "per kernel PSS",
                    "kernels", "load"],
                   [[p["pool"], s(p["ready_s"]), f"{p['cpu']:.0f} s",
                     f"{p['pss'] / 1024:.1f} / {p['rss'] / 1024:.1f} GB",
                     f"{p['pss'] / max(p['kernels'], 1):.0f} MB", p["kernels"],
                     f"{p['load0']:.2f} → {p['load']:.2f}"] for p in preheats])
    failures = [f for c in cases for phase in ("open", "reload") if phase in c
                for f in c[phase]["failed"]]
    if failures:
        lines += ["", "Failed pages: " + "; ".join(sorted(set(failures))[:5])]
    lines += ["", "Processes left by this run (ps): " + ("none" if not left else "; ".join(left))]
    return lines


if __name__ == "__main__":
    main()
