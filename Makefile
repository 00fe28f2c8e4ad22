# ccsim — two commands on a fresh machine:  make run   and   make test
PY      ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.deps-stamp
CARGO   ?= cargo
export CARGO_TERM_COLOR = never

.PHONY: run test build develop test-rust test-python bench clean

$(STAMP): requirements.lock pyproject.toml
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -r requirements.lock
	touch $(STAMP)

# Build the Rust core and install the package (editable) into .venv.
develop: $(STAMP)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --release --quiet

build: develop

# One scenario (table, Parquet, PNGs), then a 36-run sweep on every core:
# 3 algorithms × 3 buffers × 4 seeds, aggregated with confidence intervals.
run: develop
	$(VENV)/bin/ccsim run examples/dumbbell.toml --out results/dumbbell
	@echo
	$(VENV)/bin/ccsim sweep examples/sweep_buffers.toml --out results/sweep_buffers

test: test-rust test-python

test-rust:
	$(CARGO) test --release --workspace --quiet

test-python: develop
	$(VPY) -m pytest tests

bench: develop
	$(VENV)/bin/ccsim bench

clean:
	rm -rf $(VENV) target results
