# ccsim — two commands on a fresh machine:  make run   and   make test
PY      ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.deps-stamp
CARGO   ?= cargo
export CARGO_TERM_COLOR = never

.PHONY: run test build develop develop-checked test-rust test-python bench fuzz clean

$(STAMP): requirements.lock pyproject.toml
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -r requirements.lock
	touch $(STAMP)

# Build the Rust core and install the package (editable) into .venv.
develop: $(STAMP)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --release --quiet

# The same, built with the core's invariants on (debug_assert! and overflow
# checks, profile test-release): what `make test` runs the Python tests on.
develop-checked: $(STAMP)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --profile test-release --quiet

build: develop

# The main job: the quick reproduction of every study that is ready
# (experiments as resumable campaigns, claims with verdicts, HTML and
# Markdown reports, an index page). A few minutes on two cores.
run: develop
	$(VENV)/bin/ccsim study all --quick --out results/studies
	@echo
	@echo "open results/studies/index.html"

test: test-rust test-python

test-rust:
	$(CARGO) test --profile test-release --workspace --quiet

test-python: develop-checked
	$(VPY) -m pytest tests
	@echo "(tests ran on the invariant-checking build; 'make develop' puts the release build back)"

bench: develop
	$(VENV)/bin/ccsim bench

# Generated scenarios against the run invariants (docs/reliability.md):
# make fuzz N=100000 SEED=1; failing cases are written to results/fuzz/.
N    ?= 10000
SEED ?= 1
fuzz: develop-checked
	$(VPY) -m ccsim.fuzz $(N) --seed $(SEED) --out results/fuzz

clean:
	rm -rf $(VENV) target results
