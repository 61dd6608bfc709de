"""Voilà for a room (``make room``): pre-heated kernels for a class, and a cap on kernels.

An instructor says "open notebook 05" and thirty students do, at once. Plain Voilà starts a
kernel per page and runs the notebook in it: about 8 s of CPU and 250 MB each, so thirty pages
at once on two cores wait minutes. ``make room`` serves the notebook with Voilà's pre-heated
kernels (``VoilaConfiguration.preheat_kernel``): a pool of kernels that have already run the
notebook, one handed to each new page, which then shows at once. This module adds what a room
needs and Voilà lacks:

* a **cap** on the kernels alive at once, the pool's included (``RoomKernelManager.cap``).
  Voilà sets none: each page, and each reload, starts one more (a closed page's kernel lives
  until it is culled, ~6 minutes later). At the cap a new page takes the place of a kernel
  whose page has been closed for ``evict_after`` seconds (a reload's old page); failing that
  it gets a short "the room is full" page (HTTP 503) at once, never a hang;
* a pool that only hands out kernels that have started (Voilà also hands out a pool entry
  still waiting to start, and its page then waits behind the whole pool), and that is refilled
  ``refill_at_once`` kernel at a time once the room is ready (Voilà starts all of them at once,
  while the students who took them move their sliders), within the cap;
* a line on standard output when the pool is pre-heated: ``room ready: 30 kernels pre-heated
  for notebook ... at http://...``, with the memory the kernels take.

Pre-heating turns Voilà's progressive rendering off: a page that gets no pre-heated kernel
(past the pool, or a reload once the pool is empty) starts a kernel and waits for the whole
notebook to run before anything shows.

Run as ``python -m dpviz.ui.room NOTEBOOK [Voilà options]`` (``make room`` does), served as
:mod:`dpviz.ui.serve` serves ``make voila``; Voilà is imported by :func:`main` only:
``import dpviz`` and this module's import load no Voilà.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import re
import sys
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from traitlets import Float, Integer
from traitlets.config import LoggingConfigurable

#: What a page past the cap reads (also the HTTP reason: ASCII, one line).
FULL = ("This room is full: all {cap} places are taken. Close a tab you no longer use, "
        "wait a minute and reload, or ask your instructor.")


def full_message(cap: int) -> str:
    """The short message of a page refused at the cap."""
    return FULL.format(cap=cap)


@dataclass(frozen=True)
class KernelState:
    """What the cap needs to know about one kernel.

    ``left_s``: seconds since its page left: since its last page disconnected, or, for a
    kernel no page has connected to yet, since it was started or handed to a page and since
    its last activity, whichever is shorter (a page is still loading).
    """

    kernel_id: str
    connections: int
    busy: bool
    pooled: bool
    left_s: float


def evictable(kernels: Iterable[KernelState], *, after: float) -> list[str]:
    """The kernels a new page may take the place of, the longest left first.

    A kernel qualifies when no page is connected to it, it runs no code, it is not waiting in
    the pool, and its page left more than ``after`` seconds ago.
    """
    found = [k for k in kernels
             if k.connections == 0 and not k.busy and not k.pooled and k.left_s > after]
    return [k.kernel_id for k in sorted(found, key=lambda k: -k.left_s)]


def pool_room(*, pool: int, target: int, used: int, cap: int) -> int:
    """How many kernels the pool may start now.

    Up to ``target`` in the pool, and up to ``cap`` kernels in all (``used``: alive, starting
    or promised to the pool).
    """
    return max(0, min(target - pool, cap - used))


def left_seconds(*, connected_once: bool, closed_s: float | None, given_s: float | None,
                 idle_s: float | None) -> float:
    """:attr:`KernelState.left_s` from the kernel's times (seconds ago; None: never)."""
    if connected_once:
        return 0.0 if closed_s is None else closed_s  # None: connected now
    since = [s for s in (given_s, idle_s) if s is not None]
    return min(since) if since else 0.0


