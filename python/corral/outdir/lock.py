"""One writer per output folder, and the leftovers of a writer that was killed.

Every command that writes a folder holds an exclusive `flock` on a lock file beside it,
`<parent>/.corral-lock-<digest of the folder's name>`, from its first check to its last
rename; a second writer of the same folder is refused at once with the holder's process id
and command. The lock file is removed when its writer ends; a writer killed by SIGKILL
leaves it (the kernel releases the lock itself), and the next writer of the same folder
takes it over.

The lock file also records every scratch folder its writer makes (a temporary folder that
becomes the output by one rename, the trash of a replacement) before making it, and each
scratch folder holds a marker naming the lock. So the next holder of the lock finds a dead
writer's leftovers by the lock and the marker, never by a name alone: it removes the
scratch folders the stale lock file lists, and the folders with corral's temporary prefix
whose marker names this lock (a sweep's workers write their run folders under the sweep's
lock, and a worker replacing a run folder makes them inside it: `and_children`). A worker
holds no lock file to record its scratch folders in, so it puts the sweep's lock's digest in
each one's name (`worker_tag`): one killed between making the folder and writing its marker
leaves a folder that the next holder still finds by the lock, through that name. A user's
file named like a temporary one (without this lock's digest) is never touched.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from .marker import OLD_PREFIX, TMP_PREFIX, read_marker

LOCK_PREFIX = ".corral-lock-"


class LockedError(ValueError):
    """Another process holds the folder's lock."""


def lock_path(target: Path) -> Path:
    """The lock file of output folder `target` (absolute)."""
    digest = hashlib.sha256(os.fsencode(target.name)).hexdigest()[:16]
    return target.parent / f"{LOCK_PREFIX}{digest}"


class TargetLock:
    """The exclusive lock of one output folder, held from `acquire` to `release`."""

    def __init__(self, target: Path, command: str) -> None:
        self.target = target
        self.command = command
        self.path = lock_path(target)
        self.fd: int | None = None
        self.stale: dict[str, Any] = {}  # what a killed writer's lock file said
        self.scratch: list[str] = []

    def acquire(self) -> TargetLock:
        import fcntl

        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as e:
                if e.errno in (errno.EACCES, errno.EROFS, errno.EPERM) and self.target.is_dir():
                    # a read-only parent around a writable folder: lock inside it
                    self.path = self.target / LOCK_PREFIX.rstrip("-")
                    fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
                else:
                    raise
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # held: say by whom
                holder = _read(fd)
                os.close(fd)
                pid = holder.get("pid", "?")
                cmd = holder.get("command", "corral")
                raise LockedError(
                    f"another corral is writing it (PID {pid}: {cmd}); wait for it to end, or choose another folder"
                ) from None
            # The previous holder may have removed the file between our open and our lock.
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        self.fd = fd
        self.stale = _read(fd)
        self._save()
        return self

    def register(self, scratch: Path) -> None:
        """Record a scratch folder before it is made (module doc)."""
        self.scratch.append(str(scratch))
        self._save()

    def forget(self, scratch: Path) -> None:
        with contextlib.suppress(ValueError):
            self.scratch.remove(str(scratch))

    def writer(self) -> dict[str, Any]:
        """What a scratch folder's marker says of its writer."""
        return {"pid": os.getpid(), "command": self.command, "lock": str(self.path)}

    def _save(self) -> None:
        assert self.fd is not None
        data = json.dumps({"pid": os.getpid(), "command": self.command, "target": str(self.target), "scratch": self.scratch})
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, data.encode("utf-8", "surrogateescape"), 0)

    def release(self) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            if os.stat(self.path).st_ino == os.fstat(self.fd).st_ino:
                os.unlink(self.path)
        os.close(self.fd)
        self.fd = None

    def clean_leftovers(self, *places: Path, keep: tuple[Path, ...] = ()) -> int:
        """Remove what a killed holder of this lock left (module doc); return how many.
        `places` are the folders to look in; `keep` the scratch folders in use now."""
        kept = {str(k) for k in keep}
        tag = worker_tag(str(self.path))
        mine = (TMP_PREFIX + tag, OLD_PREFIX + tag)
        removed = 0
        roots = [p for p in places if p.is_dir() and not p.is_symlink()]
        for s in self.stale.get("scratch") or []:
            p = Path(s)
            if s not in kept and p.parent in roots and _temporary(p.name) and _remove(p):
                removed += 1
        for root in roots:
            try:
                entries = list(root.iterdir())
            except OSError:
                continue
            for p in entries:
                if str(p) in kept or not _temporary(p.name) or not p.is_dir() or p.is_symlink():
                    continue
                if p.name.startswith(mine) and _remove(p):
                    removed += 1
                    continue
                marker = read_marker(p)
                writer = marker.get("writer") if marker else None
                if isinstance(writer, dict) and writer.get("lock") == str(self.path) and _remove(p):
                    removed += 1
        return removed


def worker_tag(lock_file: str) -> str:
    """What a writer working under another process's lock (a sweep's worker) puts after
    corral's temporary prefixes in its scratch folders' names: the lock's digest."""
    return f"w{Path(lock_file).name[len(LOCK_PREFIX) :]}-"


def and_children(*places: Path) -> list[Path]:
    """`places` and the folders in them (not links, not corral's scratch folders): where a
    killed worker's scratch folders may be. A worker that replaced a run folder of a sweep or
    arena made its scratch folder and trash inside that run folder."""
    found = []
    for place in places:
        found.append(place)
        try:
            entries = list(place.iterdir())
        except OSError:
            continue
        found += [e for e in entries if not _temporary(e.name) and e.is_dir() and not e.is_symlink()]
    return found


def _temporary(name: str) -> bool:
    return name.startswith(TMP_PREFIX) or name.startswith(OLD_PREFIX)


def _remove(p: Path) -> bool:
    if p.is_symlink() or not p.exists():
        return False
    if p.is_dir():
        shutil.rmtree(p, ignore_errors=True)
    else:
        p.unlink(missing_ok=True)
    return not p.exists()


def _read(fd: int) -> dict[str, Any]:
    try:
        raw = os.pread(fd, 1 << 16, 0)
        data = json.loads(raw.decode("utf-8", "surrogateescape")) if raw else {}
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
