"""Output folders that never cost a user a file.

corral deletes only files it wrote itself, with or without `--force`. Every folder it writes
carries a marker, `.corral-output.json`: the kind of folder (`run`, `report`, `sweep`, or a
reproduction such as `outcast`), the corral version, and the list of files corral wrote
there. `check_target(path, kind, inputs, force)` decides before any work whether `path` may
receive that kind of output:

* a path that does not exist, or an empty folder, may;
* a corral folder of the same kind may: the files its marker lists are replaced, anything
  else in it (a notebook the user added) stays as it is;
* a corral folder of another kind only with `force=True` (`--force`), and then too only the
  files its marker lists are replaced;
* never, not even with `--force`: anything that is not a folder (the input file itself, say);
  a non-empty folder without a marker, or with a marker that lists no files (written by a
  corral from before the lists); the current folder or one of its parents; a folder that
  holds one of the command's inputs;
* and the path must be writable: the check creates and removes a probe folder there (or in
  its nearest existing parent), so a read-only or impossible `-o` is refused before a long
  simulation rather than after it.

`atomic_dir(path, kind, ...)` then yields a fresh temporary folder to write into; only when
the block finishes without error does the output appear:

* a new `path` is the temporary folder renamed (one atomic rename);
* an existing folder is never renamed or moved: its old corral files are moved into a
  hidden trash folder inside it, the new files are moved in one by one (each an atomic
  rename), the new marker is written last, and the trash is deleted. If any step fails, the
  moves are undone, so the folder holds exactly what it held before. A new file that would
  land on a file the user put there is refused before anything moves.

On any error the temporary folder is deleted, so a failed run leaves no half-written output
and an earlier good result stays untouched. Errors name the user's path, never a temporary
one. Temporary names start with `.corral-tmp-` or `.corral-old-` (`is_temporary`), so that a
sweep cleaning up after an interrupted run can never take a user's file for one of its own.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

MARKER = ".corral-output.json"
TMP_PREFIX = ".corral-tmp-"
OLD_PREFIX = ".corral-old-"
# A marker entry ending in "/" owns a whole subtree (a sweep's runs/ folder).
TREE = "/"


class OutputError(ValueError):
    """The output folder may not be written; the message says why and what to do."""


def is_temporary(name: str) -> bool:
    """Whether a file or folder name is one of corral's temporary names."""
    return name.startswith(TMP_PREFIX) or name.startswith(OLD_PREFIX)


def read_marker(folder: str | os.PathLike) -> dict | None:
    """A folder's marker as a dict, or None without a (readable, well-formed) marker."""
    try:
        data = json.loads((Path(folder) / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("kind"), str) else None


def marker_kind(folder: str | os.PathLike) -> str | None:
    """The kind a folder's marker names, or None without a (readable) marker."""
    marker = read_marker(folder)
    return marker["kind"] if marker else None


def owned_files(folder: str | os.PathLike) -> list[str] | None:
    """The files (relative POSIX paths) a folder's marker says corral wrote; None when the
    marker is missing or lists nothing (an older corral's), so that nothing may be deleted."""
    marker = read_marker(folder)
    files = marker.get("files") if marker else None
    if not isinstance(files, list) or not all(isinstance(f, str) and _safe_relative(f) for f in files):
        return None
    return files


def write_marker(folder: str | os.PathLike, kind: str, files: Iterable[str] = ()) -> None:
    """Mark `folder` as a corral output folder of `kind` that holds `files` (atomically: a
    reader sees the old marker or the new one)."""
    from . import __version__

    folder = Path(folder)
    data = {"kind": kind, "corral_version": __version__, "files": sorted(set(files))}
    tmp = folder / f"{TMP_PREFIX}{MARKER}"
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, folder / MARKER)


def _safe_relative(name: str) -> bool:
    """A marker entry may only name something inside its folder."""
    p = Path(name.rstrip(TREE))
    return bool(name) and not p.is_absolute() and ".." not in p.parts and name.rstrip(TREE) not in ("", ".", MARKER)


def _holds(folder: Path, path: Path) -> bool:
    """Whether `path` is `folder` or lies inside it."""
    return path == folder or folder in path.parents


