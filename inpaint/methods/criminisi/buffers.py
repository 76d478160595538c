"""Where each Criminisi array is fresh: on the host, in a device buffer, or both."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import numpy as np


class Buffers:
    """Arrays on the host and, for device stages, in device buffers; tracks freshness.

    An array moves only when a stage on the other side reads it, so a split pipeline copies
    what the split requires and nothing more.
    """

    def __init__(self, host: dict[str, np.ndarray], rt: Any, device_names: set[str], stats: Any,
                 written_first: Iterable[str] = ()):
        self.host = host
        self.rt = rt
        self.stats = stats
        self.dev: dict[str, Any] = {}
        self.fresh = {name: "host" for name in host}  # 'host', 'device' or 'both'
        if rt is not None:
            import pyopencl as cl

            from ...cl.runtime import new_buffer

            self._cl = cl
            mf = cl.mem_flags
            for name in device_names:
                arr = host[name]
                if name in written_first:  # the device writes it before reading it: nothing to upload
                    self.dev[name] = new_buffer(rt.context, mf.READ_WRITE, arr.nbytes)
                    self.fresh[name] = "device"
                else:
                    self.dev[name] = new_buffer(rt.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=arr)
                    self.fresh[name] = "both"

    def need(self, names: Iterable[str], side: str) -> None:
        """Make ``names`` fresh on ``side`` (``'host'`` or ``'device'``), copying what is stale."""
        for name in names:
            where = self.fresh[name]
            if where == side or where == "both":
                continue
            if side == "host":
                # Wait for the queued kernels first: their run time is theirs (event times),
                # not the copy's.
                self.rt.queue.finish()
            t = time.perf_counter()
            if side == "host":
                self._cl.enqueue_copy(self.rt.queue, self.host[name], self.dev[name], is_blocking=True)
            else:
                self._cl.enqueue_copy(self.rt.queue, self.dev[name], self.host[name], is_blocking=True)
            self.stats.transfer_seconds += time.perf_counter() - t
            self.fresh[name] = "both"

    def wrote(self, names: Iterable[str], side: str) -> None:
        """Record that ``side`` wrote ``names``: the other side's copy is stale."""
        for name in names:
            self.fresh[name] = side
