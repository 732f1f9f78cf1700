"""All-or-nothing output folders.

`atomic_dir(path)` yields a fresh temporary sibling of `path` to write into. Only when the
block finishes without error is the temporary folder renamed to `path` (replacing a folder
already there at that last moment); on any error it is deleted, so a failed run never
leaves a half-written result folder behind and an earlier good result stays untouched.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary folder next to `path`; move it to `path` if the block succeeds."""
    target = Path(path).absolute()
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"output path exists and is not a folder: {path}")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        yield tmp
        _replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _replace(src: Path, target: Path) -> None:
    """Rename `src` to `target`; an existing `target` is moved aside first, then deleted."""
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
