"""The files a user names on the command line, in a sweep or in a scenario: one plain message
for each way such a path can be wrong (missing, a folder, a device or FIFO that cannot be read
as a file, larger than corral reads), so that "not found" is said only of what is not there.

Every file is checked before it is opened (a FIFO would block the read, a device such as
/dev/zero would never end it) and must be within the size cap that the core applies to the
files a scenario names (`config/input_file.rs`): 256 MiB unless the environment variable
`CORRAL_MAX_INPUT_BYTES` sets another number of bytes.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

DEFAULT_MAX_INPUT_BYTES = 256 << 20
MAX_INPUT_ENV = "CORRAL_MAX_INPUT_BYTES"


def max_input_bytes() -> int:
    """The cap in force (the module doc)."""
    try:
        return int(os.environ.get(MAX_INPUT_ENV, "").strip())
    except ValueError:
        return DEFAULT_MAX_INPUT_BYTES


def _size(n: int) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n} bytes"


def file_problem(path: Path, what: str) -> str | None:
    """Why `path` cannot be read as `what` (e.g. "a scenario TOML file"), or None if it can."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return f"{path}: not found; expected {what}"
    except NotADirectoryError:
        return f"{path}: not found (a part of the path is a file, not a folder); expected {what}"
    except OSError as e:
        return f"{path}: cannot be read ({e.strerror}); expected {what}"
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        return f"{path}: is a folder; expected {what}"
    if not stat.S_ISREG(mode):
        kind = (
            "a FIFO"
            if stat.S_ISFIFO(mode)
            else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "not a regular file"
        )
        return f"{path}: is {kind}, not a file; expected {what}"
    cap = max_input_bytes()
    if st.st_size > cap:
        return (
            f"{path}: holds {_size(st.st_size)}, more than the {_size(cap)} corral reads from an input file "
            f"(set {MAX_INPUT_ENV} to a number of bytes to allow more); expected {what}"
        )
    return None


# A scenario the package ships, by its name under corral/scenarios: "corral:fct/sweep.toml".
PACKAGED = "corral:"


def packaged_root() -> Path:
    return Path(__file__).resolve().parent / "scenarios"


def packaged_names() -> list[str]:
    """Every packaged scenario and sweep file, as `corral:<name>`."""
    root = packaged_root()
    return sorted(PACKAGED + p.relative_to(root).as_posix() for p in root.rglob("*.toml"))


def resolve(path: str | Path) -> Path:
    """`path` as a file: a `corral:<name>` is the packaged file of that name (FileNotFoundError
    naming the nearest packaged ones if there is none); anything else is the path itself."""
    text = str(path)
    if not text.startswith(PACKAGED):
        return Path(path)
    name = text[len(PACKAGED) :].lstrip("/")
    found = packaged_root() / name
    if name and ".." not in Path(name).parts and found.is_file():
        return found
    import difflib

    names = packaged_names()
    close = difflib.get_close_matches(text, names, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise FileNotFoundError(f"{text}: no such packaged scenario{hint} (the package ships {len(names)}: {', '.join(names)})")
