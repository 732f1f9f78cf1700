#!/usr/bin/env python3
"""Create the project's virtual environment (`.venv` by default) with a working pip.

    python3 scripts/make_venv.py [DIR]

Needs Python 3.9 or newer. `python3 -m venv` needs `ensurepip`, which some distributions
split off (Debian and Ubuntu without the python3-venv package); then the environment is
made without pip and pip is fetched from PyPI as a wheel and installed from itself, so no
system package and no step by hand is needed. Nothing outside DIR is changed, so the
distribution's own Python (PEP 668, "externally managed") is never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import venv
from pathlib import Path

INDEX = os.environ.get("CORRAL_PYPI_JSON", "https://pypi.org/pypi/pip/json")


def fail(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def has_pip(python: Path) -> bool:
    return subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True).returncode == 0


def bootstrap_pip(python: Path) -> None:
    """Download the newest pip wheel from PyPI and let it install itself."""
    print("ensurepip is missing: fetching pip from PyPI", flush=True)
    with urllib.request.urlopen(INDEX, timeout=60) as r:
        files = json.load(r)["urls"]
    wheel = next((f for f in files if f["filename"].endswith(".whl")), None)
    if wheel is None:
        fail("PyPI lists no pip wheel")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / wheel["filename"]
        with urllib.request.urlopen(wheel["url"], timeout=120) as r, open(path, "wb") as f:
            shutil.copyfileobj(r, f)
        # A pip wheel is importable as it is: run pip from the wheel to install the wheel.
        subprocess.run([str(python), str(path / "pip"), "install", "--quiet", str(path)], check=True)


def main() -> None:
    if sys.version_info < (3, 9):
        fail(f"corral needs Python 3.9 or newer, this is {sys.version.split()[0]} ({sys.executable})")
    target = Path(sys.argv[1] if len(sys.argv) > 1 else ".venv")
    python = target / "bin" / "python"
    if python.exists() and has_pip(python):
        return
    print(f"creating the virtual environment {target} with {sys.executable}", flush=True)
    try:
        venv.EnvBuilder(with_pip=True, clear=True).create(target)
    except (subprocess.CalledProcessError, OSError):
        venv.EnvBuilder(with_pip=False, clear=True).create(target)
    if not has_pip(python):
        bootstrap_pip(python)
    if not has_pip(python):
        fail(f"could not install pip into {target}")


if __name__ == "__main__":
    main()
