#!/usr/bin/env python3
"""Print corral's dependencies, and those of the extras named, one per line, from
pyproject.toml, for `pip install -r`: `make test` installs them while cargo builds, before
the wheel that would bring them exists.

    python scripts/requirements.py [EXTRA ...]

Reads the file with tomllib (Python 3.11+) or, before that, with the tomli pip ships.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.9 and 3.10
    from pip._vendor import tomli as tomllib


def requirements(extras: list[str]) -> list[str]:
    project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["project"]
    optional = project.get("optional-dependencies", {})
    unknown = [e for e in extras if e not in optional]
    if unknown:
        raise SystemExit(f"error: no extra {', '.join(unknown)} in pyproject.toml (it has {', '.join(sorted(optional))})")
    return [*project.get("dependencies", []), *(d for e in extras for d in optional[e])]


if __name__ == "__main__":
    print("\n".join(requirements(sys.argv[1:])))
