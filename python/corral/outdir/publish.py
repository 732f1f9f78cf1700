"""Writing an output folder so that it is complete or absent, whatever happens to the writer.

`writing(path, kind, ...)` checks the folder (`corral.outdir.check`), takes its lock
(`corral.outdir.lock`: one writer per folder; a killed writer's leftovers removed) and
yields a `Writer`. Its files are then published in one of two ways:

* `Writer.publish()` yields a scratch folder to write the whole output into; when the block
  ends without error its files become the folder's:
  - a new folder is the scratch folder renamed (one atomic rename), its marker written last
    inside it, after every file is flushed to disk;
  - an existing folder is never renamed or moved (it may hold the user's files). Its marker
    is first rewritten as incomplete, listing the old and the new files; the old files are
    moved into a trash folder inside it, the new ones moved in, each by one rename; the
    complete marker is written last, and the trash deleted. On an error, Ctrl-C or SIGTERM
    every move is undone and the old marker restored, so the folder holds exactly what it
    held before; a writer killed by SIGKILL leaves a folder whose marker says incomplete,
    which every reader treats as such and the next writer replaces.
  A new file that would land on a file the user put there is refused before anything moves.
* a folder filled in place (a sweep, an arena) is `adopt`ed (marked incomplete), its files
  written one by one with `put` or `merge_in` (each an atomic rename), and `finish`ed (its
  marker complete).

`atomic_dir(path, kind, ...)` is `writing` and `publish` in one, for a command that writes
its folder once. `atomic_dir(..., owned=True)` writes a run folder inside a sweep or arena
folder whose lock the sweep holds (the workers take no lock of their own; `lock_file` names
the sweep's, so that the sweep finds a killed worker's scratch folder by it).

Errors name the user's path, never a scratch one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .check import OutputError, check_target
from .lock import LockedError, TargetLock, and_children, worker_tag
from .marker import (
    MARKER,
    OLD_PREFIX,
    TMP_PREFIX,
    fsync_path,
    owned_files,
    read_marker,
    write_marker,
    write_text_atomic,
)

# How libraries that do not raise OSError (polars, matplotlib's writers) report a full disk,
# a quota or a read-only file system.
_DISK_ERRORS = (
    (errno.ENOSPC, ("no space left on device", "os error 28")),
    (errno.EDQUOT, ("disk quota exceeded", "os error 122")),
    (errno.EROFS, ("read-only file system", "os error 30")),
)


def disk_error(e: BaseException, path: str | None = None) -> OSError | None:
    """`e` as the OSError it reports when it is a full disk, a quota or a read-only file
    system in another library's exception type, or in an OSError without an errno (polars'
    CSV writer raises `OSError("No space left on device (os error 28)")`); None otherwise."""
    if isinstance(e, OSError) and e.errno is not None:
        return e if e.errno in {code for code, _ in _DISK_ERRORS} else None
    text = str(e).lower()
    for code, needles in _DISK_ERRORS:
        if any(n in text for n in needles):
            return OSError(code, f"{os.strerror(code)} while writing {path}" if path else os.strerror(code), path)
    return None


def naming(e: OSError, shown: str) -> OSError:
    """`e` naming the user's path `shown` instead of a scratch one; an OSError without an
    errno keeps its text."""
    if e.errno is None:
        return OSError(f"{e} (writing {shown})")
    return OSError(e.errno, e.strerror, shown)


def files_below(folder: Path) -> list[str]:
    """Every file below `folder` (symlinks count as files), as sorted relative POSIX paths."""
    found = []
    for root, dirs, files in os.walk(folder):
        rel = Path(root).relative_to(folder)
        found += [(rel / f).as_posix() for f in files]
        found += [(rel / d).as_posix() for d in dirs if (Path(root) / d).is_symlink()]
    return sorted(f for f in found if f != MARKER)


class Writer:
    """The holder of one output folder's lock (module doc)."""

    def __init__(self, target: Path, shown: str, kind: str, lock: TargetLock | None, writer: dict | None = None) -> None:
        self.target = target
        self.shown = shown
        self.kind = kind
        self.lock = lock
        self.writer_info = writer if writer is not None else (lock.writer() if lock else {"pid": os.getpid()})
        self.cleaned = 0  # leftovers of a killed writer removed when the lock was taken
        self.tag = ""  # in its scratch folders' names after the prefix (a worker's: its sweep's lock)

    # -- scratch folders -----------------------------------------------------------------
    def scratch(self, where: Path, prefix: str = TMP_PREFIX) -> Path:
        """A new scratch folder in `where`, recorded in the lock file before it is made and
        holding a marker that names the lock (a worker's: named after its sweep's lock;
        `corral.outdir.lock`)."""
        where.mkdir(parents=True, exist_ok=True)
        prefix += self.tag
        for _ in range(100):
            path = where / f"{prefix}{os.urandom(5).hex()}"
            if self.lock:
                self.lock.register(path)
            try:
                path.mkdir(mode=0o755)
            except FileExistsError:
                continue
            try:
                write_marker(path, self.kind, (), complete=False, writer=self.writer_info, sync=False)
            except BaseException:  # an error, Ctrl-C or SIGTERM before it has its marker: no one else could find it
                self.drop(path)
                raise
            return path
        raise FileExistsError(f"no free scratch name in {where}")

    def drop(self, scratch: Path) -> None:
        shutil.rmtree(scratch, ignore_errors=True)
        if self.lock:
            self.lock.forget(scratch)

    # -- a folder written whole --------------------------------------------------------------
    @contextlib.contextmanager
    def publish(self) -> Iterator[Path]:
        """Yield a scratch folder; when the block succeeds its files become the folder's."""
        target = self.target
        exists = target.is_dir()
        try:
            tmp = self.scratch(target if exists else target.parent)
        except OSError as e:
            raise naming(e, self.shown) from None
        try:
            try:
                yield tmp
            except Exception as e:
                disk = disk_error(e, self.shown)
                if disk is None or disk is e:
                    raise
                raise disk from None
            files = files_below(tmp)
            if exists:
                self.merge_in(tmp, files, owned_files(target) or [], complete=True)
            else:
                write_marker(tmp, self.kind, files, writer=self.writer_info)
                os.rename(tmp, target)
                fsync_path(target.parent)
        except OSError as e:
            raise naming(e, self.shown) from None
        finally:
            self.drop(tmp)

    # -- a folder filled in place -------------------------------------------------------------
    def adopt(self, files: Iterable[str] = ()) -> None:
        """Create the folder if needed, remove what an earlier corral folder of another kind
        wrote there (`--force` let it through), and mark it incomplete, holding `files`; a
        file of the user's where one of `files` goes is refused first."""
        self.target.mkdir(parents=True, exist_ok=True)
        marker = read_marker(self.target)
        same = marker is not None and marker["kind"] == self.kind
        owned = set(owned_files(self.target) or []) if marker is not None else set()
        for f in files:
            clash = user_path_in_the_way(self.target, f, owned)
            if clash:
                raise OutputError(
                    f"-o {self.shown}: holds {clash}, which corral did not write, where it would write {f}; "
                    "move it, or choose a folder that does not exist yet"
                )
        if marker is not None and not same:
            empty = self.scratch(self.target)
            try:
                self.merge_in(empty, [], sorted(owned), complete=False)
            finally:
                self.drop(empty)
        old = sorted(owned) if same else []
        self._mark(sorted(set(old) | set(files)), complete=False)

    def put(self, name: str, write: Callable[[Path], None]) -> None:
        """Write the file `name` of an adopted folder: `write(path)` into a scratch folder,
        then one rename over the old file (refused over a file corral did not write)."""
        owned = set(owned_files(self.target) or [])
        clash = user_path_in_the_way(self.target, name, owned)
        if clash:
            raise OutputError(f"-o {self.shown}: holds {clash}, which corral did not write, where it would write {name}")
        tmp = self.scratch(self.target)
        try:
            dst = self.target / name
            write(tmp / Path(name).name)
            fsync_path(tmp / Path(name).name)
            if name not in owned:
                self._mark(sorted(owned | {name}), complete=False)
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp / Path(name).name, dst)
        finally:
            self.drop(tmp)

    def put_text(self, name: str, text: str) -> None:
        self.put(name, lambda p: p.write_text(text, encoding="utf-8"))

    def finish(self, files: Iterable[str] | None = None) -> None:
        """Mark the adopted folder complete, holding `files` (default: what it lists and holds)."""
        names = (owned_files(self.target) or []) if files is None else list(files)
        present = [f for f in names if (self.target / f).exists() or (self.target / f).is_symlink()]
        self._mark(present, complete=True)

    def _mark(self, files: list[str], *, complete: bool) -> None:
        """Rewrite the folder's marker (its temporary file in a scratch folder)."""
        scratch = self.scratch(self.target)
        try:
            write_marker(
                self.target, self.kind, files, complete=complete, writer=self.writer_info, sync=complete, scratch=scratch
            )
        finally:
            self.drop(scratch)

    def _restore(self, before: dict | None) -> None:
        """Put back the marker the folder had before a replacement that failed."""
        if before is None:
            (self.target / MARKER).unlink(missing_ok=True)
            return
        import json

        scratch = self.scratch(self.target)
        try:
            write_text_atomic(self.target / MARKER, json.dumps(before, indent=1) + "\n", scratch=scratch)
        finally:
            self.drop(scratch)

    # -- the replacement itself ------------------------------------------------------------------
    def merge_in(self, tmp: Path, files: list[str], old: list[str], *, complete: bool) -> None:
        """Put `files` from `tmp` into the existing folder in place of `old` (files corral
        wrote there); undo everything if a step fails (module doc)."""
        target = self.target
        keep = [f for f in owned_files(target) or [] if f not in set(old)]
        old_set = set(old) | set(keep)
        for f in files:
            clash = user_path_in_the_way(target, f, old_set)
            if clash:
                raise OutputError(
                    f"-o {self.shown}: holds {clash}, which corral did not write, where it would write {f}; "
                    "move it, or choose a folder that does not exist yet"
                )
        before = read_marker(target)
        # From here until the last marker, the folder says it is incomplete, and claims
        # every name it may hold: a writer killed in between leaves nothing unowned.
        self._mark(sorted(old_set | set(files)), complete=False)
        trash = self.scratch(target, OLD_PREFIX)
        moved_out: list[str] = []
        moved_in: list[str] = []
        try:
            for f in old:
                src = target / f
                if src.exists() or src.is_symlink():
                    (trash / f).parent.mkdir(parents=True, exist_ok=True)
                    src.rename(trash / f)
                    moved_out.append(f)
            for f in files:
                dst = target / f
                dst.parent.mkdir(parents=True, exist_ok=True)
                (tmp / f).rename(dst)
                moved_in.append(f)
            self._mark(sorted(set(keep) | set(files)), complete=complete)
        except BaseException:
            for f in reversed(moved_in):
                with contextlib.suppress(OSError):
                    (target / f).rename(tmp / f)
            for f in reversed(moved_out):
                with contextlib.suppress(OSError):
                    (trash / f).rename(target / f)
            with contextlib.suppress(OSError):
                self._restore(before)
            raise
        finally:
            self.drop(trash)
        remove_emptied_dirs(target, [f for f in old if f not in set(files)])


