# dpviz — two commands on a fresh machine:  make lab  |  make test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NOTEBOOKS := $(wildcard notebooks/*.ipynb)
# headless machines (no DISPLAY) get no browser; root is allowed (classroom VMs, containers)
LAB_FLAGS := --allow-root $(if $(DISPLAY),,--no-browser) --ServerApp.ip=127.0.0.1
# Voilà for a classroom: one notebook as an app (code hidden), rendered progressively (each output
# shows as soon as its cell has run: the first chart appears within seconds). Each page load starts a kernel
# (~250 MB); a kernel whose page was closed (no connection) and that has been idle for 5 minutes
# is shut down (checked every minute). Connected students are never culled, however long they read.
# Served by dpviz.ui.serve: Voilà with its compiled templates kept and each kernel importing the
# notebook's setup cell while the browser loads the page (the first chart ~0.5-1 s sooner).
NB ?= notebooks/05_dp_random_forest.ipynb
VOILA_IP ?= 127.0.0.1
# A cell that never answers (a wedged kernel) must not leave a dead page: Voilà's executor has no
# cell timeout by default (nbclient timeout=None). After 120 s the kernel is interrupted and, if that
# does not free it, the cell is reported as timed out (error_on_timeout) instead of waiting forever.
# (One token per flag, no spaces: tests/_browser.py splits `make -n voila` on whitespace.)
VOILA_FLAGS := --no-browser --Voila.ip=$(VOILA_IP) --VoilaConfiguration.progressive_rendering=True \
	--MappingKernelManager.cull_idle_timeout=300 --MappingKernelManager.cull_interval=60 \
	--MappingKernelManager.cull_connected=False \
	--VoilaExecutor.timeout=120 --VoilaExecutor.interrupt_on_timeout=True \
	--VoilaExecutor.error_on_timeout=ename=CellTimeoutError \
	--VoilaExecutor.error_on_timeout=evalue=no_kernel_reply_within_120s

.PHONY: setup lab voila room test data unit notebooks notebooks-portable student lint strip results bench audit mutants clean

setup: $(STAMP)

# The install removes rfc3987-syntax, jsonschema's optional IRI checker (pulled in by jupyter-events):
# it builds a grammar for about 3 s whenever altair is imported, so every notebook would open 3 s
# later. Nothing here checks IRIs, and jsonschema skips that format without it.
# nbgrader (graded work: tools/assignment.py runs its command line) comes with JupyterLab and
# server extensions (assignment lists, the formgrader) and notebook 7's lab extension: they are
# disabled, so that JupyterLab, Voilà and the hub look and start as they did before it.

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "dpviz needs Python 3.11+, found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip uninstall --quiet --yes rfc3987-syntax
	rm -f $(VENV)/etc/jupyter/jupyter_server_config.d/nbgrader.json
	$(BIN)/jupyter labextension disable --level=sys_prefix @jupyter/nbgrader > /dev/null 2>&1
	$(BIN)/jupyter labextension disable --level=sys_prefix @jupyter-notebook/lab-extension > /dev/null 2>&1
	$(BIN)/python -m pip install --quiet --quiet --no-deps -e .  # -qq: setuptools warns on any editable install
	@touch $(STAMP)

# Quiet start-up (warnings only), so that the last lines printed are the URL, which opens 00.
lab: $(STAMP)
	@echo "Starting JupyterLab: open the http://127.0.0.1:... URL printed last (it opens 00_start_here)."
	@PYTHONWARNINGS=ignore::DeprecationWarning $(BIN)/jupyter lab $(LAB_FLAGS) --ServerApp.root_dir=notebooks \
		--LabApp.default_url=/lab/tree/00_start_here.ipynb --ServerApp.log_level=WARN --LabApp.log_level=WARN

voila: $(STAMP)
	@echo "Serving $(NB) with Voilà (idle kernels of closed pages culled after 5 minutes)."
	$(BIN)/python -m dpviz.ui.serve $(NB) $(VOILA_FLAGS)

# Voilà for a class that opens one notebook at once (issue 44): NB and VOILA_IP as for `make voila`.
# POOL kernels (default 30) run the notebook before anyone asks (Voilà's pre-heated kernels), so
# a page handed one shows at once; start it before class and wait for the line "room ready: ..."
# (about a minute for 30 on 2 cores). Once ready, the pool is refilled one kernel at a time.
# Pre-heating turns Voilà's progressive rendering off: a page past the pool (or a reload once it
# is empty) waits for the whole notebook. At most CAP kernels (default 60, pool included, about
# 0.12-0.17 GB each) are alive at once (dpviz/ui/room.py): at the cap a new page takes the place of a
# kernel whose page was closed 30 s before, or else reads "This room is full" (HTTP 503) at once.
# Culling and the cell timeout as for `make voila`; one thread per kernel unless OMP_NUM_THREADS
# is set. (One token per flag, no spaces: bench/room.py and tests/test_room.py split `make -n room`.)
POOL ?= 30
CAP ?= 60
ROOM_FLAGS := $(filter-out --VoilaConfiguration.progressive_rendering=True,$(VOILA_FLAGS)) \
	--VoilaConfiguration.preheat_kernel=True --VoilaConfiguration.default_pool_size=$(POOL) \
	--RoomKernelManager.cap=$(CAP)
