"""The commands of the docs' tutorials run as written, from any folder, and print what the
pages show, so the tutorials cannot rot.

A page marks a fenced block, on the line before the fence:

- `<!-- runnable -->`: run it (```bash with bash -euo pipefail, ```python with this
  interpreter);
- `<!-- file: NAME -->`: write its text to NAME first;
- `<!-- output -->`: what the runnable block before it prints. The printed text must match
  it line by line once both are normalized: table borders and runs of spaces do not count,
  and neither do wall times and event rates (`wall time`, `(1.96 M/s)`), which are this
  machine's; a line `...` stands for any number of lines.

The blocks run in an empty temporary folder outside the clone, as a reader who installed
corral would run them anywhere: they name the package's scenarios as `corral:<name>`, never
by a path into a clone. The Getting started pages run in order in one folder, as a reader
goes through them; every other page in a folder of its own. `.venv/bin` (this interpreter's
folder) comes first on PATH, so `corral` and `python` are the project's. Each block is kept
to a few seconds of work (tiny durations); a page whose blocks take longer belongs under
@pytest.mark.slow.
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

_BLOCK = re.compile(r"^<!-- (runnable|output|file: ([^ ]+)) -->\n```(\w*)[^\n]*\n(.*?)^```$", re.M | re.S)


def blocks(page: Path) -> list[tuple[str, str, str]]:
    """(what, language, text) of a page's marked blocks, in order: what is "run", "output"
    or the file name to write."""
    return [
        (m.group(1) if m.group(1) in ("runnable", "output") else m.group(2), m.group(3), m.group(4))
        for m in _BLOCK.finditer(page.read_text(encoding="utf-8"))
    ]


# Box-drawing characters of rich's and polars' tables.
_BORDERS = re.compile(r"[│┃┌┐└┘├┤┬┴┼─━═╞╡╪┆╭╮╰╯]")
# This machine's timing: event rates, and the lines that give a wall time.
_RATE = re.compile(r"\(\s*[\d.,]+\s*[KMG]?/s\)")
_WALL = re.compile(r"wall time|wall_time|elapsed", re.I)


def normalize(text: str) -> list[str]:
    """The lines of printed text that must match: borders and spacing dropped, timings masked."""
    out = []
    for line in text.splitlines():
        line = " ".join(_BORDERS.sub(" ", line).split())
        if not line:
            continue
        if _WALL.search(line):
            line = _WALL.search(line).group(0) + " <this machine's>"
        out.append(_RATE.sub("(<rate>)", line))
    return out


def matches(expected: str, printed: str) -> str | None:
    """None if `printed` shows `expected` (`...` lines match any lines), else what differs."""
    want, got = normalize(expected), normalize(printed)
    chunks: list[list[str]] = [[]]
    for line in want:
        if line == "...":
            chunks.append([])
        else:
            chunks[-1].append(line)
    pos = 0
    for i, chunk in enumerate(chunks):
        if not chunk:
            continue
        anchored = i == 0  # the first chunk starts the output unless a `...` comes before it
        found = next(
            (at for at in range(pos, len(got) - len(chunk) + 1) if got[at : at + len(chunk)] == chunk),
            None,
        )
        if found is None or (anchored and found != 0):
            return f"expected lines\n  {chunk}\nnot found in order in the printed lines\n  {got[pos:]}"
        pos = found + len(chunk)
    if chunks[-1] and pos != len(got):
        return f"printed more than the page shows after {chunks[-1][-1]!r}: {got[pos:]}"
    return None


def run_blocks(pages: list[Path], folder: Path) -> tuple[int, int]:
    """Runs the pages' blocks in `folder`: (blocks run, outputs compared)."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}", "MPLBACKEND": "Agg"}
    env.pop("PYTHONPATH", None)
    ran = compared = 0
    for page in pages:
        last: tuple[str, subprocess.CompletedProcess] | None = None
        for what, lang, text in blocks(page):
            name = page.relative_to(ROOT)
            if what == "output":
                assert last is not None, f"{name}: an output block with no runnable block before it"
                problem = matches(text, last[1].stdout)
                assert problem is None, f"{name}: the block\n{last[0]}\nprints what the page does not show:\n{problem}"
                compared += 1
                last = None
                continue
            if what != "runnable":
                (folder / what).write_text(text, encoding="utf-8")
                continue
            cmd = {"bash": ["bash", "-euo", "pipefail", "-c", text], "python": [sys.executable, "-c", text]}.get(lang)
            assert cmd, f"{name}: a runnable ```{lang} block (bash or python only)"
            done = subprocess.run(cmd, cwd=folder, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, (
                f"{name}: block failed ({done.returncode}):\n{text}\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
            )
            ran += 1
            last = (text, done)
    return ran, compared


def runnable_pages() -> list[Path]:
    """Every page outside Getting started with a runnable block."""
    return sorted(
        p for p in DOCS.rglob("*.md") if p.parent.name != "getting-started" and any(w == "runnable" for w, _, _ in blocks(p))
    )


def empty_folder(tmp_path: Path) -> Path:
    """An empty folder outside the clone (pytest's temporary folders are)."""
    assert ROOT not in tmp_path.resolve().parents
    assert not any(tmp_path.iterdir())
    return tmp_path


def test_getting_started_runs_in_order(tmp_path: Path) -> None:
    folder = empty_folder(tmp_path)
    pages = [DOCS / "getting-started" / name for name in GETTING_STARTED]
    ran, compared = run_blocks(pages, folder)
    assert ran >= 6 and compared >= 4, (ran, compared)
    assert (folder / "out" / "first" / "flows.parquet").is_file() and (folder / "report" / "report.md").is_file()


def test_every_getting_started_page_is_run() -> None:
    marked = {p.name for p in (DOCS / "getting-started").glob("*.md") if blocks(p)}
    assert marked <= set(GETTING_STARTED), marked - set(GETTING_STARTED)


@pytest.mark.parametrize("page", runnable_pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_page_runs(page: Path, tmp_path: Path) -> None:
    assert run_blocks([page], empty_folder(tmp_path))[0] >= 1


def test_the_marker_convention_is_what_the_pages_use() -> None:
    """A marker the pattern misses (a typo, a blank line before the fence) would leave a
    block silently unrun or unchecked."""
    for page in DOCS.rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        marks = text.count("<!-- runnable -->") + text.count("<!-- output -->") + text.count("<!-- file: ")
        assert marks == len(blocks(page)), page


def test_no_runnable_block_needs_a_clone() -> None:
    """The pages name the package's scenarios as `corral:<name>`: a path into a clone
    (`scenarios/...`) works only from its root."""
    for page in DOCS.rglob("*.md"):
        for what, _, text in blocks(page):
            if what != "output":
                assert not re.search(r"(?<![\w:/.-])scenarios/", text), f"{page.relative_to(ROOT)}: {text[:200]}"


def test_every_python_block_shows_its_output() -> None:
    """A runnable Python block that prints shows what it prints."""
    for page in [*runnable_pages(), *(DOCS / "getting-started" / n for n in GETTING_STARTED)]:
        marked = blocks(page)
        for i, (what, lang, text) in enumerate(marked):
            if what == "runnable" and lang == "python" and "print(" in text:
                assert i + 1 < len(marked) and marked[i + 1][0] == "output", f"{page.relative_to(ROOT)}: {text[:120]}"


def test_the_comparison_masks_only_timings() -> None:
    shown = "│ wall time │ 0.016 s │\n│ events │ 30,527 (1.96 M/s) │\n"
    assert matches(shown, "│ wall time │ 9.9 s │\n│ events │ 30,527 (3.1 M/s) │") is None
    assert matches(shown, "│ wall time │ 9.9 s │\n│ events │ 31,528 (3.1 M/s) │") is not None
    assert matches("a\n...\nc\n", "a\nb\nb\nc\n") is None
    assert matches("a\nc\n", "a\nb\nc\n") is not None
    assert matches("...\nc\n", "a\nb\nc\n") is None