def memory_available_mb() -> float | None:
    """MemAvailable (MiB), or None without /proc."""
    try:
        found = re.search(r"^MemAvailable:\s*(\d+) kB", Path("/proc/meminfo").read_text(), re.M)
    except OSError:
        return None
    return int(found.group(1)) / 1024 if found else None


def process_memory_mb(pid: int) -> float | None:
    """A process's memory (MiB), or None when it is gone.

    Its proportional set size (PSS: shared pages split between their users), or its resident
    set when smaps_rollup cannot be read.
    """
    for name, field in (("smaps_rollup", "Pss"), ("status", "VmRSS")):
        try:
            text = Path(f"/proc/{pid}/{name}").read_text()
        except OSError:
            continue
        found = re.search(rf"^{field}:\s*(\d+) kB", text, re.M)
        if found:
            return int(found.group(1)) / 1024
    return None


def cores() -> int:
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _ok(task: asyncio.Future) -> bool:
    return task.done() and not task.cancelled() and task.exception() is None


def _usable(entry: asyncio.Future) -> bool:
    """A pool entry whose kernel has started and whose run of the notebook has not failed."""
    if not _ok(entry):
        return False
    render = entry.result()["task"]
    return not render.done() or _ok(render)


class _Later:
    """An awaitable that makes its coroutine when awaited.

    A pool entry cancelled before it starts then leaves no coroutine that was never awaited.
    """

    def __init__(self, make: Callable[[], Awaitable[Any]]) -> None:
        self.make = make

    def __await__(self):
        return self.make().__await__()


