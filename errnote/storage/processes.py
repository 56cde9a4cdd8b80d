"""Whether a process is running: the one question errnote asks of the process table (lock owners,
index builds, background embeddings)."""

from __future__ import annotations

import os
import sys


def alive(pid: int) -> bool:
    """Is a process with this id running (on this machine)?"""
    if sys.platform == "win32":  # signal 0 there is CTRL_C_EVENT: ask the process table instead
        import ctypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return ctypes.get_last_error() == 5  # access denied: it exists, as another user's
        try:
            code = ctypes.c_ulong()
            return bool(kernel32.GetExitCodeProcess(handle, ctypes.byref(code))) and code.value == 259
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, as another user's
    return True
