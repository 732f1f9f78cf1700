"""`make demo`: the quick reproduction of all five papers, and one page that shows them.

    python scripts/demo.py results            # reproduce every paper --quick, then results/index.html
    python scripts/demo.py results --page     # only (re)write results/index.html from what is there

The wall time of each paper's run is kept in results/demo.json for `--page`.

The results folder is a corral output folder of kind `demo` (`corral.outdir`): the demo
writes only `index.html` and `demo.json` there, by name, and each paper's folder is its
`corral reproduce` output with a marker of its own. A file of the user's where the demo
would write, or a paper folder that is not corral's, stops the demo before anything runs,
with a message that says how to write it elsewhere (`make demo OUT=another-folder`).

    python scripts/demo.py results --page --docs   # also put each paper's figures into its docs page

`--docs` copies the figures of results/<paper>/ (palette PNGs, to keep the repository small)
into docs/reproductions/img/<paper>/ and lists them between `<!-- figures:<paper>:begin -->`
and `<!-- figures:<paper>:end -->` of docs/reproductions/<paper>.md, saying which run made
them (the quick one, its commit and date).

For each paper it runs `corral reproduce <paper> --quick -o results/<paper>` (the `corral`
that `python -m corral.cli` imports) and times it; then it writes `results/index.html`: for
each paper its title, the quick run's claims table from its `claims.json` (each claim, the
paper's number, the band, the measured value, the verdict) and its figures (the PNG files of
its folder, not those of single runs in its subfolders), with the committed full run's value
and verdict of each claim beside the quick run's (docs/claims/<paper>.json) and a note on the
quick-run values that differ for a known reason (QUICK_NOTES). A summary table heads the page. A quick run is not the paper's conditions (fewer seeds, smaller or shorter
runs); the page links each paper's docs page, whose table is that of a committed full run.
A paper whose reproduction fails is shown with its error, and the script exits 1 at the end.
"""

from __future__ import annotations

import argparse
import html
import json
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from claims_tables import CITATIONS  # noqa: E402  (the papers' titles, one place)

PAPERS = ("outcast", "rackcc", "r2c2", "hcc", "scc")
VERDICT_COLOURS = {
    "met": "#d7f0d2",
    "direction": "#fff2c4",
    "missed": "#f8d4d0",
    "off_conditions": "#e4e4e4",
    "reported": "#dde8f6",
}


def reproduce(paper: str, out: Path) -> tuple[float, str | None]:
    """The quick run of one paper into `out`: (wall seconds, error text or None)."""
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "corral.cli", "reproduce", paper, "--quick", "-o", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wall = time.monotonic() - start
    return wall, None if done.returncode == 0 else (done.stderr.strip()[-2000:] or f"exit status {done.returncode}")


# What a quick run cannot show, per paper: why some of its rows differ from the full run's.
QUICK_NOTES = {
    "outcast": (
        "Outcast's ratios are bistable from seed to seed: in a run one side of the bottleneck can lock the "
        "other out (the paper's own runs are single runs for that reason). The quick run has one seed (seed 1) "
        "and 0.2 s runs, so a row can land on the other side of that lock: with 10 flows per host, seed 1 of "
        "the full run measures 158x (the few flows starve the many), seeds 2-5 measure 0.01-0.13x, and the "
        "full run's median over five seeds is 0.12x against the paper's 0.33x. A quick value of hundreds or "
        "thousands is that lock-out, not a bug; the full run's column is the verdict."
    ),
    "hcc": (
        "HCC's quick run has one seed and web-search runs of the paper's T = 0.1 s. With web-search's "
        "heavy-tailed sizes a run that short does not offer the loads the paper states (its largest flows outlast "
        "it), and each row checks the load its runs realized against the paper's: so the quick rows are 'off "
        "conditions' by design. The full run's 3 s runs reach the loads, and its column gives the verdicts."
    ),
    "scc": (
        "SCC's quick run has one seed, 8 hosts per ToR and runs of 150 ms (data-mining 1 s). That is too short "
        "for the heavy-tailed flow sizes to offer the target loads, which each row checks (the realized load "
        "within 10 % of the target), so most quick rows are 'off conditions'; and a latency or completion-time "
        "gain over so few finished flows can even change sign (the rows marked as outliers). The full run's "
        "column gives the verdicts."
    ),
    "r2c2": (
        "R2C2's quick run simulates a 4x4x4 rack (64 nodes) with flows arriving 8 times less often (the same "
        "load per node) instead of the paper's 8x8x8 rack of 512 nodes. Each row records the rack it ran on as "
        "a condition, so on the small rack the rows are 'off conditions' by design: they show the shape, and "
        "the full run (the right-hand column, on the paper's rack) gives the verdicts."
    ),
}


