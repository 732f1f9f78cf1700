"""The claims tables of the docs and the README, generated from the committed claims of full
reproductions.

    python scripts/claims_tables.py run r2c2 [hcc ...]   # full run(s), then docs/claims/<paper>.json and the pages
    python scripts/claims_tables.py render               # the tables from docs/claims/*.json
    python scripts/claims_tables.py render --check       # exit 1 if a page differs from that rendering
    python scripts/claims_tables.py figures r2c2 results/claims/r2c2   # a full run's figures into its page

`run` runs `corral reproduce <paper> -o results/claims/<paper>` (the paper's full run, five
seeds unless `--seeds`), times it, and keeps its claims.json as docs/claims/<paper>.json
with what ran it recorded inside (`run`: the command, the commit and whether the code under
python/ and crates/ had uncommitted changes, the wall time, the machine and its load average
before and after). It runs the `corral` that `python -m corral.cli` imports (the installed
package, or PYTHONPATH's). `render` replaces the text between
`<!-- claims:<paper>:begin -->` and `<!-- claims:<paper>:end -->` in
docs/reproductions/<paper>.md with the tables of docs/claims/<paper>.json
(`corral.experiments.claims.markdown`), the text between `<!-- claims:<paper>-notes:begin -->`
and `<!-- claims:<paper>-notes:end -->` with the paper's notes on its verdicts
(`corral.experiments.<paper>_notes.markdown`), and the text between `<!-- claims:papers:begin -->`
and `<!-- claims:papers:end -->` in README.md with one line per paper (its title and its
headline count), so no page holds a hand copy. `run` also puts the full run's figures into the
paper's page (`figures`: palette PNGs in docs/reproductions/img/<paper>/, listed between
`<!-- figures:<paper>:begin -->` and `<!-- figures:<paper>:end -->` with the run that made
them); `figures` does it for a full run's folder whose claims.json is the committed one. Run from the repository's root with the
project's Python (.venv/bin/python).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "claims"
README = ROOT / "README.md"
PAGES = ROOT / "docs" / "reproductions"
PAPERS = ("outcast", "r2c2", "hcc", "rackcc", "scc")
# Each paper as the README's list names it: its title, its authors and venue where the
# paper's text gives them.
CITATIONS = {
    "outcast": '"The TCP Outcast Problem: Exposing Unfairness in Data Center Networks" (Prakash et al., NSDI 2012)',
    "rackcc": '"RackCC: Rack-level Congestion Control" (Zhuo et al., HotNets 2016)',
    "r2c2": '"R2C2: A Network Stack for Rack-scale Computers" (Costa et al., SIGCOMM 2015)',
    "hcc": '"Hierarchical Congestion Control (HCC): Fairness and Fast Convergence for Data Centers" (Ketabi and Ganjali)',
    "scc": '"Multi-Tenant Multi-Objective Bandwidth Allocation in Datacenters Using Stacked Congestion Control" (Tian et al.)',
}


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def run(paper: str, seeds: int, out_root: Path) -> Path:
    """One full reproduction; its claims.json, with how it ran, into docs/claims."""
    from corral.experiments import claims

    out = out_root / paper
    cmd = [sys.executable, "-m", "corral.cli", "reproduce", paper, "--seeds", str(seeds), "-o", str(out)]
    before = claims.machine()
    # What ran: the code as it was when the run started (a commit made while it runs is not it).
    commit = _git("rev-parse", "HEAD")
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no", "--", "python", "crates"))
    start = time.monotonic()
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - start
    doc = json.loads((out / "claims.json").read_text())
    doc["run"] = {
        "command": f"corral reproduce {paper} --seeds {seeds} -o DIR",
        "commit": commit,
        "uncommitted_changes": dirty,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "wall_s": round(wall, 1),
        "machine": {**before, "load_average": None},
        "load_average_before": before["load_average"],
        "load_average_after": claims.machine()["load_average"],
    }
    DOCS.mkdir(parents=True, exist_ok=True)
    path = DOCS / f"{paper}.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{paper}: {wall:.0f} s, {claims.headline(doc['claims'])} -> {path.relative_to(ROOT)}")
    figures(paper, out, full_run_label(paper, doc["run"]))
    return path


# What a paper's figures need said beside which run made them.
FIGURE_NOTES = {
    "rackcc": "Fig. 3's lines are medians with the range over seeds; one path, the paper rows' setup, solid with "
    "every variant, the fat-tree's sensitivity rows dashed (ECMP) and dotted (spraying) with RackCC only",
}


def full_run_label(paper: str, r: dict) -> str:
    """Which run made a page's figures: the committed full run, as its run record says."""
    note = f"; {FIGURE_NOTES[paper]}" if paper in FIGURE_NOTES else ""
    return f"The figures of the committed full run (`{r['command']}` at commit {r['commit'][:10]}, {r['date'][:10]}{note}):"


