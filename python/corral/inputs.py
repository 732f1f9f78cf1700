"""The files a user names on the command line or in a sweep: one plain message for each way
such a path can be wrong (missing, a folder, a device or FIFO that cannot be read as a file),
so that "not found" is said only of what is not there."""

from __future__ import annotations

import stat
from pathlib import Path


def file_problem(path: Path, what: str) -> str | None:
    """Why `path` cannot be read as `what` (e.g. "a scenario TOML file"), or None if it can."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return f"{path}: not found; expected {what}"
    except NotADirectoryError:
        return f"{path}: not found (a part of the path is a file, not a folder); expected {what}"
    except OSError as e:
        return f"{path}: cannot be read ({e.strerror}); expected {what}"
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
