"""OpenCL runtime: device choice, one context per device, programs built once.

Everything that runs a kernel goes through a :class:`Runtime`:

* **Device choice** is one chain: explicit ``device`` argument, then the
  ``PYOPENCL_CTX`` environment variable, then the profile's ``device_type``, then the
  best device (GPUs first, then most compute units).
* **Programs** are built once per (context, source files, ``-D`` options)
  (:mod:`inpaint.cl.build` builds them) and **kernels** fetched once per program with their
  scalar argument types declared (:meth:`Runtime.kernel`), so hot loops never rebuild or
  re-look-up anything.  A fill asks for all its kernel files as one *bundle* (one program),
  because each program build or cache load costs tens of milliseconds at start-up.
* **Work-groups** are sized from the effective limits, ``min(profile, device)``, by one
  helper (:meth:`inpaint.cl.profiles.Limits.work_group`).
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import os
import re
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from .. import install_hint
from ..cancel import requested, signals_held
from ..errors import BuildFailure, FallbackWarning, OpenCLUnavailable, OutOfMemory
from ..limits import address_space_limit, address_space_used
from . import preload
from .build import build, build_options
from .diagnose import MAX_REASON, describe_failure, reason
from .kcache import (
    kernel_compiled,
    load_pyopencl,
    load_refusal,
    program_folder,
    unusable_reason,
)
from .profiles import Limits, Profile, load_profile


class _PyOpenCL:
    """:mod:`pyopencl`, imported at its first use, after the kernel caches are prepared
    (:func:`inpaint.cl.kcache.load_pyopencl`), so that importing this module loads nothing.

    pyopencl is optional (the numpy backend runs without it): this stand-in is then false, and
    its attributes raise :class:`OpenCLUnavailable`.
    """

    def __getattr__(self, name: str) -> Any:
        module = load_pyopencl()
        if module is None:
            raise OpenCLUnavailable(f"pyopencl is not installed; {PYOPENCL_HINT}")
        return getattr(module, name)

    def __bool__(self) -> bool:
        return load_pyopencl() is not None

    def __repr__(self) -> str:
        return "<pyopencl, imported at first use>"


cl = _PyOpenCL()

T = TypeVar("T")

INSTALL_HINT = f"install an OpenCL driver, or the portable CPU driver with \"{install_hint('pocl')}\" (pyopencl + PoCL)"
#: What to install where pyopencl itself is missing (a driver alone would not do).
PYOPENCL_HINT = (f"install it with \"{install_hint('opencl')}\" for an OpenCL driver you have, or with "
                 f"\"{install_hint('pocl')}\" together with the portable CPU driver")


def _loadable() -> None:
    """Raise :class:`OpenCLUnavailable` where loading OpenCL's drivers would end the process."""
    refused = load_refusal()
    if refused is not None:
        raise OpenCLUnavailable(refused)


def _platforms() -> list[Any]:
    _loadable()
    if not cl:
        raise OpenCLUnavailable(f"pyopencl is not installed; {PYOPENCL_HINT}")
    preload.wait()  # the loader's first listing, if the command started it, ends first
    try:
        with signals_held():  # the driver may start its threads here
            platforms = cl.get_platforms()
    except cl.Error as exc:  # e.g. PLATFORM_NOT_FOUND_KHR when no ICD is registered
        raise OpenCLUnavailable(f"no OpenCL platform found ({exc}); {INSTALL_HINT}") from None
    if not platforms:
        raise OpenCLUnavailable(f"no OpenCL platform found; {INSTALL_HINT}")
    return platforms


def all_devices() -> list[tuple[int, int, Any]]:
    """Every OpenCL device as ``(platform index, device index, device)``.

    Raises
    ------
    OpenCLUnavailable
        If pyopencl or every driver is missing.
    """
    found = []
    for pi, platform in enumerate(_platforms()):
        try:
            devices = platform.get_devices()
        except cl.Error:
            continue  # a platform with no devices of any type
        for di, device in enumerate(devices):
            found.append((pi, di, device))
    if not found:
        raise OpenCLUnavailable(f"OpenCL platforms exist but none has a device; {INSTALL_HINT}")
    return found


def device_spec(device: Any) -> str:
    """``'P:D'``, the platform and device indices that name ``device`` (as ``--device`` takes
    them); they name the same device in another process of the same environment.

    Raises
    ------
    OpenCLUnavailable
        ``device`` is not among :func:`all_devices`.
    """
    for pi, di, dev in all_devices():
        if dev == device:
            return f"{pi}:{di}"
    raise OpenCLUnavailable(f"{device.name.strip()} is not among this machine's OpenCL devices")


def opencl_available() -> bool:
    """Whether at least one OpenCL device can be used."""
    try:
        all_devices()
    except OpenCLUnavailable:
        return False
    return True


def _is_gpu(device: Any) -> bool:
    return bool(device.type & cl.device_type.GPU)


def _describe(devices: Iterable[tuple[int, int, Any]]) -> str:
    return "; ".join(f"{pi}:{di} {d.name.strip()} ({d.platform.name.strip()})" for pi, di, d in devices)


