"""Output folders that are complete or absent, and never cost a user a file.

corral deletes or replaces only files it wrote itself, with or without `--force`, and only
files its marker lists by name (`marker`: what a folder holds and whether it is complete);
whether a folder may receive an output is decided before any work (`check`); one writer
holds a folder at a time, and the next one removes what a killed writer left (`lock`); an
output appears whole or not at all, whatever happens to its writer (`publish`).
"""

from .check import HOLDERS, OutputError, check_target, is_temporary, probe_writable
from .lock import LOCK_PREFIX, and_children, lock_path
from .marker import (
    MARKER,
    OLD_PREFIX,
    TMP_PREFIX,
    is_complete,
    lists,
    marker_kind,
    marker_problem,
    owned_files,
    read_marker,
    write_marker,
)
from .publish import Writer, atomic_dir, disk_error, files_below, writing

__all__ = [
    "HOLDERS",
    "LOCK_PREFIX",
    "MARKER",
    "OLD_PREFIX",
    "TMP_PREFIX",
    "OutputError",
    "Writer",
    "and_children",
    "atomic_dir",
    "check_target",
    "disk_error",
    "files_below",
    "is_complete",
    "is_temporary",
    "lists",
    "lock_path",
    "marker_kind",
    "marker_problem",
    "owned_files",
    "probe_writable",
    "read_marker",
    "write_marker",
    "writing",
]
