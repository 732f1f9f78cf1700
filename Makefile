# The two commands a new user needs (see README.md):
#   make demo      install corral into the project environment .venv, run the quick
#                  reproduction of all five papers into results/<paper> and write
#                  results/index.html, one page with every paper's claims and figures
#                  (make demo OUT=folder: into another folder)
#   make test      install corral with its test extras and run every Rust and Python test
#                  but the slow ones (make test-slow) and the papers' reproductions and
#                  studies (make test-papers)
# Also:
#   make outcast   the full TCP Outcast reproduction into results/outcast
#   make docs      the documentation site (mkdocs.yml) into site/, with `mkdocs build --strict`
#   make install   build and install corral into .venv (release profile)
#   make release   the same, with profile-guided optimization (scripts/pgo.py), the fastest engine
#   make fct       the FCT comparison (DCTCP vs NewReno vs CUBIC): results/fct, results/fct-report
#   make bench     the speed benchmark (bench/README.md), on a profile-guided build
#   make lint      rustfmt --check, clippy and rustdoc (warnings as errors), ruff check, ruff
#                  format --check, and mypy's stubtest of python/corral/_core.pyi
#
# `make test` compiles the Rust code once, in the `ci` profile (Cargo.toml: optimized, in
# parallel codegen units, no LTO): the wheel the Python tests import and the integration tests
# share those compiled crates. corral's unit tests build in the `ci-unit` profile instead
# (unoptimized, with overflow checks): their harness compiles the whole crate again, which
# took about 100 s of CPU optimized and takes about 20 s unoptimized (Cargo.toml). Profile-guided optimization runs only in `make release` and `make
# bench`; it needs llvm-profdata (rustup's llvm-tools) and never installs it.
#
# Everything goes into .venv (made by scripts/make_venv.py from $(PYTHON), 3.9 or newer), so the
# system's Python is never changed: it works where pip refuses to install (PEP 668).

PYTHON ?= python3
# Where `make demo` writes its quick reproductions and page (make demo OUT=another-folder).
OUT ?= results
VENV := .venv
PY := $(VENV)/bin/python
WHEELS := target/wheels
# The Cargo profile of the wheel: release for users, ci for `make test`.
PROFILE ?= release
PGO ?= 0
# Runs a cargo or maturin build with the PGO profile when PGO=1 (scripts/pgo.py; output in
# target/pgo/use), else as it is.
PGO_BUILD := CORRAL_PGO=$(PGO) $(PY) scripts/pgo.py run --
ENGINE := target/pgo/use/release/examples/run_scenario
# Byte-compiled at install (pip's default, about 16 s of CPU for the test tools): where
# PYTHONDONTWRITEBYTECODE is set (as on this project's machines) nothing imported later is
# cached, and without it every corral subprocess of the tests compiled polars again.
PIP := $(PY) -m pip install --quiet --disable-pip-version-check
# The interpreter the wheel is built for (maturin -i), by absolute path: maturin hands it to
# cargo in PYO3_PYTHON, and `make test` must hand cargo the same (PYO3_ENV).
PY_ABS := $(abspath $(PY))
# The environment maturin gives cargo when it compiles the extension module (PyO3's build
# configuration reads it). `make test` builds the module beside the Rust tests in one cargo
# run, with this environment and the same features, so that maturin then finds it built.
PYO3_ENV = PYO3_BUILD_EXTENSION_MODULE=1 PYO3_PYTHON=$(PY_ABS) PYTHON_SYS_EXECUTABLE=$(PY_ABS) \
	PYO3_ENVIRONMENT_SIGNATURE=$$($(PY) -c 'import struct, sys; v = sys.version_info; print("%s-%d.%d-%dbit" % (sys.implementation.name, v[0], v[1], struct.calcsize("P") * 8))')
# What `make test` compiles and tests in Rust: corral, and the PyO3 crate the wheel is made of
# (it has no tests of its own). Both cargo runs name the same packages and features, so the
# second finds everything the first built.
TEST_CRATES := -p corral -p corral-py --features pyo3/extension-module

.PHONY: install install-test wheel release outcast demo docs fct test test-build test-env test-rust test-python test-slow test-papers bench lint prerequisites

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
	@echo "building corral (Rust, profile $(PROFILE)$(if $(filter 1,$(PGO)), profile-guided,); about 2 minutes the first time on 2 cores)"
	@$(PIP) 'maturin>=1.5,<2'
	@rm -f $(WHEELS)/corral-*.whl
	$(if $(filter 1,$(PGO)),$(PGO_BUILD) ,)$(PY) -m maturin build --profile $(PROFILE) --interpreter $(PY_ABS) --out $(WHEELS)
	@$(PIP) --force-reinstall --no-deps $(WHEELS)/corral-*.whl

install: wheel
	@echo "installing corral's dependencies into $(VENV)"
	@$(PIP) --find-links $(WHEELS) corral

release:
	@$(MAKE) --no-print-directory install PGO=1

install-test: PROFILE = ci
install-test: wheel
	@echo "installing corral's dependencies and test tools into $(VENV)"
	@$(PIP) --find-links $(WHEELS) 'corral[test]'

outcast: install
	$(VENV)/bin/corral reproduce outcast -o results/outcast