room: $(STAMP)
	@echo "Serving $(NB) to a room: $(POOL) kernels pre-heated, at most $(CAP); wait for 'room ready'."
	OMP_NUM_THREADS=$(or $(OMP_NUM_THREADS),1) $(BIN)/python -m dpviz.ui.room $(NB) $(ROOM_FLAGS)

test: data lint unit notebooks notebooks-portable

# the UCI files (downloaded on first use): one short message and a non-zero exit if they cannot be had
data: $(STAMP)
	@$(BIN)/python -c "from dpviz.data.uci import main; main()"

lint: $(STAMP)
	$(BIN)/ruff check .

# The unit tests over two workers (pytest-xdist, a file per worker at a time): the claims
# suite's CPU-bound audits and the browser test's waits on its servers overlap.
unit: $(STAMP)
	$(BIN)/python -m pytest tests -q -n auto --dist loadfile

# DPVIZ_QUICK=1: a reproduction recomputed with DPVIZ_RECOMPUTE=1 runs small; without it the
# notebooks read the shipped results either way, so that all of them run in a few minutes
# --nbval-cell-timeout: nbval's default is 2000 s and it does not poll the kernel while a cell
# runs, so a wedged or silently dead kernel would look like a 33-minute hang (quick-mode cells take < 30 s)
NBVAL := $(BIN)/python -m pytest -q --nbval-lax --nbval-current-env --nbval-cell-timeout=300 \
	--nbval-sanitize-with notebooks/nbval_sanitize.cfg -p no:cacheprovider
notebooks: $(STAMP)
	DPVIZ_QUICK=1 $(NBVAL) $(NOTEBOOKS)

# The compared outputs must not depend on the processor: the same notebooks again on numpy's
# baseline code paths (no AVX2, no AVX-512: an older CPU than most) and on one core. A machine
# with AVX-512 reproduces an AVX2 machine's figures with NPY_DISABLE_CPU_FEATURES="X86_V4
# AVX512_ICL AVX512_SPR"; check numpy.show_runtime(), since numpy ignores names it does not know.
ONE_CORE := $(if $(shell command -v taskset),taskset -c 0,)
# This pass runs the students' copy (make student): its notebooks on its library, without the key
# (PYTHONPATH first on the kernel's path), so that every notebook is seen to run and check there too;
# the data and the result cache are the checkout's (DPVIZ_DATA, DPVIZ_CACHE, unless set).
notebooks-portable: student
	DPVIZ_QUICK=1 NPY_DISABLE_CPU_FEATURES="X86_V3 X86_V4 AVX512_ICL AVX512_SPR" OMP_NUM_THREADS=1 \
		NUMBA_NUM_THREADS=1 PYTHONPATH=$(CURDIR)/$(STUDENT) DPVIZ_DATA=$(or $(DPVIZ_DATA),$(CURDIR)/data) \
		DPVIZ_CACHE=$(or $(DPVIZ_CACHE),$(CURDIR)/.dpviz_cache) \
		$(ONE_CORE) $(NBVAL) $(addprefix $(STUDENT)/,$(NOTEBOOKS))

# The students' copy (issue 45): build/student/ holds the notebooks, the library and the public docs
# without the instructor's key (dpviz.ui.exercises.solution), the worked answers (the blocks between
# '# --- answer: start' and '# --- answer: end'), the tests and docs/instructor_answers.md; the checks
# still work there. What a hub (make hub) or a class download serves. tools/student.py; the threat
# model is in docs/instructor.md.
STUDENT := build/student
student: $(STAMP)
	$(BIN)/python -m tools.student --out $(STUDENT)

strip: $(STAMP)
	$(BIN)/nbstripout --keep-output --keep-count --extra-keys "metadata.widgets cell.metadata.widgets" $(NOTEBOOKS)
	$(BIN)/python .ci/strip_progress.py $(NOTEBOOKS)

