"""May a folder receive corral's output? Decided before any work (`check_target`).

* a path that does not exist, or an empty folder, may;
* a corral folder of the same kind may: the files its marker lists are replaced, anything
  else in it (a notebook the user added) stays as it is;
* a corral folder of another kind only with `force=True` (`--force`), and then too only the
  files its marker lists are replaced;
* never, not even with `--force`: anything that is not a folder (the input file itself,
  say); a non-empty folder without a marker, with a marker that cannot be read, or with a
  marker that lists no files (written by a corral from before the lists); the current folder
  or one of its parents; a folder that holds one of the command's inputs; a sweep or arena
  folder as anything but itself (it holds run folders, each with its own marker);
* a folder's entries that are themselves corral output folders (with a marker) are not the
  user's files: a folder of reproductions (`make demo`'s results/) may take its page;
* the path must be one the file system can hold: text it can encode, each name within the
  file system's limit (checked here, not after a long simulation), and writable: the check
  creates and removes a probe folder there (or in its nearest existing parent).
"""

from __future__ import annotations

import os
from pathlib import Path

from .lock import LOCK_PREFIX
from .marker import MARKER, OLD_PREFIX, TMP_PREFIX, marker_problem, owned_files, read_marker

# Folders that hold run folders of their own: written only by their own kind.
HOLDERS = ("sweep", "arena")
NEW = "choose a folder that does not exist yet"


class OutputError(ValueError):
    """The output folder may not be written; the message says why and what to do."""


def is_temporary(name: str) -> bool:
    """Whether a name has one of corral's temporary prefixes (a name alone never makes a
    file corral's: `corral.outdir.lock`)."""
    return name.startswith(TMP_PREFIX) or name.startswith(OLD_PREFIX)


def _holds(folder: Path, path: Path) -> bool:
    """Whether `path` is `folder` or lies inside it."""
    return path == folder or folder in path.parents


def _user_entries(folder: Path) -> list[str]:
    """What in `folder` is the user's: anything but its marker, corral's temporary and lock
    entries, and folders that are corral outputs themselves."""
    out = []
    for e in folder.iterdir():
        if e.name == MARKER or is_temporary(e.name) or e.name.startswith(LOCK_PREFIX):
            continue
        if e.is_dir() and not e.is_symlink() and read_marker(e) is not None:
            continue
        out.append(e.name)
    return out


def check_path_text(path: str | os.PathLike, shown: str) -> None:
    """Refuse a path the file system cannot hold: text that is not valid (a name decoded
    from undecodable bytes), or a name longer than the file system allows."""
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise OutputError(
            f"-o {shown!r}: is not valid text (it holds bytes that are not UTF-8); {NEW} with a plain name"
        ) from None
    here = Path(text).absolute()
    while not os.path.lexists(here) and here != here.parent:  # lexists: False on a name too long, too
        here = here.parent
    try:
        limit = os.pathconf(here, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    for part in Path(text).parts:
        if len(os.fsencode(part)) > limit:
            raise OutputError(
                f"-o {shown}: the name {part[:40]}... is {len(os.fsencode(part))} bytes, more than the {limit} this file system allows"
            )


def check_target(path: str | os.PathLike, kind: str, inputs=(), force: bool = False) -> Path:
    """The absolute output folder for `path`, after the checks of the module doc."""
    shown = str(path)
    check_path_text(path, shown)
    target = Path(path).absolute()
    real = target.resolve()
    cwd = Path.cwd().resolve()
    if _holds(real, cwd):
        what = "the current folder" if real == cwd else "a parent of the current folder"
        raise OutputError(f"-o {shown}: is {what}; corral writes its output into a folder of its own: {NEW}")
    for inp in inputs:
        p = Path(inp).absolute().resolve()
        if real == p:
            raise OutputError(f"-o {shown}: is the input {inp}; {NEW}")
        if _holds(real, p):
            raise OutputError(f"-o {shown}: holds the input {inp}; {NEW}")
    if target.is_symlink() and not target.exists():
        raise OutputError(f"-o {shown}: is a broken symbolic link; {NEW}")
    if target.exists():
        if not target.is_dir():
            raise OutputError(f"-o {shown}: exists and is not a folder; {NEW}")
        check_existing(target, shown, kind, force)
    probe_writable(target, shown)
    return target


def check_existing(target: Path, shown: str, kind: str, force: bool) -> None:
    """May the existing folder `target` receive output of `kind`? (module doc)"""
    try:
        user = _user_entries(target)
    except OSError as e:
        raise OutputError(f"-o {shown}: cannot be read ({e.strerror})") from None
    problem = marker_problem(target)
    if problem:
        raise OutputError(f"-o {shown}: {problem}, so corral cannot tell its files from yours: {NEW}, or remove it yourself")
    marker = read_marker(target)
    if marker is None:
        if user:
            raise OutputError(
                f"-o {shown}: exists and holds files corral did not write (it has no {MARKER}); "
                f"corral never writes into such a folder: {NEW}"
            )
        return
    if owned_files(target) is None:
        raise OutputError(
            f"-o {shown}: was written by an older corral that did not record which files are its own, "
            f"so corral cannot tell them from yours: {NEW}, or remove it yourself"
        )
    other = marker["kind"]
    if other == kind:
        return
    if other in HOLDERS:
        raise OutputError(f"-o {shown}: is a corral {other} folder, which holds its runs; {NEW}")
    if not force:
        raise OutputError(
            f"-o {shown}: is a corral {other} folder, not a {kind} folder; pass --force to "
            f"write a {kind} folder there (corral then replaces only the files it wrote), or {NEW}"
        )


def probe_writable(target: Path, shown: str) -> None:
    """Refuse `target` unless a folder can be created in it (when it exists) or in its
    nearest existing parent; the probe folder is removed again at once."""
    import tempfile

    here = target
    while not here.exists() and not here.is_symlink():
        here = here.parent
    if not here.is_dir():
        raise OutputError(f"-o {shown}: {here} is a file, not a folder, so no folder can be made below it")
    try:
        probe = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}probe-", dir=here))
    except OSError as e:
        raise OutputError(f"-o {shown}: cannot write in {here} ({e.strerror or e})") from None
    probe.rmdir()
