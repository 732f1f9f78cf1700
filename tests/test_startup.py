"""`corral run` starts without the heavy libraries: the results module, polars and rich load
beside the simulation (the event loop releases the GIL), numpy only for the commands that
need it, and the progress bar only with a terminal; it ends without the interpreter's
teardown. Not timed tests: they check which modules are pulled in, and that output and exit
codes survive the fast exit."""

from __future__ import annotations

import subprocess
import sys


def test_the_cli_imports_neither_polars_nor_numpy_at_start() -> None:
    heavy = (
        "('polars', 'numpy', 'matplotlib', 'pydantic', 'rich.console', 'rich.progress', 'corral.results', "
        "'dataclasses', 'tempfile', 'typer')"
    )
    code = f"import sys, corral.cli; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]", out


def test_the_tables_still_load_their_schemas_on_demand() -> None:
    from corral.tables import SCHEMAS, TABLES

    assert tuple(SCHEMAS) == TABLES and "flows" in TABLES


def test_the_fast_exit_keeps_piped_output_and_exit_codes(tmp_path) -> None:
    from importlib.resources import files

    scenario = files("corral") / "scenarios" / "outcast" / "case1_12.toml"
    run = [sys.executable, "-m", "corral", "run", str(scenario), "-o", str(tmp_path / "run"), "--no-plots", "-s", "duration=1ms"]
    ok = subprocess.run(run, capture_output=True, text=True)
    assert ok.returncode == 0 and "written to" in ok.stdout, ok.stderr
    assert (tmp_path / "run" / "summary.json").is_file()
    bad = subprocess.run([*run[:4], str(tmp_path / "missing.toml"), *run[5:]], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("error:"), bad.stderr


def test_the_package_loads_run_and_results_on_first_use() -> None:
    code = (
        "import sys, corral; lazy = 'corral.results' not in sys.modules; from corral import Results; "
        "print(lazy, corral.run.__module__, Results.__module__, {'run', 'Results'} <= set(dir(corral)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "True corral.api corral.results True", out
