"""`make room` (issue 44): its flags, the cap's rules, and one tiny room served for real.

The cap logic (:mod:`dpviz.ui.room`) is checked without a browser: its pure rules, then the
kernel manager's mixin on a stand-in for Voilà's pool, then a real Voilà serving a one-cell
notebook from a pool of 1 with a cap of 2, asked for pages over HTTP (about 10 s). The
classroom's numbers come from ``python -m bench.room`` (a benchmark, not a test).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from tornado.web import HTTPError
from traitlets.config import LoggingConfigurable

from dpviz.ui import room
from dpviz.ui.room import KernelState, evictable, left_seconds, pool_room, room_memory_line

ROOT = Path(__file__).resolve().parent.parent


def make_n_room(*variables: str) -> list[str]:
    line = subprocess.run(["make", "-s", "-n", "room", *variables], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout.splitlines()[-1]
    return line.split()


def test_make_room_serves_a_pool_with_culling_and_a_cap():
    words = make_n_room()
    assert words[0] == "OMP_NUM_THREADS=1"  # one thread per kernel in a room
    assert words[1:4] == [".venv/bin/python", "-m", "dpviz.ui.room"]
    assert words[4] == "notebooks/05_dp_random_forest.ipynb"
    flags = set(words[5:])
    assert {"--VoilaConfiguration.preheat_kernel=True",
            "--VoilaConfiguration.default_pool_size=30", "--RoomKernelManager.cap=60",
            "--MappingKernelManager.cull_idle_timeout=300",
            "--MappingKernelManager.cull_interval=60",
            "--MappingKernelManager.cull_connected=False", "--VoilaExecutor.timeout=120",
            "--Voila.ip=127.0.0.1", "--no-browser"} <= flags
    # Voilà refuses pre-heating with progressive rendering
    assert not any("progressive_rendering" in f for f in flags)
    other = make_n_room("POOL=5", "CAP=8", "NB=notebooks/02_private_random_trees.ipynb",
                        "VOILA_IP=0.0.0.0")
    assert {"--VoilaConfiguration.default_pool_size=5", "--RoomKernelManager.cap=8",
            "--Voila.ip=0.0.0.0", "notebooks/02_private_random_trees.ipynb"} <= set(other)


def test_make_voila_is_unchanged_by_the_room():
    line = subprocess.run(["make", "-s", "-n", "voila"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.splitlines()[-1]
    assert "--VoilaConfiguration.progressive_rendering=True" in line
    assert "preheat" not in line and "RoomKernelManager" not in line


def test_importing_the_room_module_loads_no_voila():
    code = "import sys, dpviz.ui.room; print([m for m in sys.modules if m.startswith('voila')])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- the rules --------------------------------------------------------------------------

def state(kernel_id, *, connections=0, busy=False, pooled=False, left_s=100.0):
    return KernelState(kernel_id, connections, busy, pooled, left_s)


def test_only_kernels_whose_page_left_long_enough_ago_can_be_replaced():
    kernels = [state("connected", connections=1), state("busy", busy=True),
               state("pooled", pooled=True), state("just-left", left_s=10.0),
               state("left", left_s=40.0), state("left-long-ago", left_s=400.0)]
    assert evictable(kernels, after=30.0) == ["left-long-ago", "left"]
    assert evictable(kernels, after=1000.0) == []


def test_a_page_has_left_when_its_connection_closed_or_it_never_connected():
    assert left_seconds(connected_once=True, closed_s=None, given_s=500, idle_s=500) == 0.0
    assert left_seconds(connected_once=True, closed_s=45.0, given_s=500, idle_s=1) == 45.0
    # never connected: a page may still be loading; the later of hand-out and activity
    assert left_seconds(connected_once=False, closed_s=None, given_s=5.0, idle_s=90.0) == 5.0
    assert left_seconds(connected_once=False, closed_s=None, given_s=90.0, idle_s=2.0) == 2.0
    assert left_seconds(connected_once=False, closed_s=None, given_s=None, idle_s=None) == 0.0


def test_the_pool_fills_within_the_cap():
    assert pool_room(pool=0, target=30, used=0, cap=60) == 30
    assert pool_room(pool=10, target=30, used=50, cap=60) == 10
    assert pool_room(pool=10, target=30, used=60, cap=60) == 0
    assert pool_room(pool=30, target=30, used=30, cap=60) == 0
    assert pool_room(pool=0, target=30, used=65, cap=60) == 0


def test_the_memory_line_warns_when_the_cap_does_not_fit():
    assert "WARNING" not in room_memory_line(cap=60, each_mb=250, available_mb=20_000, alive=30)
    line = room_memory_line(cap=60, each_mb=250, available_mb=5_000, alive=30)
    assert "WARNING" in line and "CAP=50" in line  # 30 alive + 20 more fit in 5,000 MB


# --- the mixin on a stand-in for Voilà's pre-heating kernel manager ------------------------

class FakeKernel:
    def __init__(self) -> None:
        self.execution_state = "idle"
        self.last_activity = None


class FakeVoilaManager(LoggingConfigurable):
    """What RoomKernelManager uses of Voilà's manager: kernels, connections, the pool."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._kernels: dict[str, FakeKernel] = {}
        self._pending_kernels: dict = {}
        self._kernel_connections: dict[str, int] = {}
        self._pools: dict[str, list] = {"nb.ipynb": []}
        self.kernel_pools_config = {"default": {"pool_size": 2}}
        self.notebook_path = None  # no announcement in these tests
        self.filled: list[int] = []
        self.count = 0

    def __contains__(self, kernel_id) -> bool:
        return kernel_id in self._kernels

    def new_kernel_id(self) -> str:
        self.count += 1
        return f"k{self.count}"

    async def start_kernel(self, *, kernel_id=None, **kwargs) -> str:
        self._kernels[kernel_id] = FakeKernel()
        self._kernel_connections[kernel_id] = 0
        return kernel_id

    async def shutdown_kernel(self, kernel_id, *args, **kwargs) -> None:
        del self._kernels[kernel_id]

    def notify_connect(self, kernel_id) -> None:
        self._kernel_connections[kernel_id] += 1

    def notify_disconnect(self, kernel_id) -> None:
        self._kernel_connections[kernel_id] -= 1

    def fill_if_needed(self, delay=None, notebook_name=None, **kwargs) -> None:
        size = self.kernel_pools_config.get(notebook_name, {}).get("pool_size", 2)
        self.filled.append(size)


