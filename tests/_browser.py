"""Machinery of the real-browser tests (tests/test_browser.py): servers, chromium, page checks.

A notebook page (JupyterLab after Run All, or Voilà) is checked in the browser for

* JavaScript errors: uncaught page errors and ``console.error`` messages (none are filtered:
  the one known one, Voilà's Font Awesome stylesheet on a CDN, is served empty — see
  :data:`OFFLINE_STYLESHEETS`), Vega's own warnings (``console.warn`` messages starting
  with ``WARN``: a spec the renderer corrected, e.g. a dropped sort), and requests to other
  hosts (the workbook works offline);
* error or warning text in an output: any stderr output area (but a finished tqdm bar),
  tracebacks, ``...Error``/``...Warning``/``...Exception`` words (code listings of Markdown
  outputs excepted: ``dpviz.pseudocode.show`` prints sources that raise errors), a progress
  bar in the ``danger`` style; Run All (JupyterLab) or Voilà stopping before the last cell;
* charts without marks: each chart is exported to SVG through vega-embed's own "Save as SVG"
  action (the notebooks draw on a canvas, which has no mark elements to count), and every
  panel of a concatenated chart needs at least one mark item (``g.role-mark`` with children);
* explorers (the boxes of :func:`dpviz.ui.widgets.explorer`: controls, status, chart output)
  whose chart does not change when one control moves (the first slider, one keyboard step,
  or else the first drop-down's next option), or whose new chart has no marks or shows an
  error; the outputs are checked again after the moves.

Voilà runs as `make voila` runs it (its flags read from ``make -n voila``), serving the folder.

Nothing here writes inside the checkout: screenshots go to ``$DPVIZ_SCREENSHOTS`` (default:
the system temporary folder), server logs and JupyterLab's settings to a temporary folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The notebooks checked; another folder (``$DPVIZ_BROWSER_NOTEBOOKS``) to check the checks.
NOTEBOOK_DIR = Path(os.environ.get("DPVIZ_BROWSER_NOTEBOOKS", ROOT / "notebooks"))
NOTEBOOKS = sorted(p.name for p in NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = Path(os.environ.get("DPVIZ_SCREENSHOTS", tempfile.gettempdir()))
BIN = Path(sys.executable).parent
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
RUN_TIMEOUT = 240  # s: a whole notebook in quick mode (~40 s at most here)
CHANGE_TIMEOUT = 90  # s: an explorer's chart after one control moved (~1 s here)

#: Voilà's page template links Font Awesome's stylesheets from a CDN. Offline (as here and in a
#: classroom without internet) the loads fail with two console errors; no dpviz widget uses an
#: icon. The test serves them empty, so that the page neither depends on the network nor
#: hides any other console error.
OFFLINE_STYLESHEETS = "https://cdn.jsdelivr.net/npm/@fortawesome/**"

#: Text in an output that means something went wrong (case-sensitive: the notebooks' tables
#: have "error" columns, the classification error of a tree).
PROBLEM_TEXT = re.compile(
    r"Traceback|\b[A-Za-z]*(?:Error|Warning|Exception)\b|\bWARN(?:ING)?\b"
)

#: A state of a tqdm bar on stderr (when tqdm draws no widget): "runs:  33%|███▎      | 1/3 [...]"
TQDM_LINE = re.compile(r"^(?P<desc>[^|\n]*?)\s*(?P<percent>\d+)%\|[^|\n]*\|[^\n]*$")

#: In-page helpers, installed before any page script runs.
PAGE_HELPERS = r"""
window.__dpviz = {
  // a chart's SVG, made by vega-embed's "Save as SVG" action (null until the chart is drawn)
  async svg(embed) {
    const link = [...embed.querySelectorAll('.vega-actions a')]
      .find(a => (a.getAttribute('download') || '').endsWith('.svg'));
    if (!link) return null;
    link.setAttribute('href', '#');
    link.dispatchEvent(new MouseEvent('mousedown', {bubbles: true}));
    for (let i = 0; i < 250 && link.getAttribute('href') === '#'; i++) {
      await new Promise(r => setTimeout(r, 20));
    }
    if (link.getAttribute('href') === '#') return null;
    return await (await fetch(link.href)).text();
  },
  // mark items per panel ("chart", or "concat_0", "concat_1", ... of a concatenated chart)
  marks(svgText) {
    const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
    const panels = {};
    for (const g of doc.querySelectorAll('g.role-mark')) {
      const name = [...g.classList].find(c => c.endsWith('marks')) || '';
      const panel = (name.match(/^[hv]?concat_\d+/) || ['chart'])[0];
      panels[panel] = (panels[panel] || 0) + g.children.length;
    }
    return panels;
  },
  explorers() {
    return [...document.querySelectorAll('.widget-vbox')]
      .filter(v => [...v.children].some(c => c.classList.contains('widget-output')));
  },
  // the explorer's chart ({svg, marks}, or null while drawing), or its error ({error})
  async chart(explorer) {
    const stderr = explorer.querySelector(
      ':scope > .widget-output [data-mime-type="application/vnd.jupyter.stderr"]');
    if (stderr) return {error: stderr.textContent};
    const embed = explorer.querySelector(':scope > .widget-output .vega-embed');
    const svg = embed ? await this.svg(embed) : null;
    return svg === null ? null : {svg, marks: this.marks(svg)};
  },
};
"""

#: Everything drawn? Voilà's cell outputs unpacked, every chart embedded, every explorer
#: showing a chart, no JupyterLab cell running. Returns a fingerprint, or null while not.
RENDER_STATE = r"""() => {
  if (document.querySelector('script[type="application/vnd.voila.cell-output+json"]')) return null;
  const prompts = [...document.querySelectorAll('.jp-InputPrompt')].map(p => p.textContent);
  if (prompts.some(t => t.includes('*'))) return null;
  const embeds = [...document.querySelectorAll('.vega-embed')];
  if (embeds.some(e => !e.querySelector('.vega-actions'))) return null;
  const explorers = window.__dpviz.explorers();
  if (explorers.some(x => !x.querySelector(':scope > .widget-output .vega-embed'))) return null;
  return [embeds.length, explorers.length, document.querySelectorAll('.jupyter-widgets').length,
          document.querySelectorAll('.jp-OutputArea-output').length].join('/');
}"""

#: Output areas with stderr text, a danger-style progress bar, or problem text.
OUTPUT_TEXTS = r"""() => {
  const outputs = [...document.querySelectorAll('.jp-OutputArea-output')];
  const cell = o => {
    const prompt = o.closest('.jp-Cell')?.querySelector('.jp-InputPrompt')?.textContent.trim()
      .replace(/:$/, '');
    const index = [...document.querySelectorAll('.jp-Cell')].indexOf(o.closest('.jp-Cell'));
    return `cell ${index}` + (prompt ? ` ${prompt}` : '');
  };
  return {
    stderr: outputs.filter(o => o.dataset.mimeType === 'application/vnd.jupyter.stderr')
      .map(o => [cell(o), o.textContent]),
    danger: [...document.querySelectorAll('[class*="progress-bar-danger"]')]
      .map(o => [cell(o), 'a progress bar in the danger style (failed)']),
    // code listings in Markdown outputs (dpviz.pseudocode.show) are source, not messages
    text: outputs.filter(o => !o.querySelector('.jp-OutputArea-output')).map(o => {
      const copy = o.cloneNode(true);
      if (copy.matches('.jp-RenderedMarkdown')) {
        copy.querySelectorAll('pre').forEach(e => e.remove());
      }
      copy.querySelectorAll('.dpviz-listing').forEach(e => e.remove());  // pseudocode.show
      return [cell(o), copy.textContent];
    }),
  };
}"""

#: Mark counts of every chart on the page.
CHART_MARKS = r"""async () => {
  const out = [];
  for (const embed of document.querySelectorAll('.vega-embed')) {
    const svg = await window.__dpviz.svg(embed);
    out.push(svg === null ? null : window.__dpviz.marks(svg));
  }
  return out;
}"""


#: Charts wider than the output area they are drawn in (cut off, or behind a scroll bar).
CHART_OVERFLOW = r"""() => [...document.querySelectorAll('.vega-embed')].map((embed, i) => {
  const area = embed.closest('.jp-OutputArea-output, .widget-output');
  const drawn = embed.querySelector('canvas, svg.marks');
  if (!area || !drawn) return null;
  const over = Math.round(drawn.getBoundingClientRect().right - area.getBoundingClientRect().right);
  return over > 1 ? `chart ${i}: ${over} px wider than its output area` : null;
}).filter(x => x)"""


def overflow_problems(page) -> list[str]:
    """Charts that do not fit their output area (the page is 1000 px wide: a classroom's window)."""
    return page.evaluate(CHART_OVERFLOW)


#: Where the page's first explorer starts (px from the top of the page), or null without one.
FIRST_EXPLORER_TOP = r"""() => {
  const x = window.__dpviz.explorers()[0];
  return x ? Math.round(x.getBoundingClientRect().top + window.scrollY) : null;
}"""


def explorer_position_problems(page, screens: int = 2) -> list[str]:
    """A Voilà page's first explorer must start within its first ``screens`` screens (a class
    opens the page and moves a slider; it does not scroll through listings first)."""
    top, height = page.evaluate(FIRST_EXPLORER_TOP), page.viewport_size["height"]
    if top is not None and top > screens * height:
        return [f"the first explorer starts {top} px down, below the first {screens} screens"]
    return []


def require_chromium() -> None:
    """Skip without chromium, but fail under CI (``CI=true``: `.ci/run` installs it)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run must `apt-get install chromium`")
        pytest.skip("no chromium here (install Debian's chromium to run the browser test)")


def free_port() -> int:
    """A TCP port nobody listens on (now)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(command: list[str], port: int, *, cwd: Path, env: dict[str, str],
          log: Path) -> Iterator[str]:
    """Run a server (stdout and stderr to ``log``) until it answers on ``port``; yield its URL."""
    url = f"http://127.0.0.1:{port}/"
    with log.open("w") as out:
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(url, timeout=5).close()
                break
            except urllib.error.HTTPError:
                break  # it answers
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"{command[0]} did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.25)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def lab_command(port: int, home: Path) -> list[str]:
    """A token-less JupyterLab on 127.0.0.1 for the notebooks, its settings under ``home``.

    Autosave is off (Run All must not write the notebooks), the notebook is not windowed
    (every cell stays in the page), no news are fetched, and the app is exposed in the page
    (``window.jupyterapp``, as JupyterLab's own Galata tests do) to run its commands.
    """
    settings = home / "settings" / "@jupyterlab"
    for plugin, values in [
        ("docmanager-extension/plugin", {"autosave": False}),
        ("notebook-extension/tracker", {"windowingMode": "none"}),
        ("apputils-extension/notification", {"fetchNews": "false", "checkForUpdates": False}),
    ]:
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    return [
        str(BIN / "jupyter-lab"), "--no-browser", "--allow-root",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        "--IdentityProvider.token=", "--ServerApp.password=",
        f"--ServerApp.root_dir={NOTEBOOK_DIR}",
        "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
        f"--LabApp.user_settings_dir={home / 'settings'}",
        f"--LabApp.workspaces_dir={home / 'workspaces'}",
        "--NotebookNotary.db_file=:memory:",
    ]


def make_voila_command() -> list[str]:
    """`make voila`'s command line (``.venv/bin/python -m dpviz.ui.serve <notebook> <flags>``)."""
    line = subprocess.run(
        ["make", "-s", "-n", "voila", "NB=notebooks/00_start_here.ipynb"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.splitlines()[-1]
    command = line.split()
    return [str(ROOT / command[0]), *command[1:]]


def voila_command(port: int) -> list[str]:
    """`make voila`'s Voilà (its culling flags included), serving the whole notebook folder.

    Pages are at ``voila/render/<notebook>``; tracebacks are shown, so a failing cell says why.
    The culling flags matter: a Voilà execution can stall for many seconds with its kernel
    idle and no page connected yet (voila-dashboards/voila#1428), and a kernel culled then
    shows as "Kernel died" on the page; the test must see what a classroom would.
    """
    command = [str(NOTEBOOK_DIR) if word.endswith(".ipynb") else word
               for word in make_voila_command()]
    return [*command, f"--port={port}", "--show_tracebacks=True"]


class Watch:
    """Records a page's JavaScript errors, its requests to other hosts, and how far Voilà's
    progressive rendering has gone (``cells``: cells executed, of ``total``)."""

    def __init__(self, page) -> None:
        self.problems: list[str] = []
        self.cells, self.total = 0, None
        page.route(OFFLINE_STYLESHEETS,
                   lambda route: route.fulfill(status=200, content_type="text/css", body=""))
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("console", self._console)
        page.on("request", self._request)
        page.on("websocket", self._websocket)

    def _websocket(self, socket) -> None:
        if "/voila/execution/" in socket.url:  # Voilà's progressive rendering: cell by cell
            socket.on("framereceived", self._execution_message)

    def _execution_message(self, frame: str | bytes) -> None:
        try:
            message = json.loads(frame)
        except ValueError:
            return
        payload = message.get("payload") or {}
        if message.get("action") == "execution_result":
            self.cells, self.total = payload["cell_index"] + 1, payload["total_cell"]
        elif message.get("action") == "execution_error":
            self.problems.append(f"Voilà did not run the notebook: {payload}")
            self.total = self.cells

    def _console(self, message) -> None:
        where = message.location.get("url", "")
        if message.type == "error":
            self.problems.append(f"console error: {message.text} ({where})")
        elif message.type == "warning" and message.text.startswith("WARN "):
            # Vega's logger (vega-util) prefixes its warnings so: a spec the renderer had
            # to correct (dropped sort, conflicting scales...) draws something else
            self.problems.append(f"Vega warning: {message.text} ({where})")

    def _request(self, request) -> None:
        host = urlparse(request.url).hostname
        if request.url.startswith(("http", "ws")) and host not in ("127.0.0.1", "localhost"):
            if not re.fullmatch(r"https://cdn\.jsdelivr\.net/npm/@fortawesome/.*", request.url):
                self.problems.append(f"request to another host (offline?): {request.url}")


def wait_until_rendered(page, timeout: float = RUN_TIMEOUT) -> None:
    """Wait until :data:`RENDER_STATE` holds and stays the same for a second."""
    deadline, last, since = time.monotonic() + timeout, None, time.monotonic()
    while time.monotonic() < deadline:
        state = page.evaluate(RENDER_STATE)
        if state is None or state != last:
            last, since = state, time.monotonic()
        elif time.monotonic() - since >= 1.0:
            return
        time.sleep(0.25)
    pytest.fail(f"the page did not finish drawing in {timeout:.0f} s (last state {last})")


def run_all_in_lab(page, base: str, notebook: str) -> list[str]:
    """Open ``notebook`` in JupyterLab, clear its stored outputs, Run All; problems seen."""
    page.goto(f"{base}lab/tree/{notebook}?reset", timeout=120_000)
    app = "window.jupyterapp?.shell.currentWidget"
    page.wait_for_function(
        f"{app}?.context?.path === {json.dumps(notebook)} && "
        f"{app}.sessionContext?.session?.kernel?.status === 'idle'",
        timeout=120_000,
    )
    completed = page.evaluate(
        """async () => {
            const commands = window.jupyterapp.commands;
            window.jupyterapp.shell.collapseLeft();  // the file browser: a class reads full width
            await commands.execute('notebook:clear-all-cell-outputs');
            return await commands.execute('notebook:run-all-cells');
        }"""
    )
    page.wait_for_function(
        f"{app}.sessionContext.session.kernel.status === 'idle'", timeout=RUN_TIMEOUT * 1000
    )
    wait_until_rendered(page)
    # read from the model: a cell whose source is hidden draws no prompt
    unrun = page.evaluate(
        f"""() => {app}.content.widgets.filter(w => w.model.type === 'code')
            .map((w, i) => [i, w.model.executionCount])
            .filter(([i, n]) => n === null || n === undefined).map(([i, n]) => i)"""
    )
    problems = []
    if not completed or unrun:
        problems.append(f"Run All stopped: code cells {unrun} did not run")
    return problems


def start_voila(page, base: str, notebook: str) -> None:
    """Start loading ``notebook`` with Voilà: its kernel runs the notebook as the page streams."""
    page.goto(f"{base}voila/render/{notebook}", wait_until="commit", timeout=120_000)


def finish_voila(page, watch: Watch) -> list[str]:
    """Wait for the Voilà page started by :func:`start_voila` to run its notebook and draw.

    Without progressive rendering the page loads once Voilà has run the notebook; with it (as
    `make voila` serves) the page loads at once, then receives the cells one by one.
    """
    page.wait_for_load_state("load", timeout=RUN_TIMEOUT * 1000)
    config = page.evaluate(
        "JSON.parse(document.getElementById('jupyter-config-data').textContent)")
    if config.get("progressiveRendering"):
        deadline = time.monotonic() + RUN_TIMEOUT
        while watch.total is None or watch.cells < watch.total:
            if time.monotonic() > deadline:
                pytest.fail(
                    f"Voilà ran {watch.cells} of {watch.total} cells in {RUN_TIMEOUT} s (a stall "
                    "after a cell that shows a large output through an Output widget, such as "
                    "an explorer's first chart, is voila-dashboards/voila#1428)"
                )
            page.wait_for_timeout(250)  # lets playwright deliver the messages
    wait_until_rendered(page)
    return []


def shut_down_lab_kernel(page) -> None:
    """Shut the JupyterLab page's kernel down (a page closing leaves it running)."""
    page.evaluate("window.jupyterapp.serviceManager.sessions.shutdownAll()")


def output_problems(page) -> list[str]:
    """Stderr outputs (but finished tqdm bars), failed progress bars, error or warning text."""
    found = page.evaluate(OUTPUT_TEXTS)
    stderr: dict[str, str] = {}
    for where, text in found["stderr"]:  # Voilà keeps each write of a bar as its own output
        stderr[where] = stderr.get(where, "") + "\n" + text
    problems = [f"{where}: stderr output:\n{text.strip()[-1500:]}"
                for where, text in stderr.items() if not only_finished_bars(text)]
    problems += [f"{where}: {text}" for where, text in found["danger"]]
    for where, text in found["text"]:
        match = PROBLEM_TEXT.search(text)
        if match:
            excerpt = text[max(0, match.start() - 200): match.end() + 300].strip()
            problems.append(f"{where}: output says {match.group(0)!r}: ...{excerpt}...")
    return list(dict.fromkeys(problems))  # a stderr traceback also matches the text check


def only_finished_bars(stderr: str) -> bool:
    """True when a cell's stderr text is tqdm bars only, each last seen at 100 %."""
    last: dict[str, int] = {}
    for line in stderr.splitlines():
        line = line.rsplit("\r", 1)[-1]
        bar = TQDM_LINE.match(line.strip())
        if bar:
            last[bar["desc"]] = int(bar["percent"])
        elif line.strip():
            return False
    return all(percent == 100 for percent in last.values())


def empty_panels(marks: dict[str, int]) -> list[str]:
    """The panels of a chart without a mark item (``["chart"]`` when it has no marks at all)."""
    if not marks:
        return ["chart"]
    return [panel for panel, count in marks.items() if count == 0]


def chart_problems(page) -> tuple[int, list[str]]:
    """How many charts the page has, and those that could not be exported or have no marks."""
    charts = page.evaluate(CHART_MARKS)
    problems = []
    for i, marks in enumerate(charts):
        if marks is None:
            problems.append(f"chart {i}: vega-embed could not export it")
        elif empty_panels(marks):
            problems.append(f"chart {i}: no marks in {empty_panels(marks)} (marks: {marks})")
    return len(charts), problems


def _move_control(page, explorer) -> str:
    """Move the explorer's first slider one keyboard step (down, or up at its minimum), or
    else pick its first drop-down's next option; says what it did."""
    handle = explorer.locator(".noUi-handle").first
    if handle.count():
        label = handle.locator("xpath=ancestor::*[contains(@class,'widget-slider')][1]")
        name = label.locator(".widget-label").first.text_content()
        at_min = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemin")
        key = "ArrowRight" if at_min else "ArrowLeft"
        handle.scroll_into_view_if_needed()
        handle.focus()
        page.keyboard.press(key)
        return f"slider {name!r} ({key})"
    select = explorer.locator("select").first
    options = select.locator("option").all_text_contents()
    current = select.input_value()
    values = select.locator("option").evaluate_all("os => os.map(o => o.value)")
    choice = values[(values.index(current) + 1) % len(values)]
    select.select_option(choice)
    return f"drop-down {options} -> {choice!r}"


def explorer_problems(page) -> tuple[int, list[str]]:
    """Move one control of each explorer; its chart must change and keep its marks."""
    count = page.evaluate("window.__dpviz.explorers().length")
    problems = []
    for i in range(count):
        explorer = page.locator(".widget-vbox:has(> .widget-output)").nth(i)
        chart = f"window.__dpviz.chart(window.__dpviz.explorers()[{i}])"
        before = page.evaluate(chart)
        if before is None or "error" in before:
            problems.append(f"explorer {i}: no chart to start with")
            continue
        moved = _move_control(page, explorer)
        deadline, after = time.monotonic() + CHANGE_TIMEOUT, None
        while time.monotonic() < deadline:
            after = page.evaluate(chart)
            if after is not None and after.get("svg") != before["svg"]:
                break
            page.wait_for_timeout(200)
        else:
            problems.append(f"explorer {i}: the chart did not change in {CHANGE_TIMEOUT} s "
                            f"after moving its {moved}")
            continue
        if "error" in after:
            problems.append(f"explorer {i}: after moving its {moved} it shows an error:\n"
                            f"{after['error'].strip()[-1500:]}")
        elif empty_panels(after["marks"]):
            problems.append(f"explorer {i}: after moving its {moved} the chart has no marks in "
                            f"{empty_panels(after['marks'])}")
    return count, problems


def screenshot(page, name: str) -> Path:
    """A screenshot of the page's first explorer (or of its top) in :data:`SCREENSHOTS`."""
    path = SCREENSHOTS / name
    path.parent.mkdir(parents=True, exist_ok=True)
    explorers = page.locator(".widget-vbox:has(> .widget-output)")
    if explorers.count():
        explorers.first.scroll_into_view_if_needed()
    page.screenshot(path=str(path))
    return path
