# dpviz — two commands on a fresh machine:  make lab  |  make test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NOTEBOOKS := $(wildcard notebooks/*.ipynb)
# headless machines (no DISPLAY) get no browser; root is allowed (classroom VMs, containers)
LAB_FLAGS := --allow-root $(if $(DISPLAY),,--no-browser) --ServerApp.ip=127.0.0.1

.PHONY: setup lab test unit notebooks lint strip bench audit clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "dpviz needs Python 3.11+, found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@touch $(STAMP)

lab: $(STAMP)
	@echo "Starting JupyterLab on notebooks/00_start_here.ipynb — open the http://127.0.0.1:... URL printed below."
	$(BIN)/jupyter lab notebooks/00_start_here.ipynb $(LAB_FLAGS)

test: lint unit notebooks

lint: $(STAMP)
	$(BIN)/ruff check .

unit: $(STAMP)
	$(BIN)/python -m pytest tests -q

# DPVIZ_QUICK=1: notebooks shrink their repeat counts so that all of them run in a few minutes
notebooks: $(STAMP)
	DPVIZ_QUICK=1 $(BIN)/python -m pytest -q --nbval-lax --nbval-current-env \
		--nbval-sanitize-with notebooks/nbval_sanitize.cfg -p no:cacheprovider $(NOTEBOOKS)

strip: $(STAMP)
	$(BIN)/nbstripout --keep-output --keep-count --extra-keys "metadata.widgets cell.metadata.widgets" $(NOTEBOOKS)
	$(BIN)/python .ci/strip_progress.py $(NOTEBOOKS)

# Benchmarks (not tests): times dpviz against diffprivlib (in its own venv, bench/.venv-diffprivlib,
# created on first use) and rewrites its sections of docs/benchmarks.md; then the full 200-run
# FS Table 1 (docs/fs_table1.md). About ten minutes.
bench: $(STAMP)
	$(BIN)/python bench/run.py
	$(BIN)/python bench/bench_audit.py
	$(BIN)/python bench/release_speed.py
	$(BIN)/python bench/bench_explorers.py
	$(BIN)/python bench/fs_table1.py --out docs/fs_table1.md

# The adversarial audit suite with many samples (about 15 minutes on 2 cores); rewrites the
# privacy-claims table in docs/privacy.md. `make test` runs the same cases with fewer samples.
audit: $(STAMP)
	$(BIN)/python bench/privacy_claims.py --out docs/privacy.md

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .dpviz_cache