class RoomKernelManager(LoggingConfigurable):
    """The cap, the pool's hand-out and refill, and the ready line.

    Mixed into the kernel manager that Voilà builds for pre-heated kernels
    (:func:`room_manager`).
    """

    cap = Integer(60, config=True, help="At most this many kernels alive at once, the pool's "
                  "included; a page past it is told that the room is full.")
    evict_after = Float(30.0, config=True, help="At the cap, a kernel whose page has been "
                        "closed this many seconds may be shut down for a new page.")
    fill_at_once = Integer(0, config=True, help="Kernels pre-heated at once before the room "
                           "is ready (0: one per core this server may use).")
    refill_at_once = Integer(1, config=True, help="Kernels pre-heated at once to refill the "
                             "pool once the room is ready (0: no refill).")
    tend_every = Float(10.0, config=True, help="Seconds between two checks of the pool "
                       "(refill within the cap).")
    wait_for_room = Float(5.0, config=True, help="At the cap, seconds a page waits for a "
                          "place to free before it is told that the room is full.")

    def __init__(self, **kwargs: Any) -> None:
        self._reserved: set[str] = set()  # ids of kernels being started for a page
        self._launched: set[asyncio.Task] = set()  # pool entries past the gate
        self._heating = 0  # pool kernels starting or running the notebook
        self._given: dict[str, float] = {}  # kernel id -> when it was handed to a page
        self._closed: dict[str, float] = {}  # kernel id -> when its last page left
        self._connected: set[str] = set()  # kernels a page has connected to
        self._stopping: set[str] = set()  # kernels being shut down: leaving
        self._ready = False
        self._closing = False
        super().__init__(**kwargs)  # Voilà's: fills the pool
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:  # as Voilà's pool does
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
        self._tending = loop.create_task(self._tend())

    # --- counting -------------------------------------------------------------------------

    def _pool_target(self, notebook_name: str | None) -> tuple[int, dict]:
        default = self.kernel_pools_config.get("default", {})
        config = self.kernel_pools_config.get(notebook_name, default)
        return config.get("pool_size", default.get("pool_size", 1)), config

    def _pool_tasks(self) -> list[asyncio.Task]:
        return [t for pool in self._pools.values() for t in pool]

    def _pooled_ids(self) -> set[str]:
        return {t.result()["kernel_id"] for t in self._pool_tasks() if _ok(t)}

    def used(self) -> int:
        """Kernels alive, starting for a page, or promised to the pool.

        A pool kernel counts twice for the second or so while it starts: the count errs
        towards the cap.
        """
        alive = (set(self._kernels) | set(self._pending_kernels) | self._reserved) - self._stopping
        return len(alive) + sum(1 for t in self._pool_tasks() if not t.done())

    def _kernel_states(self) -> list[KernelState]:
        now, utc_now, pooled = time.monotonic(), dt.datetime.now(dt.UTC), self._pooled_ids()
        states = []
        for kernel_id, kernel in list(self._kernels.items()):
            if kernel_id in self._stopping or kernel_id in self._reserved:
                continue
            activity = getattr(kernel, "last_activity", None)
            given, closed = self._given.get(kernel_id), self._closed.get(kernel_id)
            states.append(KernelState(
                kernel_id, self._kernel_connections.get(kernel_id, 0),
                getattr(kernel, "execution_state", "") in ("busy", "starting"),
                kernel_id in pooled,
                left_seconds(connected_once=kernel_id in self._connected,
                             closed_s=None if closed is None else now - closed,
                             given_s=None if given is None else now - given,
                             idle_s=None if activity is None
                             else (utc_now - activity).total_seconds())))
        return states

    async def _evict_one(self) -> bool:
        """Shut down the kernel whose page left longest ago (see :func:`evictable`)."""
        found = evictable(self._kernel_states(), after=self.evict_after)
        if not found:
            return False
        self.log.warning("Room at its cap of %d kernels: shutting down kernel %s, whose page "
                         "left, to make room", self.cap, found[0])
        await self.shutdown_kernel(found[0])
        return True

    # --- a page -------------------------------------------------------------------------

    async def start_kernel(self, *args: Any, kernel_id: str | None = None, **kwargs: Any) -> str:
        """A kernel for a page that found no pre-heated one: within the cap, or HTTP 503.

        At the cap the page takes the place of a pool entry that has not started, or of a
        kernel whose page left (:func:`evictable`); failing both it waits ``wait_for_room``
        seconds at most (a reloading page's old kernel is shut down by the old page's
        ``beforeunload`` beacon, which may arrive just after the new request), then is refused.
        """
        from tornado.web import HTTPError

        if kernel_id is not None and kernel_id in self:
            return await super().start_kernel(*args, kernel_id=kernel_id, **kwargs)
        kernel_id = kernel_id or self.new_kernel_id()
        self._reserved.add(kernel_id)
        deadline = time.monotonic() + self.wait_for_room
        try:
            while self.used() > self.cap:
                waiting = [t for pool in self._pools.values() for t in pool
                           if not t.done() and t not in self._launched]
                if waiting:  # a pool entry not started yet gives its place to the page
                    waiting[-1].cancel()
                    for pool in self._pools.values():
                        if waiting[-1] in pool:
                            pool.remove(waiting[-1])
                elif await self._evict_one():
                    continue
                elif time.monotonic() < deadline:
                    await asyncio.sleep(0.25)
                else:
                    self.log.warning("Room full (%d kernels): a page was refused", self.cap)
                    raise HTTPError(503, reason=full_message(self.cap))
            started = await super().start_kernel(*args, kernel_id=kernel_id, **kwargs)
            self._given[started] = time.monotonic()
            return started
        finally:
            self._reserved.discard(kernel_id)

    def get_pool_size(self, notebook_name: str) -> int:
        """Pre-heated kernels a page can have now: those that have started.

        A pool entry still waiting to start would make its page wait behind the pool.
        """
        return sum(1 for t in self._pools.get(notebook_name, ()) if _usable(t))

    async def get_rendered_notebook(self, notebook_name: str,
                                    extra_kernel_env_variables: dict | None = None,
                                    **kwargs: Any) -> Any:
        """Voilà's, handing out the most advanced kernel of the pool first."""
        def rank(task: asyncio.Task) -> int:
            if not _usable(task):
                return 2
            return 0 if task.result()["task"].done() else 1  # 0: the notebook has run

        self._pools.get(notebook_name, []).sort(key=rank)
        found = await super().get_rendered_notebook(
            notebook_name, extra_kernel_env_variables or {}, **kwargs)
        self._given[found[2]] = time.monotonic()
        return found

    def notify_connect(self, kernel_id: str) -> None:
        """A page connected to the kernel."""
        super().notify_connect(kernel_id)
        self._connected.add(kernel_id)
        self._closed.pop(kernel_id, None)

    def notify_disconnect(self, kernel_id: str) -> None:
        """A page's connection to the kernel closed."""
        super().notify_disconnect(kernel_id)
        if self._kernel_connections.get(kernel_id, 0) <= 0:
            self._closed[kernel_id] = time.monotonic()

    async def shutdown_kernel(self, kernel_id: str, *args: Any, **kwargs: Any) -> Any:
        """Voilà's (also called by a page's ``beforeunload`` beacon), forgetting the kernel."""
        if kernel_id in self._stopping:
            return None  # already on its way out
        self._stopping.add(kernel_id)
        try:
            return await super().shutdown_kernel(kernel_id, *args, **kwargs)
        finally:
            self._stopping.discard(kernel_id)
            for times in (self._given, self._closed):
                times.pop(kernel_id, None)
            self._connected.discard(kernel_id)

    async def shutdown_all(self, *args: Any, **kwargs: Any) -> None:
        """Voilà's, after cancelling the pool entries that have not started."""
        self._closing = True
        self._tending.cancel()
        for pool in self._pools.values():
            for task in [t for t in pool if not t.done() and t not in self._launched]:
                task.cancel()
                pool.remove(task)
        await super().shutdown_all(*args, **kwargs)

    # --- the pool -----------------------------------------------------------------------

    def fill_if_needed(self, delay: float | None = None, notebook_name: str | None = None,
                       **kwargs: Any) -> None:
        """Voilà's refill, within the cap (and none once ready if ``refill_at_once`` is 0)."""
        if self._closing:
            return
        pool = self._pools.setdefault(notebook_name, [])
        pool[:] = [t for t in pool if not t.done() or _ok(t)]  # a failed entry is replaced
        target, config = self._pool_target(notebook_name)
        room = pool_room(pool=len(pool), target=target, used=self.used(), cap=self.cap)
        if self._ready and self.refill_at_once <= 0:
            room = 0
        if room >= target - len(pool):
            super().fill_if_needed(delay, notebook_name, **kwargs)
            return
        saved = self.kernel_pools_config
        self.kernel_pools_config = {**saved, notebook_name: {**config,
                                                             "pool_size": len(pool) + room}}
        try:
            super().fill_if_needed(delay, notebook_name, **kwargs)
        finally:
            self.kernel_pools_config = saved

    def _initialize(self, notebook_path: str, kernel_id: str | None = None,
                    **kwargs: Any) -> Awaitable[Any]:
        if kernel_id is not None:  # a restart: Voilà runs the notebook again
            return super()._initialize(notebook_path, kernel_id, **kwargs)
        return _Later(lambda: self._preheat(notebook_path, **kwargs))

    async def _preheat(self, notebook_path: str, **kwargs: Any) -> dict:
        """A pool kernel: wait for a place at the gate, start it, run the notebook in it."""
        while self._heating >= (max(1, self.refill_at_once) if self._ready
                                else self.fill_at_once or cores()):
            await asyncio.sleep(0.2)
        self._heating += 1
        task = asyncio.current_task()
        self._launched.add(task)
        task.add_done_callback(self._launched.discard)
        try:
            found = await super()._initialize(notebook_path, None, **kwargs)
        except BaseException:
            self._heating -= 1
            raise
        found["task"].add_done_callback(self._heated)
        return found

    def _heated(self, _: asyncio.Future) -> None:
        self._heating -= 1

    async def _refill(self, notebook_name: str) -> None:
        """Top the pool up, shutting down kernels of closed pages if the cap is reached.

        A pool kernel whose run of the notebook failed (a server error) is shut down first.
        """
        pool = self._pools.get(notebook_name, [])
        for entry in [t for t in pool if _ok(t) and not _usable(t)]:
            pool.remove(entry)
            self.log.warning("Room: a pool kernel failed to run %s; replacing it",
                             notebook_name)
            await self.shutdown_kernel(entry.result()["kernel_id"])
        target, _ = self._pool_target(notebook_name)
        short = target - len([t for t in pool if not t.done() or _ok(t)])
        if short <= 0 or self.refill_at_once <= 0:
            return
        while self.cap - self.used() < short and await self._evict_one():
            pass
        self.fill_if_needed(notebook_name=notebook_name)

    async def _tend(self) -> None:
        """Say when the room is ready, then keep the pool full within the cap."""
        try:
            await self._announce()
        except Exception:
            self.log.exception("Room: could not count the pre-heated kernels")
        self._ready = True
        while not self._closing:
            await asyncio.sleep(self.tend_every)
            for name in list(self._pools):
                try:
                    await self._refill(name)
                except Exception:
                    self.log.exception("Room: could not refill the pool of %s", name)

    async def _announce(self) -> None:
        """Print progress while the first pool runs the notebook, then ``room ready: ...``."""
        name = self.notebook_path
        first = list(self._pools.get(name, []))
        if not first:
            return
        started = self.fill_at_once or cores()
        _say(f"room: pre-heating {len(first)} kernels for {name}, {started} at a time "
             f"(cap: {self.cap} kernels)...")

        async def heated(entry: asyncio.Task) -> bool:
            await asyncio.wait([entry])
            if not _ok(entry):
                return False
            render = entry.result()["task"]
            await asyncio.wait([render])
            return _ok(render)

        ok = done = 0
        for result in asyncio.as_completed([heated(t) for t in first]):
            ok += await result
            done += 1
            if done % 5 == 0 and done < len(first):
                _say(f"room: {done} of {len(first)} kernels pre-heated")
        pss = [process_memory_mb(pid) for pid in self._kernel_pids()]
        each = sum(m for m in pss if m) / max(1, sum(1 for m in pss if m))
        failed = f" ({len(first) - ok} failed: see the log above)" if ok < len(first) else ""
        _say(f"room ready: {ok} kernels pre-heated for notebook {name} at "
             f"{self.parent.display_url}{failed}")
        _say(room_memory_line(cap=self.cap, each_mb=each, available_mb=memory_available_mb(),
                              alive=len(pss)))

    def _kernel_pids(self) -> list[int]:
        pids = []
        for kernel in list(self._kernels.values()):
            pid = getattr(getattr(kernel, "provisioner", None), "pid", None)
            if pid:
                pids.append(pid)
        return pids


