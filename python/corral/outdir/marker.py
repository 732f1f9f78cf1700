"""The marker of a corral output folder, `.corral-output.json`, and what "complete" means.

Every folder corral writes carries a marker: the kind of folder (`run`, `report`, `sweep`,
`arena`, `demo`, or a reproduction such as `outcast`), the corral version, the files corral
wrote there, each by name with its size, whether the folder is complete, and who wrote it
(process id, command, the lock it held: `corral.outdir.lock`). corral deletes or replaces
only the files a marker lists by name; it never owns a folder as a whole tree.

A folder is **complete** when its marker says so and every file it lists is there with the
size it lists. The marker is written last, after every file it names has been written and
flushed to disk, so a folder whose writer was killed is either without a marker (a
temporary folder that never got its name), or with a marker that says `complete: false`
(an interrupted replacement: the marker then lists the old and the new files, so that the
next writer may remove all of them), or complete. Sweep resumes, `corral compare` and the
arena all use `is_complete`; a run folder that is not complete is said so, and redone.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

MARKER = ".corral-output.json"
TMP_PREFIX = ".corral-tmp-"
OLD_PREFIX = ".corral-old-"


def read_marker(folder: str | os.PathLike) -> dict | None:
    """A folder's marker as a dict, or None without a (readable, well-formed) marker."""
    try:
        data = json.loads((Path(folder) / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("kind"), str) else None


def marker_problem(folder: str | os.PathLike) -> str | None:
    """Why a marker that exists cannot be used ("cannot be read (...)", "is not a corral
    marker"), or None when there is none or it is well formed."""
    path = Path(folder) / MARKER
    if not (path.exists() or path.is_symlink()):
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        return f"its {MARKER} cannot be read ({e.strerror or e})"
    except ValueError:
        return f"its {MARKER} is not valid JSON"
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        return f"its {MARKER} is not a corral marker"
    return None


def marker_kind(folder: str | os.PathLike) -> str | None:
    """The kind a folder's marker names, or None without a (readable) marker."""
    marker = read_marker(folder)
    return marker["kind"] if marker else None


def safe_relative(name: str) -> bool:
    """A marker entry may only name a file inside its folder (no absolute path, no `..`,
    not the marker itself, no trailing `/`: corral owns files by name, never trees)."""
    if not isinstance(name, str) or not name or name.endswith("/"):
        return False
    p = Path(name)
    return not p.is_absolute() and ".." not in p.parts and name not in (".", MARKER)


def owned_files(folder: str | os.PathLike) -> list[str] | None:
    """The files (relative POSIX paths) a folder's marker says corral wrote; None when the
    marker is missing or lists nothing usable (an older corral's), so that nothing may be
    deleted. Entries of an older corral that named a whole tree (`runs/`) are not kept:
    corral owns files by name only."""
    marker = read_marker(folder)
    files = marker.get("files") if marker else None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return None
    if any(not safe_relative(f) and not f.endswith("/") for f in files):
        return None
    return [f for f in files if safe_relative(f)]


def is_complete(folder: str | os.PathLike, kind: str | None = None) -> bool:
    """Whether `folder` holds a complete corral output (of `kind`, if given): the module doc."""
    marker = read_marker(folder)
    if marker is None or marker.get("complete") is False or (kind is not None and marker["kind"] != kind):
        return False
    files = owned_files(folder)
    if files is None:
        return False
    sizes = marker.get("sizes") if isinstance(marker.get("sizes"), dict) else {}
    for f in files:
        try:
            size = (Path(folder) / f).stat().st_size
        except OSError:
            return False
        if f in sizes and sizes[f] != size:
            return False
    return True


def lists(folder: str | os.PathLike, name: str) -> bool:
    """Whether `folder` is complete and its marker lists the file `name`."""
    return is_complete(folder) and name in (owned_files(folder) or [])


def file_sizes(folder: Path, files: Iterable[str]) -> dict[str, int]:
    return {f: (folder / f).stat().st_size for f in files}


def write_marker(
    folder: str | os.PathLike,
    kind: str,
    files: Iterable[str] = (),
    *,
    complete: bool = True,
    writer: dict[str, Any] | None = None,
    sync: bool = True,
    scratch: Path | None = None,
) -> None:
    """Mark `folder` as a corral output folder of `kind` that holds `files`, atomically (a
    reader sees the old marker or the new one). A complete marker records each file's size;
    with `sync` the files and the marker are flushed to disk first (the marker last)."""
    from .. import __version__

    folder = Path(folder)
    names = sorted(set(files))
    data: dict[str, Any] = {"kind": kind, "corral_version": __version__, "complete": complete, "files": names}
    if complete:
        data["sizes"] = file_sizes(folder, names)
        if sync:
            for f in names:
                fsync_path(folder / f)
    if writer:
        data["writer"] = writer
    write_text_atomic(folder / MARKER, json.dumps(data, indent=1) + "\n", sync=sync, scratch=scratch)


def write_text_atomic(path: Path, text: str, *, sync: bool = False, scratch: Path | None = None) -> None:
    """Write `path` through a temporary file and one rename. The temporary file is made in
    `scratch` (a writer's scratch folder: `corral.outdir.lock`), or beside `path` when that
    is itself inside a scratch folder; it is removed on any error."""
    import tempfile  # not at module level: `corral`'s start-up imports this module

    fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=scratch or path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            if sync:
                f.flush()
                os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if sync:
        fsync_path(path.parent)


def fsync_path(path: Path) -> None:
    """Flush a file (or a folder's entries) to disk. A full disk or an I/O error is raised
    (a file system with delayed allocation reports a full disk only here); a folder that
    cannot be flushed (some file systems refuse) is left as it is."""
    if path.is_symlink():
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        if path.is_dir():
            return
        raise
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT) or not path.is_dir():
            raise OSError(e.errno, e.strerror, str(path)) from None
    finally:
        os.close(fd)