def user_path_in_the_way(target: Path, rel: str, owned: set[str]) -> str | None:
    """The path (relative) of something the user put in `target` that writing `rel` would
    overwrite: the file itself, or a file where one of its parent folders goes."""
    if rel in owned:
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


def remove_emptied_dirs(target: Path, removed: list[str]) -> None:
    """Remove the folders that held corral's old files and are empty now (deepest first);
    a folder with anything of the user's in it stays."""
    dirs = {p for f in removed for p in Path(f).parents if p != Path(".")}
    for d in sorted(dirs, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            (target / d).rmdir()  # fails unless empty


@contextlib.contextmanager
def writing(
    path: str | os.PathLike,
    kind: str,
    inputs=(),
    force: bool = False,
    *,
    command: str | None = None,
    places: Iterable[str] = (),
) -> Iterator[Writer]:
    """Check `path`, hold its lock, remove a killed writer's leftovers (in the folder's
    parent, the folder, its sub-folders `places` and the folders in those: a sweep's run
    folders), and yield the `Writer`."""
    import sys

    target = check_target(path, kind, inputs, force)
    shown = str(path)
    real = target.resolve()
    created = _make_parents(real.parent)
    lock = TargetLock(real, command or " ".join(["corral", *sys.argv[1:2]]))
    try:
        lock.acquire()
    except LockedError as e:
        _remove_dirs(created)
        raise OutputError(f"-o {shown}: {e}") from None
    except OSError as e:
        _remove_dirs(created)
        raise naming(e, shown) from None
    try:
        # checked again under the lock: another writer may have changed it meanwhile
        check_target(path, kind, inputs, force)
        w = Writer(real, shown, kind, lock)
        w.cleaned = lock.clean_leftovers(real.parent, real, *and_children(*(real / p for p in places)))
        yield w
    finally:
        lock.release()
        if not real.exists():
            _remove_dirs(created)


def _make_parents(parent: Path) -> list[Path]:
    """Create `parent` and its missing ancestors; return those created (deepest last)."""
    missing = []
    here = parent
    while not here.exists():
        missing.append(here)
        here = here.parent
    for d in reversed(missing):
        try:
            d.mkdir()
        except FileExistsError:
            pass
    return list(reversed(missing))


def _remove_dirs(created: list[Path]) -> None:
    for d in reversed(created):
        with contextlib.suppress(OSError):
            d.rmdir()


@contextlib.contextmanager
def atomic_dir(
    path: str | os.PathLike,
    kind: str,
    inputs: Iterable[str | os.PathLike] = (),
    force: bool = False,
    *,
    owned: bool = False,
    lock_file: str | None = None,
) -> Iterator[Path]:
    """Yield a scratch folder; when the block succeeds, its files become `path`'s (module doc)."""
    if owned:
        target = Path(path).absolute()
        writer = {"pid": os.getpid(), "command": "corral worker", "lock": lock_file or ""}
        w = Writer(target, str(path), kind, None, writer)
        if lock_file:
            w.tag = worker_tag(lock_file)
        if target.exists() and read_marker(target) is None and any(target.iterdir()):
            raise OutputError(f"{path}: holds files corral did not write; remove them to rerun this run")
        with w.publish() as tmp:
            yield tmp
        return
    with writing(path, kind, inputs, force) as w, w.publish() as tmp:
        yield tmp
