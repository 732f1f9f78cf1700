# The two commands a new user needs (see README.md):
#   make outcast   install corral and reproduce the TCP Outcast results into results/outcast
#   make test      install corral with test extras and run every test (Rust and Python)
#   make fct       install corral and run the FCT comparison (DCTCP vs NewReno vs CUBIC)
#                  into results/fct (sweep) and results/fct-report (report)

PYTHON ?= python3

.PHONY: install outcast fct test bench

install:
	$(PYTHON) -m pip install --quiet '.[test]'

outcast: install
	corral reproduce outcast -o results/outcast

fct: install
	corral sweep scenarios/fct/sweep.toml -o results/fct
	corral compare results/fct -o results/fct-report --by transport.cc --by traffic.0.load

test: install
	cargo test --release -p corral
	$(PYTHON) -m pytest -q tests

bench: install
	$(PYTHON) bench/run.py