def room_memory_line(*, cap: int, each_mb: float, available_mb: float | None,
                     alive: int) -> str:
    """The memory the kernels take, and whether the cap fits in what the machine has left."""
    line = (f"room: {alive} kernels take {alive * each_mb / 1024:.1f} GB ({each_mb:.0f} MB "
            f"each); the cap of {cap} would take {cap * each_mb / 1024:.1f} GB")
    if available_mb is None:
        return line
    line += f"; {available_mb / 1024:.1f} GB more available"
    if (cap - alive) * each_mb > available_mb:
        fits = alive + int(available_mb // max(each_mb, 1))
        line += f". WARNING: the cap does not fit: lower it (make room CAP={fits})"
    return line


def _say(line: str) -> None:
    print(line, flush=True)


def room_manager(base: type) -> type:
    """Voilà's pre-heating kernel manager ``base`` with the room's cap, pool and ready line.

    ``base`` is made by Voilà's factory; see :class:`RoomKernelManager`.
    """
    return type("VoilaRoomKernelManager", (RoomKernelManager, base), {})


def main(argv: list[str] | None = None) -> None:
    """``python -m dpviz.ui.room NOTEBOOK [Voilà options]``: Voilà with the room's manager.

    Served as :mod:`dpviz.ui.serve` serves ``make voila`` (templates kept, kernels warmed).
    """
    from dpviz.ui.serve import launch

    def manager(made_by_voila: type, preheat_kernel: bool) -> type:
        if not preheat_kernel:
            sys.exit("dpviz.ui.room serves a room from pre-heated kernels: pass "
                     "--VoilaConfiguration.preheat_kernel=True (make room does)")
        return room_manager(made_by_voila)

    launch(sys.argv[1:] if argv is None else argv, manager)

if __name__ == "__main__":
    main()