def _has_user_entries(folder: Path) -> bool:
    """Whether `folder` holds anything but a marker and corral's temporary entries."""
    return any(e.name != MARKER and not is_temporary(e.name) for e in folder.iterdir())


def check_target(path: str | os.PathLike, kind: str, inputs: Iterable[str | os.PathLike] = (), force: bool = False) -> Path:
    """The absolute output folder for `path`, after the checks of the module doc."""
    shown = str(path)
    target = Path(path).absolute()
    real = target.resolve()
    cwd = Path.cwd().resolve()
    new = "choose a folder that does not exist yet"
    if _holds(real, cwd):
        what = "the current folder" if real == cwd else "a parent of the current folder"
        raise OutputError(f"-o {shown}: is {what}; corral writes its output into a folder of its own: {new}")
    for inp in inputs:
        p = Path(inp).absolute().resolve()
        if real == p:
            raise OutputError(f"-o {shown}: is the input {inp}; {new}")
        if _holds(real, p):
            raise OutputError(f"-o {shown}: holds the input {inp}; {new}")
    if target.is_symlink() and not target.exists():
        raise OutputError(f"-o {shown}: is a broken symbolic link; {new}")
    if target.exists():
        if not target.is_dir():
            raise OutputError(f"-o {shown}: exists and is not a folder; {new}")
        _check_existing(target, shown, kind, force, new)
    probe_writable(target, shown)
    return target


def _check_existing(target: Path, shown: str, kind: str, force: bool, new: str) -> None:
    """May the existing folder `target` receive output of `kind`? (module doc)"""
    try:
        user_entries = _has_user_entries(target)
    except OSError as e:
        raise OutputError(f"-o {shown}: cannot be read ({e.strerror})") from None
    if not user_entries:
        return
    marker = read_marker(target)
    if marker is None:
        raise OutputError(
            f"-o {shown}: exists and holds files corral did not write (it has no {MARKER}); "
            f"corral never writes into such a folder: {new}"
        )
    if owned_files(target) is None and marker["kind"] != "sweep":
        raise OutputError(
            f"-o {shown}: was written by an older corral that did not record which files are its own, "
            f"so corral cannot tell them from yours: {new}, or remove it yourself"
        )
    if marker["kind"] != kind and not force:
        raise OutputError(
            f"-o {shown}: is a corral {marker['kind']} folder, not a {kind} folder; pass --force to "
            f"write a {kind} folder there (corral then replaces only the files it wrote), or {new}"
        )
    if marker["kind"] == "sweep" and kind != "sweep":
        raise OutputError(f"-o {shown}: is a corral sweep folder, which holds its runs; {new}")


def probe_writable(target: Path, shown: str) -> None:
    """Refuse `target` unless a folder can be created in it (when it exists) or in its
    nearest existing parent; the probe folder is removed again at once."""
    here = target
    while not here.exists() and not here.is_symlink():
        here = here.parent
    if not here.is_dir():
        raise OutputError(f"-o {shown}: {here} is a file, not a folder, so no folder can be made below it")
    try:
        probe = Path(_mkdtemp(here, "probe-"))
    except OSError as e:
        raise OutputError(f"-o {shown}: cannot write in {here} ({e.strerror or e})") from None
    probe.rmdir()


def _mkdtemp(parent: Path, label: str) -> str:
    import tempfile

    return tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{label}", dir=parent)


def _files_below(folder: Path) -> list[str]:
    """Every file below `folder` (symlinks count as files), as sorted relative POSIX paths."""
    found = []
    for root, dirs, files in os.walk(folder):
        rel = Path(root).relative_to(folder)
        found += [(rel / f).as_posix() for f in files]
        found += [(rel / d).as_posix() for d in dirs if (Path(root) / d).is_symlink()]
    return sorted(f for f in found if f != MARKER)


