"""Paper reproductions, one module per experiment; `EXPERIMENTS` maps a name to its module.

Each module provides `reproduce(out_dir, *, seeds, quick, progress) -> Report` and
`rich_tables(report)` for the terminal.
"""

from . import hcc, outcast, r2c2, rackcc, scc

EXPERIMENTS = {"hcc": hcc, "outcast": outcast, "r2c2": r2c2, "rackcc": rackcc, "scc": scc}