Manager = room.room_manager(FakeVoilaManager)


def run(coroutine_function):
    async def main():
        manager = Manager(cap=3, evict_after=30.0, wait_for_room=0.5)
        try:
            return await coroutine_function(manager)
        finally:
            manager._tending.cancel()

    return asyncio.run(main())


def test_under_the_cap_a_page_gets_a_kernel():
    async def scenario(manager):
        return await manager.start_kernel(kernel_name="python3"), manager.used()

    assert run(scenario) == ("k1", 1)


def test_at_the_cap_a_page_is_refused_at_once_with_a_short_message():
    async def scenario(manager):
        for _ in range(3):
            manager.notify_connect(await manager.start_kernel())
        start = time.perf_counter()
        with pytest.raises(HTTPError) as refused:
            await manager.start_kernel()
        return refused.value, time.perf_counter() - start, set(manager._kernels)

    error, seconds, kernels = run(scenario)
    assert error.status_code == 503
    assert "room is full" in error.reason and "3 places" in error.reason
    assert 0.5 <= seconds < 1.5 and kernels == {"k1", "k2", "k3"}  # waited wait_for_room


def test_at_the_cap_a_reloading_page_gets_the_place_its_old_page_frees():
    """A reload: the old page's beforeunload beacon shuts its kernel down just after the new
    page asked for one; the new page waits for it instead of being refused."""
    async def scenario(manager):
        for _ in range(3):
            manager.notify_connect(await manager.start_kernel())

        async def beacon():
            await asyncio.sleep(0.2)
            manager.notify_disconnect("k2")
            await manager.shutdown_kernel("k2")

        kernel, _ = await asyncio.gather(manager.start_kernel(), beacon())
        return kernel, set(manager._kernels)

    assert run(scenario) == ("k4", {"k1", "k3", "k4"})


