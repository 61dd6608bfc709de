"""Voilà as dpviz serves it (``make voila``, ``make room``): a page's first chart sooner.

A page that ``make voila`` serves waits on three things in turn: the server renders the page
(Voilà builds a new Jinja environment for each request and compiles its thirteen templates
again: about 0.1-0.3 s), the browser loads Voilà's scripts (about 1.5 s), and only then does the
kernel run the notebook, starting with the imports of its first code cell (0.4-0.9 s). Two
changes here, neither of which changes what a page shows:

* **Compiled templates are kept** (:func:`keep_compiled_templates`): Jinja's bytecode cache in
  the user's temporary folder, keyed on each template's name and checked against its source
  (a changed template is compiled again, never served stale).
* **The kernel imports while the browser loads** (:func:`warm`): a kernel started for a page
  begins importing, in a background thread, the modules the notebook's setup cell imports
  (:func:`notebook_imports`, passed in ``DPVIZ_WARM``); the first cell it runs waits for that
  thread (IPython's ``pre_run_cell``), so no cell runs beside an import.

Run as ``python -m dpviz.ui.serve NOTEBOOK [Voilà options]`` (``make voila`` does);
:mod:`dpviz.ui.room` serves a room the same way. Voilà is imported by :func:`launch` only:
this module is what a kernel imports to warm itself, so it imports nothing heavy.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The environment variable that carries the notebook's imports to its kernels (comma-separated).
WARM = "DPVIZ_WARM"
#: What a kernel started by this server runs first: start warming, bind no name.
WARM_LINE = "__import__('dpviz.ui.serve').ui.serve.warm()"
#: The bytecode cache's file names in the temporary folder (Jinja's default folder for it).
TEMPLATE_CACHE_PATTERN = "dpviz-voila-%s.cache"


def notebook_imports(path: str | Path) -> list[str]:
    """The modules a notebook's first importing code cell (its setup cell) imports, in order.

    ``import a.b`` and ``from a.b import c`` name ``a.b``; only the cell's top-level imports
    (not those inside a function, which may never run); relative imports, magics' code and
    cells that do not parse are left out. Later cells import for themselves: warming is a head
    start for the first cells, and the first cell waits for all of it (:func:`warm`).
    """
    cells = json.loads(Path(path).read_text(encoding="utf-8")).get("cells", [])
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        try:
            tree = ast.parse("".join(cell.get("source", "")))
        except SyntaxError:
            continue
        found: dict[str, None] = {}
        for node in tree.body:
            if isinstance(node, ast.Import):
                found.update(dict.fromkeys(alias.name for alias in node.names))
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found[node.module] = None
        if found:
            return list(found)
    return []


def _import_all(modules: list[str]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # the cell's own import says what is wrong
            continue


def warm(modules: list[str] | None = None, shell: Any = None) -> threading.Thread | None:
    """Import ``modules`` (default: ``DPVIZ_WARM``'s) in a background thread of this kernel.

    The first cell run after this waits for the thread: IPython's ``pre_run_cell`` joins it,
    so imports never run beside a cell. Returns the thread (None: nothing to import).
    """
    if modules is None:
        modules = [m for m in os.environ.get(WARM, "").split(",") if m]
    if not modules:
        return None
    thread = threading.Thread(target=_import_all, args=(modules,), name="dpviz-warm",
                              daemon=True)
    thread.start()
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    if shell is not None:
        def wait_for_imports(*_: Any) -> None:
            thread.join()
            shell.events.unregister("pre_run_cell", wait_for_imports)

        shell.events.register("pre_run_cell", wait_for_imports)
    return thread


def keep_compiled_templates() -> None:
    """Give every nbconvert/Voilà template environment one bytecode cache (see the module)."""
    from jinja2 import FileSystemBytecodeCache
    from nbconvert.exporters.templateexporter import TemplateExporter

    if getattr(TemplateExporter, "_dpviz_bytecode_cache", None) is not None:
        return
    cache = FileSystemBytecodeCache(pattern=TEMPLATE_CACHE_PATTERN)
    create = TemplateExporter._create_environment

    def create_with_cache(self: Any) -> Any:
        environment = create(self)
        environment.bytecode_cache = cache
        return environment

    TemplateExporter._create_environment = create_with_cache
    TemplateExporter._dpviz_bytecode_cache = cache


def warming_manager(base: type) -> type:
    """Kernel manager ``base`` whose kernels run :data:`WARM_LINE` as they start.

    A kernel for a page of a folder (``/voila/render/<notebook>``) warms that notebook's
    imports; one of a single-notebook server, those of the server's notebook (``DPVIZ_WARM``
    as :func:`launch` set it).
    """
    class WarmingKernelManager(base):
        async def start_kernel(self, *args: Any, **kwargs: Any) -> str:
            env, page = kwargs.get("env"), (kwargs.get("env") or {}).get("SCRIPT_NAME", "")
            if env is not None and page.endswith(".ipynb"):  # the folder: relative to the root
                folder = Path(getattr(self, "root_dir", "") or ".") / (kwargs.get("path") or "")
                notebook = folder / Path(page).name
                if notebook.is_file():
                    env[WARM] = ",".join(notebook_imports(notebook))
            kwargs.setdefault("extra_arguments", [f"--IPKernelApp.exec_lines={WARM_LINE}"])
            return await super().start_kernel(*args, **kwargs)

    return WarmingKernelManager


def _notebook_argument(argv: list[str]) -> str | None:
    return next((a for a in argv if not a.startswith("-") and a.endswith(".ipynb")), None)


def launch(argv: list[str], manager: Callable[[type, bool], type] | None = None) -> None:
    """Voilà with ``argv``: templates kept, kernels warmed for the notebook named in ``argv``.

    ``manager(base, preheat_kernel)`` may replace the kernel manager class Voilà's factory
    made (:mod:`dpviz.ui.room` adds its cap and pool this way).
    """
    import voila.app

    notebook = _notebook_argument(argv)
    if notebook is not None and Path(notebook).is_file():
        os.environ[WARM] = ",".join(notebook_imports(notebook))
    keep_compiled_templates()
    made_by_voila = voila.app.voila_kernel_manager_factory

    def factory(base: type, preheat_kernel: bool, default_pool_size: int,
                page_config_hook: Any = None) -> type:
        made = made_by_voila(base, preheat_kernel, default_pool_size,
                             page_config_hook=page_config_hook)
        made = manager(made, preheat_kernel) if manager is not None else made
        return warming_manager(made)

    voila.app.voila_kernel_manager_factory = factory
    voila.app.Voila.launch_instance(argv)


def main(argv: list[str] | None = None) -> None:
    """``python -m dpviz.ui.serve NOTEBOOK [Voilà options]``: Voilà as ``make voila`` runs it."""
    launch(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    main()
