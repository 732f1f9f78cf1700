# The two commands a new user needs (see README.md):
#   make outcast   install corral into the project environment .venv and reproduce the TCP
#                  Outcast results into results/outcast
#   make test      install corral with its test extras and run every test (Rust and Python)
# Also:
#   make fct       the FCT comparison (DCTCP vs NewReno vs CUBIC): results/fct, results/fct-report
#   make bench     the speed benchmark (bench/README.md)
#   make lint      clippy over every Rust crate and target, warnings as errors
#
# The native code is built with profile-guided optimization (scripts/pgo.py: an instrumented
# build runs the package's example scenarios first); PGO=0 builds without it.
#
# Everything goes into .venv (made by scripts/make_venv.py from $(PYTHON), 3.9 or newer), so the
# system's Python is never changed: it works where pip refuses to install (PEP 668).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
WHEELS := target/wheels
PGO ?= 1
# Runs a cargo or maturin build with the PGO profile (scripts/pgo.py); output in target/pgo/use.
PGO_BUILD := CORRAL_PGO=$(PGO) $(PY) scripts/pgo.py run --
ENGINE := target/pgo/use/release/examples/run_scenario

.PHONY: install install-test wheel outcast fct test bench lint prerequisites

prerequisites:
	@command -v cargo >/dev/null || { echo "error: corral needs Rust (cargo) 1.88 or newer: https://rustup.rs" >&2; exit 2; }
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' || { echo "error: corral needs Python 3.9 or newer ($(PYTHON))" >&2; exit 2; }

$(PY): scripts/make_venv.py
	@$(MAKE) --no-print-directory prerequisites
	$(PYTHON) scripts/make_venv.py $(VENV)
	@touch $(PY)

# Build the native module (cargo shows its progress) and install the wheel, without its
# dependencies; `install` and `install-test` add those.
wheel: $(PY)
	@echo "building corral (Rust, release, profile-guided; about 3-4 minutes the first time on 2 cores)"
	@$(PY) -m pip install --quiet --disable-pip-version-check 'maturin>=1.5,<2'
	@rm -f $(WHEELS)/corral-*.whl
	$(PGO_BUILD) $(PY) -m maturin build --release --out $(WHEELS)
	@$(PY) -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps $(WHEELS)/corral-*.whl

install: wheel
	@echo "installing corral's dependencies into $(VENV)"
	@$(PY) -m pip install --quiet --disable-pip-version-check --find-links $(WHEELS) corral

install-test: wheel
	@echo "installing corral's dependencies and test tools into $(VENV)"
	@$(PY) -m pip install --quiet --disable-pip-version-check --find-links $(WHEELS) 'corral[test]'

outcast: install
	$(VENV)/bin/corral reproduce outcast -o results/outcast

fct: install
	$(VENV)/bin/corral sweep scenarios/fct/sweep.toml -o results/fct
	$(VENV)/bin/corral compare results/fct -o results/fct-report --by transport.cc --by traffic.0.load

test: install-test
	cargo test --release -p corral
	$(PY) -m pytest -q tests

# The engine binary the benchmark times beside htsim, built like the wheel.
bench: install
	$(PGO_BUILD) cargo build --release -p corral --example run_scenario
	$(PY) bench/run.py --engine $(ENGINE)

# Not part of `make test`: clippy checks the crates in a build of its own.
lint:
	cargo clippy --release --workspace --all-targets -- -D warnings