# The reproductions that take minutes ship as small files in dpviz/results/ (CSV + JSON with the code
# version and the record of what each ran), which the notebooks read. This recomputes every one of
# them with the full settings (each notebook module's SHIPPED calls: dpviz.explore.run_shipped; the
# notebooks' explorer grids and curves included), past every cache, and rewrites the files: compare
# (07) in one process and the other modules in another (one core each), about 35 minutes on 2 cores
# (2026-12-03: compare about 33 min, the rest about 22). ONLY=fi (or fs, jpw, rdt_sharp, audit,
# compare: a module of dpviz/explore with a SHIPPED; several with commas) remakes one group in one
# process (ONLY="fi fs": two processes). `python -m dpviz.experiments.shipped --stale`
# says which files a change of code made stale. Commit the files after. (DPVIZ_QUICK=0: a quick
# recomputation must never be shipped.)
ONLY ?=
RESULT_GROUPS ?= compare fi,audit,rdt_sharp,jpw,fs
results: $(STAMP)
	@pids=""; for group in $(or $(ONLY),$(RESULT_GROUPS)); do \
		DPVIZ_QUICK=0 DPVIZ_RECOMPUTE=1 DPVIZ_SAVE_RESULTS=1 DPVIZ_CACHE=off $(BIN)/python -c \
			"from dpviz.explore import run_shipped; run_shipped('$$group')" & pids="$$pids $$!"; \
	done; status=0; for pid in $$pids; do wait $$pid || status=1; done; exit $$status

# Benchmarks (not tests): each `python -m bench.NAME` (run from here) times dpviz, against diffprivlib
# where there is a peer (in its own venv, bench/.venv-diffprivlib, created on first use), and rewrites
# its section of docs/benchmarks.md with the machine and the load average; fs_table1 rewrites
# docs/fs_table1.md. About 45 minutes on 2 cores. `BENCH_QUICK=1 make bench`: small sizes, to check
# that every script runs (it writes too: `git checkout docs/` after).
BENCHMARKS := forest_peer forest_scaling release_speed audit_speed scale slider_extremes \
	notebook_times fs_table1
bench: $(STAMP)
	for b in $(BENCHMARKS); do $(BIN)/python -m bench.$$b || exit 1; done

# The adversarial audit suite and every claim's planted bug with many samples (about 45 minutes on
# 2 cores); rewrites the privacy-claims table in docs/privacy.md. `make test` runs the same cases
# and bugs with fewer samples. After a change to one estimator, `$(BIN)/python -m bench.privacy_claims
# --only 'PrivaTreeClassifier [*] (claim)'` reruns its rows alone and splices them into the table.
audit: $(STAMP)
	$(BIN)/python -m bench.privacy_claims --out docs/privacy.md

# The mutation score of the privacy suite (issue 43): mutmut 3.8.1 mutates the privacy-critical
# functions of bench/mutation/functions.txt (2,667 mutants of 60 functions) and runs each against
# the claims rows, planted bugs, invariants and edge tests that call its function; writes killed /
# survived / equivalent / not reached and every survivor's triage (bench/mutation/triage.csv) into
# docs/privacy.md ("The suite's mutation score", between the mutants markers). From an empty work
# folder: 81 min on 2 cores at load <= 2 (2026-12-02), over 2 h when other work shares the cores;
# survivors dominate (each runs every test that reaches its function: PrivateTable._charge's run
# the whole suite). Resumable: a run keeps the results stored for the same code and tests
# (mutants/) and skips mutants triaged equivalent; tests only added to tests/test_privacy_edges.py
# rerun the survivors alone (189 survivors: 32 min, 2026-12-03). `python -m bench.mutants --only 'dpviz.mechanisms.*'`: a subset;
# `--check`: fail on an open survivor; `--report`: rewrite the docs from the stored results.
mutants: $(STAMP)
	$(BIN)/python -m bench.mutants

# JupyterHub for a lab or a small class on this machine (issue 44): each student a system account
# (home 0700) that their server runs as, a password each sets at first login, each landing in
# 00_start_here of their own copy of the workbook (build/student/ where it exists, else
# notebooks/), servers idle for an hour stopped. Needs root, and node >= 20 for the proxy
# (configurable-http-proxy, pinned in hub/package.json, installed by npm ci on first use).
# HUB_IP=0.0.0.0 serves the room; the class list is hub/students.txt, one user name a line.
# docs/instructor.md ("Past one server") has the rest; tests/test_hub.py is its smoke test.
HUB_IP ?= 127.0.0.1
HUB_PORT ?= 8000
.PHONY: hub
hub: $(STAMP)
	@HUB_IP=$(HUB_IP) HUB_PORT=$(HUB_PORT) $(BIN)/python hub/launch.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .dpviz_cache