def _match(spec: str, devices: list[tuple[int, int, Any]], source: str) -> Any:
    """Resolve a device spec: ``'P:D'``, ``'P'``, ``'gpu'``/``'cpu'`` or a name substring."""
    spec = spec.strip()
    parts = spec.split(":")
    if all(p.isdigit() for p in parts) and 1 <= len(parts) <= 2:
        pi = int(parts[0])
        di = int(parts[1]) if len(parts) == 2 else 0
        for p, d, dev in devices:
            if p == pi and d == di:
                return dev
    elif spec.lower() in ("gpu", "cpu"):
        want_gpu = spec.lower() == "gpu"
        typed = [t for t in devices if _is_gpu(t[2]) == want_gpu]
        if typed:
            return _best(typed)
    else:
        named = [t for t in devices if spec.lower() in t[2].name.lower() or spec.lower() in t[2].platform.name.lower()]
        if named:
            return named[0][2]
    raise OpenCLUnavailable(
        f"{source} {spec!r} matches no OpenCL device; available: {_describe(devices)} "
        "(give 'PLATFORM:DEVICE', 'gpu', 'cpu' or part of a device name; `inpaint devices` lists them)")


def _best(devices: list[tuple[int, int, Any]]) -> Any:
    return _ordered(devices)[0][2]


def _ordered(devices: list[tuple[int, int, Any]], prefer: str | None = None) -> list[tuple[int, int, Any]]:
    # The profile's device type first, then GPUs, then most compute units; stable on platform/device order.
    def key(t: tuple[int, int, Any]) -> tuple:
        gpu = _is_gpu(t[2])
        return (prefer is not None and gpu != (prefer == "gpu"), not gpu, -int(t[2].max_compute_units), t[0], t[1])
    return sorted(devices, key=key)


# Devices whose driver failed to compile the kernels in this process: cl_device_id -> (cause, fix, log).
_CANNOT_BUILD: dict[int, tuple[str, str, str]] = {}
_CANNOT_BUILD_LOCK = threading.Lock()

#: The error codes of a driver that cannot compile (as opposed to one out of memory).
_BUILD_ERRORS = ("BUILD_PROGRAM_FAILURE", "COMPILER_NOT_AVAILABLE", "INVALID_BUILD_OPTIONS",
                 "LINK_PROGRAM_FAILURE", "LINKER_NOT_AVAILABLE", "INVALID_BINARY")


def cannot_build(device: Any) -> tuple[str, str] | None:
    """``(cause, fix)`` when ``device`` failed to compile the kernels in this process, else None."""
    with _CANNOT_BUILD_LOCK:
        found = _CANNOT_BUILD.get(int(device.int_ptr))
    return None if found is None else found[:2]


def _failure(device: Any, more: str = "") -> BuildFailure:
    with _CANNOT_BUILD_LOCK:
        cause, fix, log = _CANNOT_BUILD[int(device.int_ptr)]
    name = f"{device.name.strip()} ({device.platform.name.strip()}, {device.platform.version.strip()})"
    return BuildFailure(reason(cause, fix, more), details=f"{name}:\n{log}")


def is_build_error(exc: BaseException) -> bool:
    """Whether a pyopencl error says that the driver cannot compile the program."""
    code = getattr(exc, "code", None)
    if not cl or not isinstance(exc, cl.Error) or code is None:
        return False
    return any(code == getattr(cl.status_code, name, None) for name in _BUILD_ERRORS)


def mark_cannot_build(device: Any, exc: BaseException) -> BuildFailure:
    """Remember that ``device`` cannot compile (``exc``: its driver's build error), so that no later
    choice in this process takes it; returns the error to raise."""
    with _CANNOT_BUILD_LOCK:
        _CANNOT_BUILD.setdefault(int(device.int_ptr), describe_failure(device, exc))
    return _failure(device)


def preference(profile: Profile | None = None) -> list[tuple[int, int, Any]]:
    """Every device in the order a choice without ``--device`` tries them: the profile's device
    type first, then GPUs, then most compute units (those that cannot compile included)."""
    prefer = profile.device_type if profile is not None and profile.device_type in ("gpu", "cpu") else None
    return _ordered(all_devices(), prefer)


def same_hardware(a: Any, b: Any) -> bool:
    """Whether two devices are one piece of hardware offered twice: every CPU device of two
    platforms is the machine's CPU (two PoCL builds, or PoCL and a vendor's runtime, both offer
    it); GPUs of two platforms match by name and memory."""
    if a.int_ptr == b.int_ptr:
        return True
    if a.platform.int_ptr == b.platform.int_ptr:
        return False
    if not _is_gpu(a) and not _is_gpu(b):
        return True
    return a.name.strip() == b.name.strip() and int(a.global_mem_size) == int(b.global_mem_size)