def figures(paper: str, folder: Path, label: str) -> None:
    """The PNG figures of a reproduction's output folder (not those of single runs in its
    subfolders) into docs/reproductions/img/<paper>/, as palette PNGs to keep the repository
    small, and listed under `label` between the page's figures markers."""
    from PIL import Image

    target = PAGES / "img" / paper
    target.mkdir(parents=True, exist_ok=True)
    for old in target.glob("*.png"):
        old.unlink()
    pngs = sorted(folder.glob("*.png"))
    for fig in pngs:
        Image.open(fig).convert("RGB").quantize(colors=96).save(target / fig.name, optimize=True)
    body = "\n\n".join([label, *(f"![{fig.stem}](img/{paper}/{fig.name})" for fig in pngs)])
    page = PAGES / f"{paper}.md"
    begin, end = f"<!-- figures:{paper}:begin -->", f"<!-- figures:{paper}:end -->"
    text = page.read_text(encoding="utf-8")
    if begin not in text:
        text = text.rstrip() + f"\n\n## Figures\n\n{begin}\n{end}\n"
    text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _m: f"{begin}\n{body}\n{end}", text, flags=re.S)
    page.write_text(text, encoding="utf-8")


def block(paper: str) -> str:
    """A reproduction page's text for one paper: how its committed run ran, then its tables."""
    from corral.experiments import claims

    doc = json.loads((DOCS / f"{paper}.json").read_text())
    r = doc["run"]
    m = r["machine"]
    load = lambda xs: "/".join(f"{x:.1f}" for x in xs) if xs else "?"  # noqa: E731
    ran = (
        f"Generated from `docs/claims/{paper}.json` (`.venv/bin/python scripts/claims_tables.py run {paper}` redoes it): "
        f"`{r['command']}` at commit {r['commit'][:10]}{' with uncommitted changes' if r['uncommitted_changes'] else ''}, "
        f"{r['date']}, {r['wall_s'] / 60:.1f} min on {m['cores']} cores of an {m['cpu']} shared with other jobs "
        f"(load average {load(r['load_average_before'])} before, {load(r['load_average_after'])} after; 1/5/15 min)."
    )
    return "\n".join([ran, "", *claims.markdown(doc, title="Claims", level=2, conditions="unmet")]).rstrip() + "\n"


def papers_list() -> str:
    """The README's list: one line per paper, its headline from its committed claims."""
    from corral.experiments import claims

    lines = []
    for paper in ("outcast", "rackcc", "r2c2", "hcc", "scc"):
        path = DOCS / f"{paper}.json"
        count = claims.headline(json.loads(path.read_text())["claims"]) if path.is_file() else "not run yet"
        lines.append(f"- **{paper}**: {CITATIONS[paper]}; {count} ([reproduction](docs/reproductions/{paper}.md)).")
    return "\n".join(lines) + "\n"


def _replace(text: str, name: str, body: str) -> str:
    begin, end = f"<!-- claims:{name}:begin -->", f"<!-- claims:{name}:end -->"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    return pattern.sub(lambda _m: f"{begin}\n{body}{end}", text)


def rendered(path: Path, text: str) -> str:
    """A page's text with its marked blocks replaced by their rendering: a reproduction
    page's claims tables, the README's list of papers."""
    if path == README:
        return _replace(text, "papers", papers_list())
    for paper in PAPERS:
        if f"<!-- claims:{paper}:begin -->" in text and (DOCS / f"{paper}.json").is_file():
            text = _replace(text, paper, block(paper))
        if f"<!-- claims:{paper}-notes:begin -->" in text and (DOCS / f"{paper}.json").is_file():
            text = _replace(text, f"{paper}-notes", notes(paper))
    return text


def notes(paper: str) -> str:
    """A reproduction page's notes on its verdicts, generated from its committed claims by
    the paper's `corral.experiments.<paper>_notes.markdown` (every number a row's)."""
    import importlib

    doc = json.loads((DOCS / f"{paper}.json").read_text())
    return "\n".join(importlib.import_module(f"corral.experiments.{paper}_notes").markdown(doc)).rstrip() + "\n"


def targets() -> list[Path]:
    """Every page that holds generated claims: the README and each reproduction page."""
    return [README, *(PAGES / f"{paper}.md" for paper in PAPERS)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="full reproduction(s), then their docs/claims/<paper>.json and the pages")
    r.add_argument("papers", nargs="+", choices=PAPERS)
    r.add_argument("--seeds", type=int, default=5)
    r.add_argument("--out-root", type=Path, default=ROOT / "results" / "claims")
    c = sub.add_parser("render", help="the pages' tables from docs/claims")
    c.add_argument("--check", action="store_true", help="exit 1 if a page differs from the rendering")
    f = sub.add_parser("figures", help="a full run's figures into its paper's page (its claims.json must be the committed one)")
    f.add_argument("paper", choices=PAPERS)
    f.add_argument("folder", type=Path)
    args = ap.parse_args()
    if args.cmd == "figures":
        committed = json.loads((DOCS / f"{args.paper}.json").read_text())
        ran = json.loads((args.folder / "claims.json").read_text())
        if ran["claims"] != committed["claims"]:
            print(f"{args.folder}/claims.json is not the committed docs/claims/{args.paper}.json's run", file=sys.stderr)
            return 1
        figures(args.paper, args.folder, full_run_label(args.paper, committed["run"]))
        return 0
    if args.cmd == "run":
        for paper in args.papers:
            run(paper, args.seeds, args.out_root)
    stale = []
    for path in targets():
        text = path.read_text()
        new = rendered(path, text)
        if new == text:
            continue
        stale.append(path.relative_to(ROOT))
        if not getattr(args, "check", False):
            path.write_text(new)
            print(f"{path.relative_to(ROOT)} updated")
    if getattr(args, "check", False) and stale:
        print(
            f"claims tables differ from docs/claims in {', '.join(map(str, stale))} (python scripts/claims_tables.py render)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main())
