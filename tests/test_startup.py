"""`corral run` starts without the heavy libraries: polars loads beside the simulation (the
event loop releases the GIL), numpy only for the commands that need it. Not a timed test:
it checks which modules an import pulls in."""

from __future__ import annotations

import subprocess
import sys


def test_the_cli_imports_neither_polars_nor_numpy_at_start() -> None:
    code = "import sys, corral.cli; print(sorted(m for m in ('polars', 'numpy', 'matplotlib') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]", out


def test_the_tables_still_load_their_schemas_on_demand() -> None:
    from corral.tables import SCHEMAS, TABLES

    assert tuple(SCHEMAS) == TABLES and "flows" in TABLES