def select_device(device: str | Any | None = None, profile: Profile | None = None) -> Any:
    """Choose an OpenCL device by the chain: explicit → ``PYOPENCL_CTX`` → profile → best.

    Without an explicit choice, a device that failed to compile the kernels in this process is
    passed over for the next one (see :func:`open_runtime`).

    Parameters
    ----------
    device : str, pyopencl.Device or None
        ``'P:D'`` indices, ``'gpu'``, ``'cpu'``, or part of a device name.
    profile : Profile, optional
        Its ``device_type`` (``'gpu'``/``'cpu'``) is preferred when nothing more explicit is given.

    Raises
    ------
    OpenCLUnavailable
        If no driver or no matching device exists (the message lists the devices).
    BuildFailure
        If no device is named and none can compile the kernels.
    """
    _loadable()
    if cl and isinstance(device, cl.Device):
        return device
    if device:
        return _match(str(device), all_devices(), "device")
    env = os.environ.get("PYOPENCL_CTX", "").strip()
    if env:
        return _match(env, all_devices(), "PYOPENCL_CTX")
    ordered = preference(profile)
    for _, _, dev in ordered:
        if cannot_build(dev) is None:
            return dev
    others = len(ordered) - 1
    more = f" ({others} other device{'s' if others != 1 else ''} cannot either)" if others else ""
    first = _failure(ordered[0][2], more)
    raise BuildFailure(str(first), details="\n\n".join(_failure(d).details for _, _, d in ordered))


def explicit_choice(device: Any = None) -> bool:
    """Whether the user named the device (``device`` or ``PYOPENCL_CTX``): such a choice is kept,
    never replaced by the next device."""
    return bool(device) or bool(os.environ.get("PYOPENCL_CTX", "").strip())


def one_queue_at_a_time(device: Any) -> bool:
    """Whether ``device``'s kernels must run from one queue at a time in a process.

    PoCL's CPU drivers before version 6 find the loaded code of a kernel that has finished by the
    kernel's hash and work-group size only, so when one kernel runs from two queues at once (two
    jobs) on launches of different sizes or offsets, a finished launch can release the other's
    entry: its count reaches zero while it runs, and a build with assertions (Debian's) aborts the
    process (``pocl_release_dlhandle_cache: Assertion 'found->ref_count > 0' failed``).  PoCL 3.1
    counts each launch twice and releases it once, so its counts never reach zero; 6.0 releases
    the very entry a launch took.
    """
    if "Portable Computing Language" not in device.platform.name or not device.type & cl.device_type.CPU:
        return False
    found = re.search(r"PoCL (\d+)\.(\d+)", device.platform.version)
    if found is None:
        return True
    version = (int(found.group(1)), int(found.group(2)))
    return version < (6, 0) and version != (3, 1)


# One lock per device whose kernels run from one queue at a time: cl_device_id -> lock.
_TURNS: dict[int, threading.Lock] = {}
_TURNS_LOCK = threading.Lock()


# The runtimes whose queues the process finishes on its way out (see _finish_at_exit).
_LIVE: weakref.WeakSet[Any] = weakref.WeakSet()
_LIVE_LOCK = threading.Lock()
_HOOKED = False


def _finish_at_exit(rt: Any) -> None:
    """Let ``rt``'s queued commands finish before the process ends.  A process that ends (an
    error reported, a script done) while PoCL still compiles a queued kernel on its own thread
    crashes in the exit handlers that tear the compiler down.  A stopped run (Ctrl-C) does not
    wait: it ends at once."""
    global _HOOKED
    with _LIVE_LOCK:
        if not _HOOKED:
            atexit.register(_finish_queues)
            _HOOKED = True
        _LIVE.add(rt)


def abandon_queued_work() -> None:
    """Let the process end without finishing the queues' work: for a command that ends by
    ``os._exit`` after an error (:func:`inpaint.cli.guard.end_process`), which neither needs that
    work nor runs the driver's exit handlers that finishing it protects.  Finishing it can end
    the process worse than the error it reported: PoCL links a queued kernel when it runs it,
    and aborts when the memory for that is gone (an address-space limit)."""
    with _LIVE_LOCK:
        _LIVE.clear()


def _finish_queues() -> None:
    with _LIVE_LOCK:
        live = list(_LIVE)
        _LIVE.clear()
    if requested():
        return
    for rt in live:
        with contextlib.suppress(Exception):
            rt.queue.finish()


class Packed(NamedTuple):
    """Buffers made together (:meth:`Runtime.uploads`, :meth:`Runtime.cleared`)."""

    #: Each part's buffer: a sub-buffer of one shared buffer, or (a large upload) one of its own.
    parts: list[Any]
    #: Where each part's bytes lie, as (buffer, offset in bytes).  (PoCL 3.1 crashes copying a
    #: rectangle from a sub-buffer: such a copy reads the buffer named here.)
    homes: list[tuple[Any, int]]
    #: The buffers to keep as long as the parts are used (a pooled buffer goes back to the pool
    #: when dropped).
    keep: list[Any]


#: Uploads of at least this many bytes take a copy of their own (:meth:`Runtime.uploads`): packing
#: them would cost the host a copy of their bytes for no launch saved.
PACK_MAX = 1 << 20