# The quick reproduction of every paper, then one page with their claims and figures
# (scripts/demo.py). It builds in the `ci` profile, as `make test` does: the quick runs
# take under 3 minutes either way, and the link-time optimized `release` build alone took
# 7 minutes on the 2-core VM; `make test` afterwards reuses the compiled crates.
demo: PROFILE = ci
demo: install
	$(PY) scripts/demo.py $(OUT)

# The reference pages are generated from the code first (scripts/docs_reference.py), then
# the site is built with warnings as errors: a broken link or anchor, or a page missing from
# the nav, fails it. It uses the corral already in .venv (in CI, the one `make test` built),
# and builds one only if there is none.
docs: $(PY)
	@$(PY) -c 'import corral._core' 2>/dev/null || $(MAKE) --no-print-directory install
	@$(PIP) --find-links $(WHEELS) 'corral[docs]'
	$(PY) scripts/docs_reference.py
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

fct: install
	$(VENV)/bin/corral sweep scenarios/fct/sweep.toml -o results/fct
	$(VENV)/bin/corral compare results/fct -o results/fct-report --by transport.cc --by traffic.0.load

# `make test` in three steps, packed for 2 cores:
# 1. one cargo build of the Rust that the wheel and the integration tests need: the library,
#    the integration tests and the PyO3 crate the wheel is made of, with the environment maturin would give it (PYO3_ENV), so
#    they compile side by side where the wheel's build alone ran on about one core for most
#    of its time (not the examples, which `make lint` compiles); beside it pip installs
#    maturin and corral's dependencies and test tools (scripts/requirements.py reads them
#    from pyproject.toml), which waits on the network, not the CPU;
# 2. the wheel: maturin finds the module built and only packs it, installed with the test
#    extras, which are then there already;
# 3. the Rust tests and the Python tests side by side (`-j2`; each one's output is printed
#    whole when it ends): the Rust half first compiles corral's unit-test harness in the
#    `ci-unit` profile (its own folder target/ci-unit, with its dependencies unoptimized),
#    then runs it, the integration tests and the doc tests; pytest on two workers (pytest-xdist, `--dist loadfile`: a file's
#    tests share one worker, so a module's fixture runs once and the network-namespace tests
#    of test_emulate.py never overlap).
# cargo runs outside make's jobserver (MAKEFLAGS=): in step 3 the two halves hold its 2
# tokens, and cargo would then build on one core.
test: $(PY)
	@$(MAKE) --no-print-directory -j2 test-build test-env
	@$(MAKE) --no-print-directory install-test
	@echo "running the Rust tests (cargo test) and the Python tests (pytest, 2 workers) side by side; each prints when it ends"
	@$(MAKE) --no-print-directory -j2 --output-sync=target test-rust test-python

# The two halves of `make test`'s first step.
test-build: $(PY)
	MAKEFLAGS= $(PYO3_ENV) cargo build --profile ci $(TEST_CRATES) --lib --test it

test-env: $(PY)
	@mkdir -p target
	@$(PY) scripts/requirements.py test > target/requirements-test.txt
	@$(PIP) 'maturin>=1.5,<2' -r target/requirements-test.txt

# The two halves of `make test`'s last step, on the build install-test made.
test-rust:
	MAKEFLAGS= cargo test --profile ci-unit -p corral --lib
	MAKEFLAGS= $(PYO3_ENV) cargo test --profile ci $(TEST_CRATES) --test it
	MAKEFLAGS= $(PYO3_ENV) cargo test --profile ci $(TEST_CRATES) --doc

test-python:
	$(PY) -m pytest -q tests -n 2 --dist loadfile

# The tests `make test` leaves out (marked slow): the side by side with Linux on the
# dumbbell and the fat-tree emulation.
test-slow: install-test
	$(PY) -m pytest -q tests -m slow

# The papers' quick reproductions, Outcast's five-seed studies, R2C2's GA at packet level and
# the tests that pin their verdicts (marked papers, tests/conftest.py), on the build `make
# test` made: about 2.5 minutes more on 2 cores. .ci/run runs it after `make test`.
test-papers: install-test
	$(PY) -m pytest -q tests -n 2 --dist loadfile -m papers

# The engine binary the benchmark times beside htsim, built like `make release`.
bench: release
	CORRAL_PGO=1 $(PY) scripts/pgo.py run -- cargo build --release -p corral --example run_scenario
	$(PY) bench/run.py --engine $(ENGINE)

# Formatting (rustfmt.toml; every file is a plain module, so cargo fmt sees them all), clippy
# and rustdoc with warnings as errors, ruff over the Python code (pyproject.toml's
# [tool.ruff]): its lint rules and its formatter, and mypy's stubtest, which checks the types
# of the native module (python/corral/_core.pyi) against the built one. ruff and mypy are
# pinned, so that what they check does not change under a new release (mypy 1.19 is the last
# that installs on Python 3.9); once installed they run offline. stubtest reads the corral
# already in .venv (in CI, the one `make test` built) and builds one only if there is none.
# .ci/run runs this after the tests.
lint: $(PY)
	cargo fmt --all -- --check
	cargo clippy --profile ci --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --profile ci --workspace --no-deps
	@$(PIP) 'ruff==0.17.6' 'mypy==1.19.1'
	$(VENV)/bin/ruff check python tests bench scripts
	$(VENV)/bin/ruff format --check python tests bench scripts
	@$(PY) -c 'import corral._core' 2>/dev/null || $(MAKE) --no-print-directory install
	$(PY) -m mypy.stubtest corral._core
