"""Stage files written behind the pipeline.

A stage file of a large model is hundreds of MB (resnet50's float.mlir:
207 MB; float weights are hex text), and writing it waits for the disk once
the kernel stops buffering dirty pages (about 0.25 s per 100 MB here). The
exporter's float.mlir is not needed by the next stage (the library takes the
text and the weights by reference): a thread writes it. The library writes
the later stages' files itself and reads them back (_capi's output_file and
path sources). `write` starts a thread that writes a file's bytes to a
temporary name and renames it into place (a file is whole or absent, and an
earlier file of that name, or a hard link to it, is never changed); `wait`
waits for a file's write, so that the library reads it whole; `flush` waits
for every write and raises the first error. Every public function that
writes stage files flushes before it returns, so the working directory is
complete when the caller sees it.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import threading
from typing import Dict, Iterable, List, Tuple, Union

# path -> (the thread writing it, the thread's error if it fails)
_pending: Dict[pathlib.Path, Tuple[threading.Thread, List[BaseException]]] = {}


def _write_now(path: pathlib.Path, data: Union[bytes, Iterable[bytes]],
               errors: List[BaseException]) -> None:
    partial = path.with_name(path.name + ".partial")
    try:
        with open(partial, "wb") as file:
            for chunk in ([data] if isinstance(data, bytes) else data):
                file.write(chunk)
        os.replace(partial, path)
    except BaseException as error:  # reported by flush(), on the caller's thread
        errors.append(error)
        partial.unlink(missing_ok=True)


def write(path: pathlib.Path, data: Union[bytes, Iterable[bytes]]) -> None:
    """Starts writing `data` (bytes, or the pieces an iterable gives, which
    never need to be in memory at once) to `path` on a thread."""
    path = pathlib.Path(path)
    wait(path)  # one write of a path at a time, in order
    errors: List[BaseException] = []
    thread = threading.Thread(target=_write_now, args=(path, data, errors),
                              name=f"qfx: writing {path.name}", daemon=False)
    _pending[path] = (thread, errors)
    thread.start()


def wait(path: pathlib.Path) -> None:
    """Waits for the write of `path`, if one is under way; raises its error."""
    pending = _pending.pop(pathlib.Path(path), None)
    if pending is None:
        return
    thread, errors = pending
    thread.join()
    if errors:
        raise errors[0]


def flush(raise_errors: bool = True) -> None:
    """Waits for every write; raises the first error after all have ended
    (if `raise_errors`)."""
    first = None
    for path in list(_pending):
        try:
            wait(path)
        except BaseException as error:
            first = first or error
    if first is not None and raise_errors:
        raise first


def link(source: pathlib.Path, target: pathlib.Path) -> None:
    """`target` as a copy of the stage file `source` (once written): a hard
    link where the file system allows (stage files are replaced, never
    changed in place), else a copy."""
    wait(source)
    target = pathlib.Path(target)
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
