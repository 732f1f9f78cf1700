"""Output folders that never cost a user a file.

Every folder corral writes carries a marker file (`.corral-output.json`: which kind of
folder it is and the corral version). `check_target(path, kind, inputs)` decides before any
work whether `path` may receive that kind of output:

* a folder that does not exist, or an empty one, may;
* an existing folder is replaced only if its marker says it is a corral folder of the same
  kind (a run folder by a run, a report by a report, ...); any other folder is refused;
* the current folder, any of its parents, and a folder holding one of the command's inputs
  (or being one) are refused even then;
* `force=True` (`--force`) skips these checks.

`atomic_dir(path, kind, ...)` then yields a fresh temporary sibling of `path` to write
into; only when the block finishes without error is it renamed to `path` (replacing a
folder already there at that last moment); on any error it is deleted, so a failed run
never leaves a half-written folder and an earlier good result stays untouched. Errors name
the user's path, never the temporary one.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

MARKER = ".corral-output.json"


class OutputError(ValueError):
    """The output folder may not be written; the message says why and what to do."""


def write_marker(folder: Path, kind: str) -> None:
    """Mark `folder` as a corral output folder of `kind`."""
    from . import __version__

    (folder / MARKER).write_text(json.dumps({"kind": kind, "corral_version": __version__}) + "\n")


def marker_kind(folder: Path) -> str | None:
    """The kind a folder's marker names, or None without a (readable) marker."""
    try:
        kind = json.loads((Path(folder) / MARKER).read_text(encoding="utf-8")).get("kind")
    except (OSError, ValueError, AttributeError):
        return None
    return kind if isinstance(kind, str) else None


def _holds(folder: Path, path: Path) -> bool:
    """Whether `path` is `folder` or lies inside it."""
    return path == folder or folder in path.parents


def check_target(path: str | os.PathLike, kind: str, inputs: Iterable[str | os.PathLike] = (), force: bool = False) -> Path:
    """The absolute output folder for `path`, after the checks of the module doc."""
    shown = str(path)
    target = Path(path).absolute()
    if force:
        return target
    real = target.resolve()
    cwd = Path.cwd().resolve()
    hint = "choose a new folder, or pass --force to replace it anyway"
    if _holds(real, cwd):
        what = "the current folder" if real == cwd else "a parent of the current folder"
        raise OutputError(f"-o {shown}: is {what}; corral replaces its output folder as a whole, so {hint}")
    for inp in inputs:
        p = Path(inp).absolute().resolve()
        if _holds(real, p):
            raise OutputError(f"-o {shown}: holds the input {inp}; writing there would delete it: {hint}")
    if target.exists() or target.is_symlink():
        if not target.is_dir():
            raise OutputError(f"-o {shown}: exists and is not a folder")
        found = marker_kind(target)
        if found != kind and any(target.iterdir()):
            what = f"a corral {found} folder, not a {kind} folder" if found else "not a folder corral wrote (it has no " + MARKER + ")"
            raise OutputError(f"-o {shown}: exists and is {what}; corral only replaces its own {kind} folders: {hint}")
    return target


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike, kind: str, inputs: Iterable[str | os.PathLike] = (), force: bool = False) -> Iterator[Path]:
    """Yield a temporary folder next to `path`; move it to `path` if the block succeeds."""
    # Imported here: `corral run` loads this module (check_target) before its event loop, and
    # these two (a few ms) only when the results are written.
    import shutil
    import tempfile

    target = check_target(path, kind, inputs, force)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    except OSError as e:
        raise OSError(e.errno, e.strerror, str(path)) from None
    try:
        write_marker(tmp, kind)
        yield tmp
        _replace(tmp, target)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        # Name the user's folder, not the temporary one.
        raise OSError(e.errno, e.strerror, str(path)) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _replace(src: Path, target: Path) -> None:
    """Rename `src` to `target`; an existing `target` is moved aside first, then deleted."""
    import shutil
    import tempfile

    os.chmod(src, 0o755)  # mkdtemp creates 0700; a result folder should look like any other
    if not target.exists():
        src.rename(target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    old.rmdir()
    target.rename(old)
    try:
        src.rename(target)
    except BaseException:
        old.rename(target)  # put the previous result back
        raise
    shutil.rmtree(old, ignore_errors=True)