def test_at_the_cap_a_page_replaces_the_kernel_of_a_page_closed_long_enough_ago():
    async def scenario(manager):
        for _ in range(3):
            manager.notify_connect(await manager.start_kernel())
        manager.notify_disconnect("k2")  # its tab closed
        with pytest.raises(HTTPError):  # ... just now: it may be a reload on its way
            await manager.start_kernel()
        manager._closed["k2"] -= 31.0  # 31 s later
        return await manager.start_kernel(), set(manager._kernels)

    assert run(scenario) == ("k5", {"k1", "k3", "k5"})


def test_at_the_cap_a_page_takes_the_place_of_a_pool_entry_not_started():
    async def scenario(manager):
        for _ in range(2):
            manager.notify_connect(await manager.start_kernel())
        waiting = asyncio.get_running_loop().create_task(asyncio.sleep(60))
        manager._pools["nb.ipynb"].append(waiting)
        kernel = await manager.start_kernel()
        await asyncio.sleep(0)
        return kernel, waiting.cancelled(), manager._pools["nb.ipynb"]

    assert run(scenario) == ("k3", True, [])


def test_the_pool_refill_stays_within_the_cap():
    async def scenario(manager):
        manager.fill_if_needed(notebook_name="nb.ipynb")  # room for the whole pool
        for _ in range(2):
            manager.notify_connect(await manager.start_kernel())
        manager.fill_if_needed(notebook_name="nb.ipynb")  # one place left
        manager.notify_connect(await manager.start_kernel())
        manager.fill_if_needed(notebook_name="nb.ipynb")  # none
        return manager.filled, manager.kernel_pools_config

    filled, config = run(scenario)
    assert filled == [2, 1, 0]
    assert config == {"default": {"pool_size": 2}}  # restored after each call


# --- a real room ------------------------------------------------------------------------

def _get(url: str) -> tuple[int, str, float]:
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            return answer.status, answer.read().decode(), time.perf_counter() - start
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), time.perf_counter() - start


def test_a_room_of_two_serves_two_pages_and_refuses_the_third(tmp_path):
    """A two-cell notebook, POOL=1, CAP=2, as `make room` serves it: the ready line, a page from
    the pool, a second page, and a third one refused at once; no kernel left after. Its exercise
    cell says, in a pre-heated page too, what to do in JupyterLab (issue 44 item 4)."""
    import nbformat

    notebook = tmp_path / "tiny.ipynb"
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("print('in the room')"),
        nbformat.v4.new_code_cell("from dpviz.ui.exercises import check\ncheck('00.1', None)")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, notebook)
    with __import__("socket").socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    words = make_n_room(f"NB={notebook}", "POOL=1", "CAP=2")
    env = {**os.environ, words[0].split("=")[0]: words[0].split("=")[1],
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    log = tmp_path / "room.log"
    with log.open("w") as out:
        server = subprocess.Popen([str(ROOT / words[1]), *words[2:], f"--port={port}",
                                   "--RoomKernelManager.wait_for_room=1"],
                                  cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while "room ready" not in log.read_text():
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        ready = next(line for line in log.read_text().splitlines() if "room ready" in line)
        assert ready == (f"room ready: 1 kernels pre-heated for notebook tiny.ipynb at "
                         f"http://127.0.0.1:{port}/")
        url = f"http://127.0.0.1:{port}/"
        first, second, third = _get(url), _get(url), _get(url)
        assert first[0] == 200 and "in the room" in first[1]
        assert second[0] == 200 and "in the room" in second[1]
        for page in (first[1], second[1]):  # pre-heated, then a kernel of its own
            assert "open this notebook in JupyterLab" in page and "not answered yet" not in page
        assert third[0] == 503 and "This room is full: all 2 places are taken" in third[1]
        assert third[2] < 4.0  # after waiting 1 s for a place
        kernels = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True,
                                 text=True).stdout.split()
        assert len(kernels) == 2
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in kernels) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in kernels if Path(f"/proc/{pid}").exists()], log.read_text()