class Runtime:
    """An OpenCL context and in-order queue on one device, with program/kernel caches.

    Parameters
    ----------
    device : str or pyopencl.Device, optional
        See :func:`select_device`.
    profile : str, pathlib.Path or Profile, optional
        Caps applied to the device's limits (default ``native``: no caps).
    profiling : bool
        Create the queue with profiling enabled so per-stage device times can be read.  Some
        drivers take longer to queue each launch on such a queue (the NVIDIA driver 14.5 us
        against 8.6 us), which a loop of short launches notices.

    share : Runtime, optional
        Another thread's runtime on the same device and profile: this one uses its context and
        its programs (built once for both), with a queue and kernel objects of its own.  Jobs on
        several threads then share one context: a GPU can run their kernels side by side (those
        of several contexts take turns on it), and each program is built or loaded once.

    Notes
    -----
    A queue is not thread-safe: one thread (the app's worker) must own a runtime.
    """

    def __init__(self, device: Any = None, profile: Any = None, profiling: bool = True,
                 share: Runtime | None = None):
        if share is not None:
            self.profile: Profile = share.profile
            self.device = share.device
            self.limits: Limits = share.limits
            self.context = share.context
            with signals_held():
                self.queue = cl.CommandQueue(self.context, properties=self._queue_properties(profiling))
            self._programs, self._programs_lock = share._programs, share._programs_lock
            self._folders = share._folders
        else:
            self.profile = load_profile(profile)
            self.device = select_device(device, self.profile)
            if cannot_build(self.device) is not None:
                raise _failure(self.device)
            if unusable_reason() and "Portable Computing Language" in self.device.platform.name:
                raise OpenCLUnavailable(unusable_reason())
            self.limits = self.profile.effective_limits(self.device)
            with signals_held():  # ... or here
                self.context = cl.Context([self.device])
                self.queue = cl.CommandQueue(self.context, properties=self._queue_properties(profiling))
            with _ALLOC_LIMITS_LOCK:
                _ALLOC_LIMITS[int(self.context.int_ptr)] = (self.limits.max_mem_alloc_size, self.name)
            # the programs of the context, shared with the runtimes that share it: (sources, options) -> program
            self._programs: dict[tuple[tuple[str, ...], tuple[str, ...]], Any] = {}
            self._programs_lock = threading.Lock()
            # PoCL's cache folder of each program (see compiles_at_launch), keyed as the programs
            self._folders: dict[tuple[tuple[str, ...], tuple[str, ...]], str | None] = {}
        self.profiling = profiling
        _finish_at_exit(self)
        self._kernels: dict[tuple[int, str], Any] = {}
        self._made: dict[Hashable, Any] = {}  # what jobs made from the kernels (see made)
        self._retired: list[Any] = []
        self._lock = threading.Lock()
        #: Whether :meth:`buffer` takes buffers from a pool: on a GPU.
        self.pooled = self.is_gpu
        self._pool: Any = None  # device memory kept for the next buffers (see buffer)
        self._uploads: collections.deque = collections.deque()  # copies from host arrays still queued (see upload)
        #: Wall time spent building or loading programs on this runtime.
        self.build_seconds = 0.0

    @staticmethod
    def _queue_properties(profiling: bool) -> Any:
        return cl.command_queue_properties.PROFILING_ENABLE if profiling else 0

    def turn(self) -> contextlib.AbstractContextManager[Any]:
        """Hold the device for one job's kernels, where its driver runs them from one queue at a time
        in a process (:func:`one_queue_at_a_time`): jobs on several threads, each with its own
        runtime, then take turns; elsewhere they run together (nothing is held)."""
        if not one_queue_at_a_time(self.device):
            return contextlib.nullcontext()
        with _TURNS_LOCK:
            return _TURNS.setdefault(int(self.device.int_ptr), threading.Lock())

    @property
    def name(self) -> str:
        """Human-readable device and platform name."""
        return f"{self.device.name.strip()} ({self.device.platform.name.strip()})"

    @property
    def is_gpu(self) -> bool:
        """Whether the device is a GPU."""
        return _is_gpu(self.device)

    def program(self, source: str | Sequence[str], defines: Mapping[str, Any] | None = None) -> Any:
        """The built program for ``kernels/<source>.cl`` with ``defines``, built once per
        runtime (see :func:`inpaint.cl.build.build`); a sequence of stems builds their sources as
        one program (a bundle)."""
        sources = (source,) if isinstance(source, str) else tuple(source)
        key = (sources, build_options(defines))
        with self._programs_lock:
            prg = self._programs.get(key)
            if prg is None:
                since = time.time()
                try:
                    prg, seconds = build(self.context, sources, defines)
                except Exception as exc:
                    if not is_build_error(exc):
                        raise
                    raise mark_cannot_build(self.device, exc) from None
                self.build_seconds += seconds
                self._programs[key] = prg
                self._note_folder(key, since)
        return prg

    def _note_folder(self, key: tuple[tuple[str, ...], tuple[str, ...]], since: float) -> None:
        # (PoCL's CPU drivers keep a kernel compiled at its first launch as a shared object there)
        if "Portable Computing Language" in self.device.platform.name and self.device.type & cl.device_type.CPU:
            self._folders[key] = program_folder(since)

    def compiles_at_launch(self, source: str | Sequence[str], name: str,
                           defines: Mapping[str, Any] | None = None) -> bool:
        """Whether the first launch of kernel ``name`` of the program :meth:`program` built from
        ``source`` and ``defines`` compiles the kernel: PoCL compiles each kernel when its first
        launch runs (seconds, once a machine), as its cache folder shows."""
        sources = (source,) if isinstance(source, str) else tuple(source)
        folder = self._folders.get((sources, build_options(defines)))
        return folder is not None and not kernel_compiled(folder, name)

    def kernel(self, source: str | Sequence[str], name: str, scalars: Sequence[Any | None],
               defines: Mapping[str, Any] | None = None) -> Any:
        """A kernel fetched once, with scalar argument dtypes declared.

        Parameters
        ----------
        source : str or sequence of str
            Kernel file stem under ``kernels/``, or the stems of a bundle (see :meth:`program`).
        name : str
            Kernel function name.
        scalars : sequence of numpy dtype or None
            One entry per argument: a dtype for scalars, ``None`` for buffers/local memory.
        defines : mapping, optional
            ``-D`` build-time specialisation.
        """
        prg = self.program(source, defines)
        key = (id(prg), name)
        with self._lock:
            knl = self._kernels.get(key)
            if knl is None:
                try:
                    knl = cl.Kernel(prg, name)
                except cl.Error as exc:  # e.g. INVALID_KERNEL_NAME from a damaged cache entry
                    prg = self._build_afresh(source, defines, exc)
                    knl = cl.Kernel(prg, name)
                    key = (id(prg), name)
                knl.set_scalar_arg_dtypes(list(scalars))
                self._kernels[key] = knl
        return knl

    def made(self, key: Hashable, make: Callable[[], T]) -> T:
        """``make()``, called once per runtime and ``key``: what a job builds from this runtime's
        kernels (a family's wrappers, with their work-group sizes), which the next job on it takes
        as it is, rebuilding, re-reading and re-formatting nothing.  The objects belong to the
        runtime, and so to the one thread that owns its queue (a batch's workers have a runtime
        each); ``make`` must not call :meth:`made`."""
        got = self._made.get(key)
        if got is None:
            got = self._made[key] = make()
        return got

    def buffer(self, nbytes: int) -> Any:
        """A device buffer of ``nbytes`` (contents undefined), refused first by :func:`check_room`.

        On a GPU it comes from this runtime's pool (:class:`pyopencl.tools.MemoryPool`): a buffer
        dropped by a level or a fill is reused by the next one of its size.  There, creating a buffer
        and the driver's allocation at its first use cost about a tenth of a millisecond each, which
        a fill of hundreds of buffers notices.  The queue is in order, so a reused buffer's next
        writer runs after its last reader.  A CPU device's memory is the host's, and a buffer costs
        little there: it is not kept.
        """
        nbytes = max(int(nbytes), 1)
        check_room(self.context, nbytes)
        if not self.pooled:
            return cl.Buffer(self.context, cl.mem_flags.READ_WRITE, nbytes)
        if self._pool is None:
            from pyopencl.tools import ImmediateAllocator, MemoryPool

            self._pool = MemoryPool(ImmediateAllocator(self.queue))
        return self._pool.allocate(nbytes)

    def upload(self, array: Any) -> Any:
        """A device buffer (:meth:`buffer`) holding ``array``, copied by the queue without waiting.

        A buffer created from host memory (``COPY_HOST_PTR``) makes the host wait for the copy: on an
        NVIDIA driver a 12 MP photo's 36 MB held the host 20 ms, where a queued copy takes 0.2 ms
        and the copy itself runs beside the host's work.  ``array`` must not change until the queue
        has run the copy: the fills upload arrays they never write again.
        """
        buf = self.buffer(array.nbytes)
        if array.nbytes:
            self.hold(cl.enqueue_copy(self.queue, buf, array, is_blocking=False))
        return buf

    def uploads(self, arrays: Sequence[Any]) -> Packed:
        """Device buffers holding ``arrays`` (each C-contiguous and not empty): those under
        :data:`PACK_MAX` bytes are the parts (sub-buffers) of one buffer, filled by one queued copy,
        the others are uploaded each (:meth:`upload`).

        A job's lists and maps cross the bus together: on an NVIDIA driver each queued copy from
        host memory held the device for tens of microseconds and the host for more, which a fill of
        small levels notices.  ``arrays`` must not change until the copies ran.
        """
        import numpy as np

        small = [i for i, a in enumerate(arrays) if a.nbytes < PACK_MAX]
        offsets, total = self._layout([arrays[i].nbytes for i in small])
        parts: list[Any] = [None] * len(arrays)
        homes: list[tuple[Any, int]] = [(None, 0)] * len(arrays)
        keep = []
        if small:
            whole = self.buffer(total)  # (refused, where it must be, before the host's copy is made)
            packed = np.empty(total, np.uint8)
            for i, at in zip(small, offsets):
                packed[at:at + arrays[i].nbytes] = arrays[i].reshape(-1).view(np.uint8)
            self.hold(cl.enqueue_copy(self.queue, whole, packed, is_blocking=False))
            keep.append(whole)
            for i, at, part in zip(small, offsets, self._parts(whole, offsets, [arrays[i].nbytes for i in small])):
                parts[i], homes[i] = part, (whole, at)
        for i, a in enumerate(arrays):
            if parts[i] is None:
                parts[i] = self.upload(a)
                homes[i] = (parts[i], 0)
        return Packed(parts, homes, keep)

    def cleared(self, sizes: Sequence[int]) -> Packed:
        """Device buffers of ``sizes`` bytes, zeroed by one queued fill: the parts of one buffer
        (see :meth:`uploads`)."""
        import numpy as np

        offsets, total = self._layout(sizes)
        whole = self.buffer(total)
        cl.enqueue_fill_buffer(self.queue, whole, np.uint32(0), 0, total)
        parts = self._parts(whole, offsets, sizes)
        return Packed(parts, [(whole, at) for at in offsets], [whole])

    def _layout(self, sizes: Sequence[int]) -> tuple[list[int], int]:
        # a sub-buffer starts at a multiple of the device's base address alignment (given in bits)
        align = max(int(self.device.mem_base_addr_align) // 8, 4)
        offsets, total = [], 0
        for size in sizes:
            offsets.append(total)
            total += round_up(max(int(size), 1), align)
        return offsets, total

    @staticmethod
    def _parts(whole: Any, offsets: Sequence[int], sizes: Sequence[int]) -> list[Any]:
        base = whole if isinstance(whole, cl.Buffer) else cl.Buffer.from_int_ptr(whole.int_ptr, retain=True)
        return [base.get_sub_region(at, max(int(size), 1)) for at, size in zip(offsets, sizes)]

    def hold(self, copied: Any) -> None:
        """Keep ``copied``, the event of a queued copy from host memory, until the queue has run it.

        The event holds the host array, and dropping it before the copy is done waits for the copy
        with the interpreter held (pyopencl's nanny event): a job that a stop signal unwinds would
        then wait for every kernel queued before, and no other thread of the process could run
        meanwhile, not even the one that ends a stopped run.
        """
        pending = self._uploads
        while pending and pending[0].command_execution_status == cl.command_execution_status.COMPLETE:
            pending.popleft()  # (the queue is in order: these are done)
        pending.append(copied)

    def finished(self) -> None:
        """At the end of a job: wait for the queue, then let the pool (:meth:`buffer`) keep at most
        :data:`POOL_KEEP` bytes of unused device memory for the next job, and at most an eighth of
        the device's memory (a phone's GPU shares the phone's)."""
        self.queue.finish()
        self._uploads.clear()
        pool, keep = self._pool, min(POOL_KEEP, self.limits.global_mem_size // 8)
        if pool is not None and pool.managed_bytes - pool.active_bytes > keep:
            pool.free_held()

    def _build_afresh(self, source: str | Sequence[str], defines: Mapping[str, Any] | None,
                      exc: Exception) -> Any:
        # Called with the kernels' lock held: the program a cache gave lacks a kernel; later
        # lookups of this program's kernels get the new one.
        sources = (source,) if isinstance(source, str) else tuple(source)
        key = (sources, build_options(defines))
        with self._programs_lock:
            old = self._programs[key]
            since = time.time()
            prg, seconds = build(self.context, sources, defines, failed=exc)
            self.build_seconds += seconds
            self._programs[key] = prg
            self._note_folder(key, since)
        # The kernel cache is keyed by id(): the old program must outlive it.
        self._retired.append(old)
        return prg

    def work_group_info(self, knl: Any) -> dict[str, int]:
        """The built kernel's local memory use and maximum work-group size on this device."""
        info = cl.kernel_work_group_info
        return {
            "local_mem_size": int(knl.get_work_group_info(info.LOCAL_MEM_SIZE, self.device)),
            "work_group_size": int(knl.get_work_group_info(info.WORK_GROUP_SIZE, self.device)),
        }


# get_runtime's runtimes: (thread, device, profile, PYOPENCL_CTX, profiling) -> runtime.
_RUNTIMES: dict[tuple[Any, ...], Runtime] = {}
_RUNTIMES_LOCK = threading.Lock()


def _forget_ended() -> None:
    """Forget the runtimes of threads that have ended (called with :data:`_RUNTIMES_LOCK` held):
    their queues, kernels and pooled buffers go once nothing else holds them.  Of a context that
    no live thread's runtime uses, one runtime stays (where its device can still compile), so that
    a thread started later shares that context and its programs instead of building them again."""
    kept = {int(rt.context.int_ptr) for (thread, *_), rt in _RUNTIMES.items() if thread.is_alive()}
    for key, rt in list(_RUNTIMES.items()):
        if key[0].is_alive():
            continue
        context = int(rt.context.int_ptr)
        if context in kept or cannot_build(rt.device) is not None:
            del _RUNTIMES[key]
        else:
            kept.add(context)


def get_runtime(device: Any = None, profile: Any = None, profiling: bool = True) -> Runtime:
    """A cached :class:`Runtime` for ``(device, profile, profiling)`` in the calling thread.

    Caching per thread keeps the rule that one thread owns a queue; the runtimes of several
    threads for the same device and profile share one context and its programs (``share``).  A
    cached runtime whose device has since failed to compile gives way to one on the next device.
    The runtimes of threads that have ended are forgotten at the next call (a new thread, even one
    given an ended thread's id, opens its own), except one on each context, for the next to share.
    """
    prof = load_profile(profile)
    same = (str(device) if device is not None else None, str(prof.path) if prof.path else prof.name,
            os.environ.get("PYOPENCL_CTX", ""))
    key = (threading.current_thread(), *same, bool(profiling))
    with _RUNTIMES_LOCK:
        _forget_ended()
        rt = _RUNTIMES.get(key)
        usable = [r for k, r in _RUNTIMES.items() if k[1:4] == same and cannot_build(r.device) is None]
        if rt is not None and cannot_build(rt.device) is not None and not explicit_choice(device):
            rt = None
        if rt is None:
            rt = Runtime(device, prof, profiling=bool(profiling), share=usable[0] if usable else None)
            _RUNTIMES[key] = rt
    return rt


#: How much slower the numpy backend is than PoCL on two cores, as whole commands on the bundled
#: examples (docs/BENCHMARKS.md, "Whole commands"), for the warning that names the fallback.
NUMPY_SLOWDOWN = "about 15 times slower"

_WARNED: set[str] = set()
_WARNED_LOCK = threading.Lock()


def warn_once(text: str) -> None:
    """A :class:`~inpaint.errors.FallbackWarning`, once per process for each text (a batch repeats
    the same choice)."""
    import warnings

    with _WARNED_LOCK:
        if text in _WARNED:
            return
        _WARNED.add(text)
    warnings.warn(text, FallbackWarning, stacklevel=4)


def buffer_too_large(rt: Runtime, nbytes: int) -> str | None:
    """Why a buffer of ``nbytes`` cannot be made on ``rt``'s device, in one line, or None: past the
    device's largest single buffer (``CL_DEVICE_MAX_MEM_ALLOC_SIZE``, capped by the profile)."""
    limit = rt.limits.max_mem_alloc_size
    if nbytes <= limit:
        return None
    capped = rt.profile.max_mem_alloc_size is not None and limit == rt.profile.max_mem_alloc_size
    return (f"this job needs an OpenCL buffer of {_megabytes(nbytes)}, and {rt.name} takes at most "
            f"{_megabytes(limit)}{f' (profile {rt.profile.name})' if capped else ''}")


def _megabytes(nbytes: int) -> str:
    return f"{nbytes / (1 << 20):.0f} MB" if nbytes >= 1 << 20 else f"{nbytes} bytes"


def check_fits(rt: Runtime, largest: int, backend: str, device: Any = None) -> bool:
    """Whether a job whose largest buffer takes ``largest`` bytes fits ``rt``'s device; when it
    does not, ``backend='auto'`` without a named device gets one warning (the job runs on numpy)
    and False.

    Raises
    ------
    OutOfMemory
        It does not fit, and OpenCL or this device was asked for.
    """
    problem = buffer_too_large(rt, largest)
    if problem is None:
        return True
    if backend == "opencl" or explicit_choice(device):
        raise OutOfMemory(f"{problem}; use a smaller image, or --backend numpy")
    warn_once(f"{problem}; using numpy, {NUMPY_SLOWDOWN}")
    return False


def open_runtime(backend: str, device: Any = None, profile: Any = None, profiling: bool = True,
                 prepare: Callable[[Runtime], T] | None = None,
                 largest: int = 0) -> tuple[Runtime | None, T | None]:
    """The runtime a job runs on, with its kernels built: ``(runtime, prepare(runtime))``.

    "Can compile" is part of the choice.  ``prepare(rt)`` builds the job's own programs (no
    extra compile); when the driver cannot compile them, the device is remembered as unusable
    for this process and, unless the user named it, the next device in the order of
    :func:`preference` is tried.  With none left, ``backend='auto'`` returns ``(None, None)``
    (numpy) with one warning naming the cause and the fix, and ``'opencl'`` raises.

    Parameters
    ----------
    backend : {'auto', 'opencl', 'numpy'}
        ``'numpy'`` returns ``(None, None)`` at once.
    device, profile, profiling
        As for :func:`get_runtime`.
    prepare : callable, optional
        Builds what the job needs on a runtime; its result is returned.
    largest : int
        The bytes of the job's largest buffer, checked against the device's largest before
        anything is built (:func:`check_fits`).

    Raises
    ------
    OpenCLUnavailable
        ``backend='opencl'`` and no usable device, or a named device (``device`` or
        ``PYOPENCL_CTX``) that matches none or cannot be used.
    BuildFailure
        ``backend='opencl'``, or a named device, and the driver cannot compile the kernels.
    OutOfMemory
        ``backend='opencl'``, or a named device, and the job's largest buffer is too large for it.
    """
    if backend == "numpy":
        return None, None
    passed: list[Any] = []
    while True:
        try:
            rt = get_runtime(device, profile, profiling)
        except OpenCLUnavailable as exc:
            if backend == "opencl" or explicit_choice(device):  # a named device is never replaced
                raise
            text = str(exc)
            if isinstance(exc, BuildFailure):  # 'CAUSE; FIX' -> 'CAUSE; using numpy, ...; FIX'
                cause, _, fix = text.partition("; ")
                # A warning may be longer than an error line: it also says what runs instead.
                text = reason(cause, f"using numpy, {NUMPY_SLOWDOWN}; {fix}", limit=MAX_REASON + 60)
            else:
                text = f"OpenCL unavailable, using the numpy backend: {text}"
            warn_once(text)
            return None, None
        if not check_fits(rt, largest, backend, device):
            return None, None
        try:
            made = prepare(rt) if prepare is not None else None
        except BuildFailure:
            if explicit_choice(device):
                raise
            passed.append(rt.device)
            continue
        for dev in passed:
            failed = cannot_build(dev)
            if failed is not None:
                warn_once(f"{failed[0]}; using {rt.name} instead")
        return rt, made


def runtime_for(backend: str, device: Any = None, profile: Any = None, profiling: bool = True) -> Runtime | None:
    """The runtime a job should use, before any build: ``None`` for ``backend='numpy'``, or for
    ``'auto'`` when OpenCL is unavailable (with a RuntimeWarning).  :func:`open_runtime` also
    builds the job's kernels and passes over a device that cannot compile them.

    Raises
    ------
    OpenCLUnavailable
        ``backend='opencl'`` and no usable device.
    """
    return open_runtime(backend, device, profile, profiling)[0]


#: The most unused device memory a runtime's buffer pool keeps between fills (:meth:`Runtime.finished`).
POOL_KEEP = 1 << 30

#: What a buffer may map beyond its size (the driver's alignment and bookkeeping).
BUFFER_SLACK = 16 << 20

# The largest buffer of each runtime's context, and its device's name: context pointer -> (bytes, name).
_ALLOC_LIMITS: dict[int, tuple[int, str]] = {}
_ALLOC_LIMITS_LOCK = threading.Lock()


def check_room(context: Any, nbytes: int) -> None:
    """Refuse a buffer of ``nbytes`` that the address-space limit (``ulimit -v``) leaves no room
    for, on a device whose memory is the host's (a CPU device).  PoCL does not return an error
    when it cannot allocate a buffer's memory: it aborts the process (a failed assertion in
    Debian's build, a crash in pip's).

    A buffer past the device's largest (``CL_DEVICE_MAX_MEM_ALLOC_SIZE``, capped by the profile)
    is refused too, where pyopencl would raise its own ``INVALID_BUFFER_SIZE``.

    Raises
    ------
    inpaint.errors.OutOfMemory
        The buffer does not fit under the limit.
    """
    with _ALLOC_LIMITS_LOCK:
        largest = _ALLOC_LIMITS.get(int(context.int_ptr))
    if largest is not None and nbytes > largest[0]:
        raise OutOfMemory(f"this job needs an OpenCL buffer of {_megabytes(nbytes)}, and {largest[1]} takes at most "
                          f"{_megabytes(largest[0])}; use a smaller image, or --backend numpy")
    limit = address_space_limit()
    if limit is None:
        return
    used = address_space_used()
    if used is None or used + nbytes + BUFFER_SLACK <= limit:
        return
    if not all(dev.type & cl.device_type.CPU for dev in context.devices):
        return
    raise OutOfMemory(f"the address-space limit (ulimit -v: {limit >> 20} MB) leaves no room for this job's "
                      "OpenCL buffers; raise it, use a smaller image, or --backend numpy")


def new_buffer(context: Any, flags: Any, size: int = 0, hostbuf: Any = None) -> Any:
    """``pyopencl.Buffer(context, flags, size, hostbuf)``, refused first by :func:`check_room`."""
    check_room(context, size or (hostbuf.nbytes if hostbuf is not None else 0))
    if hostbuf is None:
        return cl.Buffer(context, flags, size)
    return cl.Buffer(context, flags, size, hostbuf)


def round_up(n: int, m: int) -> int:
    """Smallest multiple of ``m`` that is >= ``n``."""
    return ((int(n) + m - 1) // m) * m


def event_time(ev: Any) -> float:
    """Device execution time of one profiled event, in seconds.

    ``get_profiling_info`` directly: ``ev.profile.end`` goes through pyopencl's attribute
    lookup, about 15 times slower, which the device-resident loop (ten events an iteration)
    noticed."""
    return (ev.get_profiling_info(cl.profiling_info.END) - ev.get_profiling_info(cl.profiling_info.START)) * 1e-9


def event_seconds(events: Iterable[Any]) -> float:
    """Sum of the device execution times of profiled ``events`` in seconds."""
    return sum(event_time(ev) for ev in events)

