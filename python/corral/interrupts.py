"""Ctrl-C and SIGTERM stop a command with its message and exit status, wherever they arrive.

`install()` (the command line's entry point calls it) makes SIGTERM raise `Terminated`, a
KeyboardInterrupt, so that every rollback written for Ctrl-C (`corral.outdir`) runs for it
too, and Ctrl-C raise KeyboardInterrupt. Python runs a signal's handler between two bytecodes
of the main thread, and those may belong to a callback whose exceptions Python ignores (a
weakref callback of the import system, a finalizer): there the exception is printed as
"Exception ignored in ... Traceback" and lost, and the command goes on to exit 0 (a `corral
compare` sent SIGTERM while it imported did). So the `sys.unraisablehook` installed here
takes such an interrupt and has its signal sent again a moment later by a helper thread; a
handler that runs while that hook runs asks for the same instead of raising in it. The
signal thus stops the command at a statement of its own.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

# How long the helper thread waits before sending a signal again: the main thread leaves
# the callback meanwhile.
AGAIN_AFTER_S = 0.01


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that a command stops as on Ctrl-C: its output
    rolled back or left complete (`corral.outdir`), a message, exit status 143."""


_in_hook = 0  # > 0 while `_hook` runs: a handler must not raise then
_again = None  # the helper thread's queue of signals to send again


def install() -> None:
    """Handle SIGTERM and SIGINT as the module doc says (main thread only)."""
    signal.signal(signal.SIGTERM, _on_term)
    signal.signal(signal.SIGINT, _on_int)
    sys.unraisablehook = _hook


def _on_term(signum, frame) -> None:
    if _in_hook:
        send_again(signum)
        return
    raise Terminated


def _on_int(signum, frame) -> None:
    if _in_hook:
        send_again(signum)
        return
    raise KeyboardInterrupt


def _hook(unraisable) -> None:
    global _in_hook
    _in_hook += 1
    try:
        exc = unraisable.exc_value
        if isinstance(exc, KeyboardInterrupt):
            send_again(signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)
        else:
            sys.__unraisablehook__(unraisable)
    finally:
        _in_hook -= 1


def send_again(signum: int) -> None:
    """Have the helper thread send `signum` to this process in a moment."""
    global _again
    if _again is None:
        import queue

        _again = queue.SimpleQueue()
        threading.Thread(target=_sender, args=(_again,), name="corral-signal-again", daemon=True).start()
    _again.put(signum)


def _sender(again) -> None:
    while True:
        signum = again.get()
        time.sleep(AGAIN_AFTER_S)
        os.kill(os.getpid(), signum)
