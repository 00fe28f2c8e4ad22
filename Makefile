# ccsim — two commands on a fresh machine:  make run   and   make test
PY      ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
RUN_STAMP := $(VENV)/.run-stamp
DEV_STAMP := $(VENV)/.dev-stamp
CARGO   ?= cargo
export CARGO_TERM_COLOR = never
# pip's own version check reaches out to PyPI on every call; nothing to gain here
export PIP_DISABLE_PIP_VERSION_CHECK = 1

.PHONY: run test lint fmt build develop develop-checked test-rust test-python test-wheel bench fuzz lock clean notebook

# Every installed package is pinned with its hashes (requirements/*.lock,
# made by `make lock` from requirements/*.in): run.lock is what `make run`
# needs, dev.lock adds the test runner, Dask and a Jupyter kernel.
$(VENV)/bin/python:
	$(PY) -m venv $(VENV)

$(RUN_STAMP): requirements/run.lock | $(VENV)/bin/python
	$(VPY) -m pip install --quiet --require-hashes -r requirements/run.lock
	touch $(RUN_STAMP)

$(DEV_STAMP): requirements/dev.lock | $(VENV)/bin/python
	$(VPY) -m pip install --quiet --require-hashes -r requirements/dev.lock
	touch $(RUN_STAMP) $(DEV_STAMP)

# Re-pin requirements/*.lock from requirements/*.in (needs PyPI).
UV_VERSION := 0.13.9
lock:
	$(PY) -m venv .tools-venv && .tools-venv/bin/pip install --quiet uv==$(UV_VERSION)
	cd requirements && for f in run dev notebook; do ../.tools-venv/bin/uv pip compile $$f.in --generate-hashes \
	  --python-version 3.11 --python-platform x86_64-unknown-linux-gnu --no-header --annotation-style line \
	  -o $$f.lock -q; done

# Build the Rust core and install the package (editable) into .venv.
develop: $(RUN_STAMP)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --release --quiet

# The same, built with the core's invariants on (debug_assert! and overflow
# checks, profile test-release): what `make test` runs the Python tests on.
develop-checked: $(DEV_STAMP)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --profile test-release --quiet

build: develop

# JupyterLab with a kernel named "ccsim" (this .venv) and pandas, pinned in
# requirements/notebook.lock: `make notebook`, then `.venv/bin/jupyter lab`.
NB_STAMP := $(VENV)/.notebook-stamp
$(NB_STAMP): requirements/notebook.lock | $(VENV)/bin/python
	$(VPY) -m pip install --quiet --require-hashes -r requirements/notebook.lock
	$(VPY) -m ipykernel install --prefix $(abspath $(VENV)) --name ccsim --display-name "ccsim (.venv)"
	touch $(NB_STAMP)

notebook: develop $(NB_STAMP)
	@echo "start it with: $(VENV)/bin/jupyter lab   (kernel 'ccsim (.venv)')"

# The main job: the quick reproduction of every study that is ready
# (experiments as resumable campaigns, claims with verdicts, HTML and
# Markdown reports, an index page), then the verdict table of
# docs/verdicts.md regenerated from the reports. About half an hour on two
# cores (docs/performance.md).
run: develop
	$(VENV)/bin/ccsim study all --quick --out results/studies
	$(VENV)/bin/python -m ccsim.studies.verdicts results/studies quick docs/verdicts.md
	@echo
	@echo "open results/studies/index.html"

test: test-rust test-python test-wheel

test-rust:
	$(CARGO) test --profile test-release --workspace --quiet

test-python: develop-checked
	$(VPY) -m pytest tests
	@echo "(tests ran on the invariant-checking build; 'make develop' puts the release build back)"

# The package as a user installs it: a wheel built by maturin (the test
# profile's artifacts, already compiled by test-python) installed into a fresh
# venv with the pinned runtime packages, run from outside the repository with
# no Rust toolchain on PATH.
WHEEL_VENV := target/wheel-venv
test-wheel: develop-checked
	rm -rf target/wheels $(WHEEL_VENV)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin build \
	  --profile test-release --quiet --out target/wheels
	$(PY) -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/pip install --quiet --require-hashes -r requirements/run.lock
	$(WHEEL_VENV)/bin/pip install --quiet --no-deps target/wheels/ccsim-*.whl
	cd /tmp && env -i HOME=$$HOME PATH=/usr/bin:/bin $(abspath $(WHEEL_VENV))/bin/ccsim run \
	  $(abspath examples/dumbbell.toml) --set sim.duration=5s --no-write --json > $(abspath target/wheel-run.json)
	$(VPY) -c "import json; d = json.load(open('target/wheel-run.json')); \
	  assert len(d['flows']) == 10 and sum(f['goodput_bps'] for f in d['flows']) > 50e6, d; \
	  print('wheel: installed and ran examples/dumbbell.toml:', len(d['flows']), 'flows')"

# Formatting and lint, Rust and Python (settings: rustfmt.toml, [tool.ruff] in
# pyproject.toml); CI runs it before the tests. `make fmt` applies the formatters.
lint: $(DEV_STAMP)
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --profile test-release --quiet -- -D warnings
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

fmt: $(DEV_STAMP)
	$(CARGO) fmt --all
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: develop
	$(VENV)/bin/ccsim bench

# Generated scenarios against the run invariants (docs/reliability.md):
# make fuzz N=100000 SEED=1; failing cases are written to results/fuzz/.
N    ?= 10000
SEED ?= 1
fuzz: develop-checked
	$(VPY) -m ccsim.tools.fuzz $(N) --seed $(SEED) --out results/fuzz

clean:
	rm -rf $(VENV) .tools-venv target results
