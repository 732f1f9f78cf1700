# The two commands a new user needs (see README.md):
#   make outcast   install corral and reproduce the TCP Outcast results into results/outcast
#   make test      install corral with test extras and run every test (Rust and Python)

PYTHON ?= python3

.PHONY: install outcast test bench

install:
	$(PYTHON) -m pip install --quiet '.[test]'

outcast: install
	corral reproduce outcast -o results/outcast

test: install
	cargo test --release -p corral
	$(PYTHON) -m pytest -q tests

bench: install
	$(PYTHON) bench/run.py
