"""Paper reproductions, one module per experiment; `EXPERIMENTS` maps a name to its module.

Each module provides `reproduce(out_dir, *, seeds, quick, progress) -> Report` and
`rich_tables(report)` for the terminal.
"""

from . import outcast

EXPERIMENTS = {"outcast": outcast}