@contextlib.contextmanager
def atomic_dir(
    path: str | os.PathLike, kind: str, inputs: Iterable[str | os.PathLike] = (), force: bool = False, *, owned: bool = False
) -> Iterator[Path]:
    """Yield a temporary folder; when the block succeeds, its files become `path`'s (module doc).

    `owned=True` is for a folder inside a tree corral owns as a whole (a sweep's `runs/`):
    every file already there counts as corral's."""
    import shutil

    target = Path(path).absolute() if owned else check_target(path, kind, inputs, force)
    exists = target.is_dir()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # A new folder is made next to where it goes; an existing one holds its own.
        tmp = Path(_mkdtemp(target if exists else target.parent, f"{target.name}-"))
    except OSError as e:
        raise OSError(e.errno, e.strerror, str(path)) from None
    try:
        yield tmp
        files = _files_below(tmp)
        if exists:
            _merge(tmp, target, kind, files, str(path), owned)
        else:
            write_marker(tmp, kind, files)
            os.chmod(tmp, 0o755)  # mkdtemp creates 0700; a result folder should look like any other
            tmp.rename(target)
    except OSError as e:
        # Name the user's folder, not the temporary one.
        raise OSError(e.errno, e.strerror, str(path)) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _merge(tmp: Path, target: Path, kind: str, files: list[str], shown: str, owned: bool = False) -> None:
    """Put `files` from `tmp` into the existing folder `target` in place of the files corral
    wrote there before (all of them if `owned`); undo every move if one fails (module doc)."""
    import shutil

    old = [f for f in _files_below(target) if not is_temporary(f.split("/")[0])] if owned else owned_files(target) or []
    old_set = set(old)
    for f in files:
        clash = _user_path_in_the_way(target, f, old_set)
        if clash:
            raise OutputError(
                f"-o {shown}: holds {clash}, which corral did not write, where it would write {f}; "
                "move it, or choose a folder that does not exist yet"
            )
    trash = Path(_old_dir(target))
    moved_out: list[str] = []
    moved_in: list[str] = []
    try:
        for f in old:
            src = target / f.rstrip(TREE)
            if src.exists() or src.is_symlink():
                (trash / f.rstrip(TREE)).parent.mkdir(parents=True, exist_ok=True)
                src.rename(trash / f.rstrip(TREE))
                moved_out.append(f.rstrip(TREE))
        for f in files:
            dst = target / f
            dst.parent.mkdir(parents=True, exist_ok=True)
            (tmp / f).rename(dst)
            moved_in.append(f)
        write_marker(target, kind, files)
    except BaseException:
        for f in reversed(moved_in):
            with contextlib.suppress(OSError):
                (target / f).rename(tmp / f)
        for f in reversed(moved_out):
            with contextlib.suppress(OSError):
                (trash / f).rename(target / f)
        raise
    finally:
        shutil.rmtree(trash, ignore_errors=True)
    _remove_emptied_dirs(target, [f.rstrip(TREE) for f in old if f.rstrip(TREE) not in set(files)])


def adopt(target: Path, kind: str, files: Iterable[str]) -> None:
    """Make `target` (checked by `check_target`) a folder of `kind` that corral fills in
    place (a sweep): create it, remove the files an earlier corral folder of another kind
    wrote there (`--force` let it through), and mark it as holding `files`."""
    target.mkdir(parents=True, exist_ok=True)
    if marker_kind(target) not in (None, kind):
        empty = Path(_mkdtemp(target, "adopt-"))
        try:
            _merge(empty, target, kind, [], str(target))
        finally:
            empty.rmdir()
    write_marker(target, kind, files)


def _old_dir(target: Path) -> str:
    import tempfile

    return tempfile.mkdtemp(prefix=OLD_PREFIX, dir=target)


def _user_path_in_the_way(target: Path, rel: str, old: set[str]) -> str | None:
    """The path (relative) of something the user put in `target` that writing `rel` would
    overwrite: the file itself, or a file where one of its parent folders goes."""
    if any(rel == o or (o.endswith(TREE) and rel.startswith(o)) for o in old):
        return None
    p = target / rel
    if p.exists() or p.is_symlink():
        return rel
    for parent in Path(rel).parents:
        if parent == Path("."):
            break
        q = target / parent
        if (q.exists() or q.is_symlink()) and not q.is_dir():
            return parent.as_posix()
    return None


def _remove_emptied_dirs(target: Path, removed: list[str]) -> None:
    """Remove the folders that held corral's old files and are empty now (deepest first);
    a folder with anything of the user's in it stays."""
    dirs = {p for f in removed for p in Path(f).parents if p != Path(".")}
    for d in sorted(dirs, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            (target / d).rmdir()  # fails unless empty
