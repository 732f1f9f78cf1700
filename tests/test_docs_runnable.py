"""The commands of the docs' tutorials run as written, so the tutorials cannot rot.

A page marks a fenced block `<!-- runnable -->` (run it: ```bash with bash -euo pipefail,
```python with this interpreter) or `<!-- file: NAME -->` (write its text to NAME first),
on the line before the fence. The Getting started pages run in order in one folder, as a
reader goes through them; every other page in a folder of its own. The folder holds a link
`scenarios` to the repository's, as the root of a clone does, and `.venv/bin` (this
interpreter's folder) comes first on PATH, so `corral` and `python` are the project's.
Each block is kept to a few seconds of work (tiny durations); a page whose blocks take
longer belongs under @pytest.mark.slow.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
GETTING_STARTED = ("first-scenario.md", "outputs.md", "first-sweep.md")  # the order a reader takes

_BLOCK = re.compile(r"^<!-- (runnable|file: ([^ ]+)) -->\n```(\w+)[^\n]*\n(.*?)^```$", re.M | re.S)


def blocks(page: Path) -> list[tuple[str, str, str]]:
    """(what, language, text) of a page's marked blocks, in order: what is "run" or the
    file name to write."""
    return [
        ("run" if m.group(1) == "runnable" else m.group(2), m.group(3), m.group(4))
        for m in _BLOCK.finditer(page.read_text(encoding="utf-8"))
    ]


def run_blocks(pages: list[Path], folder: Path) -> int:
    """Runs the pages' blocks in `folder`; the number of blocks run."""
    (folder / "scenarios").symlink_to(ROOT / "scenarios")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}", "MPLBACKEND": "Agg"}
    ran = 0
    for page in pages:
        for what, lang, text in blocks(page):
            if what != "run":
                (folder / what).write_text(text, encoding="utf-8")
                continue
            cmd = {"bash": ["bash", "-euo", "pipefail", "-c", text], "python": [sys.executable, "-c", text]}.get(lang)
            assert cmd, f"{page.relative_to(ROOT)}: a runnable ```{lang} block (bash or python only)"
            done = subprocess.run(cmd, cwd=folder, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, (
                f"{page.relative_to(ROOT)}: block failed ({done.returncode}):\n{text}\n"
                f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
            )
            ran += 1
    return ran


def runnable_pages() -> list[Path]:
    """Every page outside Getting started with a runnable block."""
    return sorted(
        p for p in DOCS.rglob("*.md") if p.parent.name != "getting-started" and any(w == "run" for w, _, _ in blocks(p))
    )


def test_getting_started_runs_in_order(tmp_path: Path) -> None:
    pages = [DOCS / "getting-started" / name for name in GETTING_STARTED]
    assert run_blocks(pages, tmp_path) >= 6
    assert (tmp_path / "out" / "first" / "flows.parquet").is_file() and (tmp_path / "report" / "report.md").is_file()


def test_every_getting_started_page_is_run() -> None:
    marked = {p.name for p in (DOCS / "getting-started").glob("*.md") if blocks(p)}
    assert marked <= set(GETTING_STARTED), marked - set(GETTING_STARTED)


@pytest.mark.parametrize("page", runnable_pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_page_runs(page: Path, tmp_path: Path) -> None:
    assert run_blocks([page], tmp_path) >= 1


def test_the_marker_convention_is_what_the_pages_use() -> None:
    """A marker the pattern misses (a typo, a blank line before the fence) would leave a
    block silently unrun."""
    for page in DOCS.rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        assert text.count("<!-- runnable -->") + text.count("<!-- file: ") == len(blocks(page)), page