def _row_key(r: dict) -> tuple[str, str, str]:
    return (r["kind"], r["figure"], r["claim"])


def full_run(paper: str) -> dict | None:
    """The committed full run of `paper` (docs/claims/<paper>.json), if there is one."""
    path = ROOT / "docs" / "claims" / f"{paper}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def _far_apart(quick: dict, full: dict) -> bool:
    """A quick value more than 10 times from the full run's median (or of another sign)."""
    a, b = quick.get("measured"), full.get("measured")
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or a == b:
        return False
    if a * b <= 0:
        return True
    return max(abs(a), abs(b)) / min(abs(a), abs(b)) > 10


def claims_table(doc: dict, full: dict | None = None) -> str:
    """The claims of one claims.json as an HTML table, paper rows first; with `full`, the
    committed full run's measured value and verdict of each row beside the quick run's."""
    from corral.experiments import claims

    heads = ["figure", "claim", "paper", "band", "quick run", "seeds in band", "verdict"]
    if full is not None:
        heads += ["full run", "full verdict"]
    head = "".join(f"<th>{h}</th>" for h in heads)
    full_rows = {_row_key(r): r for r in (full or {}).get("claims", [])}
    rows = []
    order = {"paper": 0, "acceptance": 1, "structural": 2}

    def verdict_cell(r: dict | None) -> str:
        if r is None:
            return "<td>–</td>"
        verdict = r["verdict"].replace("_", " ") + ("" if r["kind"] == "paper" else f" ({r['kind']})")
        return f'<td style="background:{VERDICT_COLOURS.get(r["verdict"], "#fff")}">{html.escape(verdict)}</td>'

    for r in sorted(doc["claims"], key=lambda r: order.get(r["kind"], 3)):
        agree = f"{r['seeds_agree']} of {r['seeds']}" if r["band"] is not None else "–"
        cells = [r["figure"], r["claim"], claims.paper_text(r), claims.band_text(r)]
        tds = "".join(f"<td>{html.escape(str(c))}</td>" for c in cells)
        f = full_rows.get(_row_key(r))
        outlier = f is not None and _far_apart(r, f)
        measured = html.escape(claims.measured_text(r)) + (
            ' <span class="outlier">outlier: see the note</span>' if outlier else ""
        )
        tds += f"<td>{measured}</td><td>{agree}</td>{verdict_cell(r)}"
        if full is not None:
            tds += f"<td>{html.escape(claims.measured_text(f)) if f else '–'}</td>{verdict_cell(f)}"
        rows.append(f'<tr class="{r["kind"]}">{tds}</tr>')
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def paper_section(root: Path, paper: str, wall: float | None, error: str | None) -> str:
    from corral.experiments import claims

    folder = root / paper
    parts = [f'<section id="{paper}"><h2>{html.escape(CITATIONS[paper])}</h2>']
    meta = [f"<code>corral reproduce {paper} --quick -o {html.escape(str(folder))}</code>"]
    if wall is not None:
        meta.append(f"{wall:.0f} s")
    meta.append(f'<a href="{paper}/report.md">report.md</a>')
    parts.append(f"<p class=meta>{' · '.join(meta)}</p>")
    if error:
        parts.append(f"<pre class=error>{html.escape(error)}</pre>")
    path = folder / "claims.json"
    if path.is_file():
        doc = json.loads(path.read_text())
        full = full_run(paper)
        parts.append(
            f"<p class=headline>Quick run: {html.escape(claims.headline(doc['claims']))}. "
            f"{html.escape((doc.get('quick_means') or '')[:1].upper() + (doc.get('quick_means') or '')[1:])}.</p>"
        )
        if full is not None:
            run = full.get("run", {})
            parts.append(
                f"<p class=headline>Full run: {html.escape(claims.headline(full['claims']))} "
                f"(<code>{html.escape(run.get('command', ''))}</code>, commit {html.escape(str(run.get('commit', ''))[:10])}, "
                f"{html.escape(run.get('date', ''))}; its page: <code>docs/reproductions/{paper}.md</code>).</p>"
            )
        if paper in QUICK_NOTES:
            parts.append(f"<p class=note>{html.escape(QUICK_NOTES[paper])}</p>")
        parts.append(claims_table(doc, full))
    elif not error:
        parts.append("<p>No claims.json: not run yet.</p>")
    figures = sorted(folder.glob("*.png")) if folder.is_dir() else []  # the paper's figures; runs/ has each run's own
    if figures:
        parts.append(
            '<div class="figures">'
            + "".join(
                f'<figure><a href="{p.relative_to(root)}"><img src="{p.relative_to(root)}" alt="{html.escape(p.stem)}"></a>'
                f"<figcaption>{html.escape(str(p.relative_to(folder)))}</figcaption></figure>"
                for p in figures
            )
            + "</div>"
        )
    parts.append("</section>")
    return "\n".join(parts)


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { margin-top: 2em; border-bottom: 2px solid #3f51b5; }
nav a { margin-right: 1em; } .meta { color: #555; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.85em; width: 100%; }
th, td { border: 1px solid #ccc; padding: 3px 6px; text-align: left; vertical-align: top; }
th { background: #eef; } tr.acceptance td, tr.structural td { color: #666; }
.figures { display: flex; flex-wrap: wrap; gap: 12px; margin-top: 1em; }
figure { margin: 0; width: 380px; } figure img { width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.8em; color: #555; } .error { background: #fdd; padding: 1em; white-space: pre-wrap; }
table.summary { width: auto; font-size: 0.95em; } table.summary td { text-align: right; }
table.summary td:first-child { text-align: left; max-width: 640px; }
.legend span { padding: 2px 8px; margin-right: 6px; font-size: 0.85em; }
.note { background: #f4f4fb; border-left: 4px solid #3f51b5; padding: 0.6em 1em; font-size: 0.9em; }
.outlier { color: #a33; font-size: 0.85em; white-space: nowrap; }
"""


def summary_table(root: Path, timings: dict[str, tuple[float | None, str | None]]) -> str:
    """One row per paper: its paper rows by verdict, the quick run's and the committed full
    run's (`quick / full`), and the quick run's wall time."""
    from corral.experiments import claims

    head = "<th>paper</th>" + "".join(
        f'<th style="background:{c}">{v.replace("_", " ")}<br><small>quick / full</small></th>'
        for v, c in VERDICT_COLOURS.items()
    )
    rows = []
    for paper in PAPERS:
        path = root / paper / "claims.json"
        wall, error = timings.get(paper, (None, None))
        full = full_run(paper)
        full_counts = claims.counts(full["claims"]) if full else None
        if path.is_file():
            counts = claims.counts(json.loads(path.read_text())["claims"])
            cells = "".join(f"<td>{counts[v]} / {full_counts[v] if full_counts else '–'}</td>" for v in VERDICT_COLOURS)
        else:
            cells = f'<td colspan="{len(VERDICT_COLOURS)}">{"failed" if error else "not run"}</td>'
        when = f"<td>{wall:.0f} s</td>" if wall is not None else "<td>–</td>"
        rows.append(f'<tr><td><a href="#{paper}">{html.escape(CITATIONS[paper])}</a></td>{cells}{when}</tr>')
    return f'<table class="summary"><thead><tr>{head}<th>quick run\'s wall time</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'


KIND = "demo"  # the marker kind of the results folder
ELSEWHERE = "or write the demo into another folder: make demo OUT=another-folder"


def write_index(root: Path, timings: dict[str, tuple[float | None, str | None]], writer=None) -> Path:
    """results/index.html from the papers' folders under `root` (through `writer`, the
    results folder's `corral.outdir.Writer`, or one taken here)."""
    if writer is None:
        from corral.outdir import writing

        with writing(root, KIND, command="make demo") as w:
            w.adopt(["index.html"])
            path = write_index(root, timings, w)
            w.finish()
        return path
    legend = "".join(f'<span style="background:{c}">{v.replace("_", " ")}</span>' for v, c in VERDICT_COLOURS.items())
    nav = "".join(f'<a href="#{p}">{p}</a>' for p in PAPERS)
    body = "\n".join(paper_section(root, p, *timings.get(p, (None, None))) for p in PAPERS)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>corral: five papers, quick reproductions</title>
<style>{STYLE}</style></head><body>
<h1>corral: five papers, quick reproductions</h1>
<p>Each section is one paper's <code>corral reproduce &lt;paper&gt; --quick</code>: every claim of the paper beside
the number corral measured, with a verdict, then the figures. Quick runs use fewer seeds and smaller or shorter
runs than the paper's, so their verdicts are a first look: beside each row is the committed full run's value and
verdict (<code>docs/claims/&lt;paper&gt;.json</code>, the runs the docs' reproduction pages show), and a note says
where a quick run differs for a reason. Written {stamp}.</p>
<h2>Paper claims by verdict</h2>
{summary_table(root, timings)}
<p class=legend>{legend}</p>
<nav>{nav}</nav>
{body}
</body></html>
"""
    writer.put_text("index.html", page)
    return root / "index.html"


def docs_figures(root: Path, paper: str) -> None:
    """The quick run's figures of `paper` into its reproduction page (`--docs`;
    `scripts/claims_tables.py run` puts a full run's there instead)."""
    from claims_tables import figures

    commit = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    pngs = list((root / paper).glob("*.png"))
    date = datetime.fromtimestamp(max(f.stat().st_mtime for f in pngs), timezone.utc).strftime("%Y-%m-%d") if pngs else "?"
    figures(
        paper,
        root / paper,
        f"The figures of the quick run (`make demo`: `corral reproduce {paper} --quick`, commit {commit}, {date}; "
        "fewer seeds and smaller or shorter runs than the paper's, so they show the shape, not the full run's numbers):",
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path, help="results folder: one folder per paper, and index.html")
    ap.add_argument("--page", action="store_true", help="only write index.html from the folders there")
    ap.add_argument("--papers", nargs="+", choices=PAPERS, default=list(PAPERS))
    ap.add_argument("--docs", action="store_true", help="also copy each paper's figures into its docs page")
    args = ap.parse_args()
    from corral.outdir import OutputError, check_target, writing

    try:
        with writing(args.root, KIND, command="make demo") as w:
            if not args.page:  # every paper's folder checked before the first runs
                for paper in args.papers:
                    check_target(args.root / paper, paper)
            w.adopt(["index.html", "demo.json"])
            code = run_demo(args, w)
            w.finish()
    except OutputError as e:
        print(f"error: {e}; {ELSEWHERE}", file=sys.stderr)
        return 2
    return code


def run_demo(args, writer) -> int:
    """The quick runs (unless --page), demo.json and index.html, into the held results folder."""
    timings: dict[str, tuple[float | None, str | None]] = {}
    if not args.page:
        total = time.monotonic()
        for paper in args.papers:
            print(f"corral reproduce {paper} --quick -o {args.root / paper}", flush=True)
            wall, error = reproduce(paper, args.root / paper)
            timings[paper] = (wall, error)
            print(f"  {wall:.0f} s" + (f", FAILED: {error.splitlines()[-1]}" if error else ""), flush=True)
        print(f"all papers: {time.monotonic() - total:.0f} s")
        writer.put_text(
            "demo.json", json.dumps({p: {"wall_s": round(w, 1), "error": e} for p, (w, e) in timings.items()}, indent=1) + "\n"
        )
    elif (args.root / "demo.json").is_file():  # the wall times of the last full `make demo`
        timings = {p: (t["wall_s"], t["error"]) for p, t in json.loads((args.root / "demo.json").read_text()).items()}
    path = write_index(args.root, timings, writer)
    print(f"open {path}")
    if args.docs:
        for paper in args.papers:
            docs_figures(args.root, paper)
    return 1 if not args.page and any(e for _, e in timings.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
