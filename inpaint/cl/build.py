"""Building OpenCL programs from the kernel files, and telling listeners about it.

Every program is built with ``-cl-fp32-correctly-rounded-divide-sqrt`` and the sources switch
``FP_CONTRACT`` off, so float32 results match numpy bit for bit.  :class:`inpaint.cl.runtime.Runtime`
caches what is built here, once per context.  Build listeners (:func:`add_build_listener`) hear
when a build starts and ends, so a command can tell the user about a first, uncached compilation.

Kernel arguments are bound by name: :func:`parse_prototypes` reads each ``__kernel``
prototype from the source, and :func:`named_kernel` gives a :class:`NamedKernel` whose launches
name every parameter once, with scalars converted to the prototype's types.
"""

from __future__ import annotations

import contextlib
import functools
import operator
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from ..cancel import signals_held
from ..resources import kernel_source
from .kcache import distrust

#: Build options every program gets (exact float32 divide/sqrt, OpenCL C 1.2 subset).
BASE_OPTIONS = ("-cl-fp32-correctly-rounded-divide-sqrt",)

_BUILD_LISTENERS: list[Callable[[str, tuple[str, ...], float], Any]] = []


def add_build_listener(listener: Callable[[str, tuple[str, ...], float], Any]) -> None:
    """Call ``listener(event, sources, seconds)`` around every program build in this process:
    ``event`` is ``'start'`` (``seconds`` 0), then ``'end'`` (the build's wall time) or, when the
    driver could not build the program, ``'failed'`` (the time it took to say so).  A kernel's
    launch that will compile it (PoCL compiles each kernel when its first launch runs, on its own
    thread) calls ``listener('compile', (kernel name,), 0)`` as it is queued; no event says when
    that compile ends (:func:`inpaint.cl.kcache.written_after` does)."""
    _BUILD_LISTENERS.append(listener)


def remove_build_listener(listener: Callable[[str, tuple[str, ...], float], Any]) -> None:
    """Stop calling ``listener`` (see :func:`add_build_listener`)."""
    if listener in _BUILD_LISTENERS:
        _BUILD_LISTENERS.remove(listener)


def _define(value: Any) -> str:
    if isinstance(value, bool):
        return str(int(value))
    return str(value)


def build_options(defines: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    """Build options for ``defines`` (sorted, so equal defines share one program)."""
    opts = list(BASE_OPTIONS)
    for key in sorted(defines or {}):
        opts.append(f"-D{key}={_define(defines[key])}")
    return tuple(opts)


#: The summary line clang writes straight to file descriptor 2 after a failed compile (at a line's
#: end: after a progress display's unfinished line, too); the build error already carries the
#: diagnostics, and the run reports them in its own line.
_COMPILER_SUMMARY = re.compile(rb"(?<!\d)\d+ (?:error|warning)s? generated\.\r?\n\Z")
#: The end of an unfinished line that may still become that summary: held until the line ends.
_MAY_BECOME_SUMMARY = re.compile(rb"(?<!\d)\d+(?: [a-z]*)*\.?\Z")


# The filter of file descriptor 2 is one for the process, however many threads build at once (a
# batch's workers): the first build installs it, the last one to end takes it away.
_FILTER_LOCK = threading.Lock()
_FILTER: dict[str, Any] = {"users": 0, "saved": None, "read": None, "thread": None, "off": False}


def keep_compiler_output() -> None:
    """Leave file descriptor 2 alone during builds in this process: a driver that aborts while it
    compiles says why there, and a process checking a device for another one must pass that on
    (the filter's thread would have no time to)."""
    _FILTER["off"] = True


def _forward(read_end: int, saved: int) -> None:
    """Pass what comes through the pipe on to the real standard error, less the summary lines."""
    held = b""
    while True:
        try:
            chunk = os.read(read_end, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            break
        *lines, held = (held + chunk).split(b"\n")  # the whole lines, then the unfinished one
        out = b"".join(_COMPILER_SUMMARY.sub(b"", line + b"\n") for line in lines)
        tail = _MAY_BECOME_SUMMARY.search(held, max(len(held) - 40, 0))
        cut = tail.start() if tail is not None else len(held)
        out, held = out + held[:cut], held[cut:]
        _write_all(saved, out)
    _write_all(saved, held)


def _flush_stderr() -> None:
    try:
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):
        pass


@contextlib.contextmanager
def _compiler_summary_dropped() -> Iterator[None]:
    """Drop the compiler's summary line ("1 error generated.") from file descriptor 2 meanwhile.

    The driver's compiler writes it there, past Python.  Everything else written there meanwhile
    (the command's own notes from other threads) is passed on as it comes, in order.
    """
    if os.name != "posix":
        yield
        return
    on = True
    with _FILTER_LOCK:  # "off" is read under the lock: a stop's unfilter_stderr is then for good
        if _FILTER["off"]:
            on = False
        elif _FILTER["users"] == 0:
            _flush_stderr()
            try:
                saved = os.dup(2)
            except OSError:  # no standard error at all: nothing to keep clean
                saved = None
            if saved is not None:
                read_end, write_end = os.pipe()
                os.dup2(write_end, 2)
                os.close(write_end)
                thread = threading.Thread(target=_forward, args=(read_end, saved), name="inpaint-stderr",
                                          daemon=True)
                thread.start()
                _FILTER.update(saved=saved, read=read_end, thread=thread)
        if on:
            _FILTER["users"] += 1
    if not on:
        yield
        return
    try:
        yield
    finally:
        with _FILTER_LOCK:
            _FILTER["users"] -= 1
            if _FILTER["users"] == 0 and _FILTER["saved"] is not None:
                _flush_stderr()
                os.dup2(_FILTER["saved"], 2)  # the pipe's last writer: the thread reads to its end
                _FILTER["thread"].join()
                os.close(_FILTER["read"])
                os.close(_FILTER["saved"])
                _FILTER.update(saved=None, read=None, thread=None)


#: Seconds a stop waits for a build on another thread to finish putting the filter in or taking
#: it away, and for the filter to pass on what it holds, before the process's last line.
UNFILTER_WAIT = 1.0


def unfilter_stderr() -> None:
    """Point file descriptor 2 straight at standard error again, for good: the process is about to
    end (a stop signal) and its last line must not wait in the filter.

    A stop ends the process from any thread, while a build on another one may be putting the
    filter in or taking it away: under the filter's lock, no build puts it in again, and what the
    filter holds comes out before the last line.  The wait is bounded: a stop never hangs on it."""
    locked = _FILTER_LOCK.acquire(timeout=UNFILTER_WAIT)
    try:
        _FILTER["off"] = True
        saved, thread = _FILTER["saved"], _FILTER["thread"]
        if saved is not None:
            with contextlib.suppress(OSError):  # (not locked: a build may be closing it)
                os.dup2(saved, 2)  # the pipe's only writer: the thread reads to its end
            if locked:
                thread.join(UNFILTER_WAIT)
    finally:
        if locked:
            _FILTER_LOCK.release()


def _write_all(fd: int, data: bytes) -> None:
    while data:
        try:
            data = data[os.write(fd, data):]
        except OSError:  # a closed or full standard error: as if written there
            return


def _build_afresh(cl: Any, context: Any, text: str, options: list[str], exc: Exception) -> Any:
    """Build once more where no cache can answer: into a fresh, empty pyopencl cache folder, from
    a source text the driver's own cache has never seen.  A truncated or corrupt cache entry fails
    a build, or yields a program without its kernels, that is otherwise fine.  A build that fails
    again is a real failure, and the first error is raised."""
    fresh = tempfile.mkdtemp(prefix="inpaint-kernels-")
    # A declaration, not a comment: PoCL keys its cache on the preprocessed source.
    unseen = f"{text}\n__constant uint inpaint_built_afresh_{os.getpid()}_{time.time_ns()} = 0u;\n"
    try:
        prg = cl.Program(context, unseen).build(options=options, cache_dir=fresh)
    except cl.Error:
        raise exc from None
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    distrust()
    warnings.warn(RuntimeWarning("the OpenCL kernel cache gave an unusable program; the kernels were rebuilt "
                                 f"without it ({' '.join(str(exc).split())[:120]})"))
    return prg


def build(context: Any, sources: Sequence[str], defines: Mapping[str, Any] | None = None,
          failed: Exception | None = None) -> tuple[Any, float]:
    """Build ``kernels/<stem>.cl`` of every stem of ``sources`` as one program.

    Parameters
    ----------
    context : pyopencl.Context
    sources : sequence of str
        Kernel file stems, e.g. ``('common/hash', 'multiscale/patchmatch')``, concatenated in order.
    defines : mapping, optional
        ``-D`` build-time specialisation.
    failed : Exception, optional
        The error a program built before from these sources gave (a missing kernel): build
        afresh, past every cache, and raise ``failed`` if that fails too.

    Returns
    -------
    program : pyopencl.Program
    seconds : float
        The build's wall time (or the driver's cache load).
    """
    import pyopencl as cl

    sources = tuple(sources)
    with signals_held():  # the listeners' threads (a timer) are started held too
        for listener in list(_BUILD_LISTENERS):
            listener("start", sources, 0.0)
        t = time.perf_counter()
        event = "failed"
        try:
            text = "\n".join(kernel_source(s) for s in sources)
            options = list(build_options(defines))
            with _compiler_summary_dropped():
                if failed is not None:
                    prg = _build_afresh(cl, context, text, options, failed)
                else:
                    try:
                        prg = cl.Program(context, text).build(options=options)
                    except cl.Error as exc:
                        prg = _build_afresh(cl, context, text, options, exc)
            event = "end"
        finally:
            seconds = time.perf_counter() - t
            for listener in list(_BUILD_LISTENERS):
                listener(event, sources, seconds)
    return prg, seconds


# -- kernel prototypes and arguments bound by name ------------------------------------------------

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_KERNEL = re.compile(r"\b(?:__kernel|kernel)\b")
_ATTRIBUTE = re.compile(r"\s*__attribute__\s*\(")
_VOID = re.compile(r"\s*void\b")
_NAME = re.compile(r"\s*([A-Za-z_]\w*)\s*\(")
_TOKEN = re.compile(r"[A-Za-z_]\w*|\*|\S")
_SPACES = {"__global": "global", "global": "global", "__local": "local", "local": "local",
           "__constant": "constant", "constant": "constant", "__private": "private", "private": "private"}
_IGNORED = frozenset({"restrict", "__restrict", "volatile", "__read_only", "__write_only", "read_only",
                      "write_only"})
_UNSIGNED = {"unsigned char": "uchar", "unsigned short": "ushort", "unsigned int": "uint",
             "unsigned": "uint", "unsigned long": "ulong", "signed char": "char"}
#: numpy dtypes of OpenCL C's scalar argument types.
SCALAR_DTYPES = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
                 "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
                 "float": np.float32, "double": np.float64}
#: Keyword of :meth:`NamedKernel.__call__` that no kernel parameter may be named.
_RESERVED = ("wait_for",)


@dataclass(frozen=True)
class Param:
    """One parameter of a ``__kernel`` prototype.

    Attributes
    ----------
    name : str
    space : {'global', 'local', 'constant', 'private'}
        Address space (``'private'``: passed by value).
    type : str
        The C type without qualifiers or address space, ``*`` per pointer level, as written
        (a macro such as ``SRC_T`` stays; see :meth:`dtype`), e.g. ``'uchar4*'``, ``'int'``.
    const : bool
        Declared ``const``: the data pointed to for a pointer, the value itself for a scalar.
    """

    name: str
    space: str
    type: str
    const: bool

    @property
    def pointer(self) -> bool:
        """Whether the parameter is a pointer (a buffer or local memory)."""
        return self.type.endswith("*")

    def dtype(self, defines: Mapping[str, Any] | None = None) -> Any:
        """The numpy dtype a scalar is converted to, ``None`` for a pointer; a type named by a
        macro of ``defines`` is resolved through it."""
        if self.pointer or self.space != "private":
            return None
        ctype = str((defines or {}).get(self.type, self.type))
        try:
            return SCALAR_DTYPES[_UNSIGNED.get(ctype, ctype)]
        except KeyError:
            raise ValueError(f"kernel parameter {self.name}: unsupported scalar type {ctype!r}") from None


def _closing(text: str, start: int) -> int:
    """The index of the parenthesis closing the one at ``text[start]``."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError(f"unbalanced parentheses after {text[max(0, start - 40):start + 1]!r}")


def _skip_attributes(text: str, pos: int) -> int:
    while (m := _ATTRIBUTE.match(text, pos)) is not None:
        pos = _closing(text, m.end() - 1) + 1
    return pos


def _split_params(body: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return [p.strip() for p in parts]


def _param(kernel: str, decl: str) -> Param:
    while (at := decl.find("__attribute__")) >= 0:
        decl = decl[:at] + " " + decl[_closing(decl, decl.index("(", at)) + 1:]
    tokens = _TOKEN.findall(decl)
    if len(tokens) < 2 or not tokens[-1].isidentifier():
        raise ValueError(f"kernel {kernel}: cannot read the parameter {decl!r}")
    space, const, stars, words = "private", False, 0, []
    for tok in tokens[:-1]:
        if tok in _SPACES:
            space = _SPACES[tok]
        elif tok == "const":
            const = const or stars == 0
        elif tok == "*":
            stars += 1
        elif tok in _IGNORED:
            continue
        elif tok.isidentifier() and not stars:
            words.append(tok)
        else:
            raise ValueError(f"kernel {kernel}: cannot read the parameter {decl!r}")
    if not words:
        raise ValueError(f"kernel {kernel}: the parameter {decl!r} has no type")
    ctype = " ".join(words)
    return Param(tokens[-1], space, _UNSIGNED.get(ctype, ctype) + "*" * stars, const)


def parse_prototypes(text: str) -> dict[str, tuple[Param, ...]]:
    """The parameters of every ``__kernel`` function of OpenCL C source ``text``, by name.

    Comments and ``__attribute__((...))`` are skipped; macros are kept as written (a type
    macro is resolved by :meth:`Param.dtype`).  A kernel declared twice (under ``#if`` and
    ``#else``) must have one prototype.

    Raises
    ------
    ValueError
        A prototype this reader cannot take apart, for one a preprocessor directive inside the
        parameter list, or two different prototypes under one name.
    """
    text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    found: dict[str, tuple[Param, ...]] = {}
    for m in _KERNEL.finditer(text):
        line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        if line.lstrip().startswith("#"):
            continue  # inside a directive, e.g. a macro's body
        pos = _skip_attributes(text, m.end())
        void = _VOID.match(text, pos)
        name = void and _NAME.match(text, _skip_attributes(text, void.end()))
        if name is None:
            raise ValueError(f"cannot read the kernel prototype at {text[m.start():m.start() + 60]!r}")
        kernel = name.group(1)
        body = text[name.end():_closing(text, name.end() - 1)]
        if "#" in body:
            raise ValueError(f"kernel {kernel}: a preprocessor directive inside its parameter list")
        decls = _split_params(body)
        params = () if decls in ([""], ["void"]) else tuple(_param(kernel, d) for d in decls)
        if found.setdefault(kernel, params) != params:
            raise ValueError(f"kernel {kernel} is declared with two different parameter lists")
    return found


@functools.cache
def file_prototypes(stem: str) -> Mapping[str, tuple[Param, ...]]:
    """:func:`parse_prototypes` of ``kernels/<stem>.cl``, read once per process."""
    return MappingProxyType(parse_prototypes(kernel_source(stem)))


def prototype(sources: str | Sequence[str], name: str) -> tuple[Param, ...]:
    """The parameters of kernel ``name``, declared in exactly one file of ``sources`` (stems)."""
    stems = (sources,) if isinstance(sources, str) else tuple(sources)
    found = [file_prototypes(s)[name] for s in stems if name in file_prototypes(s)]
    if len(found) != 1:
        files = ", ".join(f"kernels/{s}.cl" for s in stems)
        raise ValueError(f"kernel {name} is declared {len(found)} times in {files}; expected once")
    return found[0]


class NamedKernel:
    """A built kernel whose arguments are bound by the parameter names of its prototype.

    Scalars are converted to the prototype's types by pyopencl, whose argument dtypes are set
    once when the kernel is fetched (:func:`named_kernel`).  Every launch must name each
    parameter exactly once.

    Parameters
    ----------
    kernel : pyopencl.Kernel
        With its scalar argument dtypes set to ``[p.dtype(defines) for p in params]``.
    name : str
    params : tuple of Param
    dtypes : sequence of numpy dtype or None
        The scalar dtypes the kernel was given, one per parameter.
    compiles : callable, optional
        Says, at the first launch, whether that launch compiles the kernel (PoCL's do, once a
        machine): the build listeners then hear a ``'compile'`` event.
    """

    __slots__ = ("_pick", "compiles", "dtypes", "kernel", "name", "names", "params")

    def __init__(self, kernel: Any, name: str, params: tuple[Param, ...], dtypes: Sequence[Any],
                 compiles: Callable[[], bool] | None = None):
        self.kernel, self.name, self.params = kernel, name, params
        #: Until the first launch: a function that says whether that launch compiles the kernel
        #: (see :func:`add_build_listener`); None after it.
        self.compiles = compiles
        self.names = tuple(p.name for p in params)
        self.dtypes = tuple(dtypes)
        clash = [n for n in self.names if n in _RESERVED]
        if clash:
            raise ValueError(f"kernel {name}: a parameter may not be named {clash[0]!r}")
        # the values in the prototype's order, as a tuple, in one call (a launch's hot path)
        names = self.names
        self._pick = operator.itemgetter(*names) if len(names) > 1 else lambda args: tuple(args[n] for n in names)

    def _values(self, args: Mapping[str, Any]) -> tuple[Any, ...]:
        try:
            values = self._pick(args)
        except KeyError:
            values = None
        if values is None or len(args) != len(self.names):
            missing = [n for n in self.names if n not in args]
            extra = sorted(set(args) - set(self.names))
            said = "; ".join(part for part in (missing and f"missing {', '.join(missing)}",
                                               extra and f"unknown {', '.join(extra)}") if part)
            raise TypeError(f"kernel {self.name}: {said} (it takes {', '.join(self.names)})")
        return values

    def _explain(self, values: Sequence[Any], exc: Exception) -> None:
        """Raise a TypeError naming the argument that pyopencl could not convert, if one is."""
        for param, dtype, value in zip(self.params, self.dtypes, values):
            if dtype is None:
                bad = isinstance(value, (int, float, np.number))
            elif np.dtype(dtype).kind in "iu":
                info = np.iinfo(dtype)
                bad = (not isinstance(value, (int, np.integer)) or isinstance(value, bool)
                       or not info.min <= value <= info.max)
            else:
                bad = not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool)
            if bad:
                raise TypeError(f"kernel {self.name}: argument {param.name} ({param.space} {param.type}) "
                                f"cannot take {value!r}") from exc

    def _first_launch(self) -> None:
        compiles, self.compiles = self.compiles, None
        if _BUILD_LISTENERS and compiles():
            for listener in list(_BUILD_LISTENERS):
                listener("compile", (self.name,), 0.0)

    def __call__(self, queue: Any, global_size: Sequence[int], local_size: Sequence[int] | None, /, *,
                 wait_for: Sequence[Any] | None = None, **args: Any) -> Any:
        """Enqueue one launch with the arguments named as in the prototype; returns its event."""
        values = self._values(args)
        if self.compiles is not None:
            self._first_launch()
        try:
            return self.kernel(queue, global_size, local_size, *values, wait_for=wait_for)
        except Exception as exc:
            self._explain(values, exc)
            raise

    def partial(self, global_size: Sequence[int], local_size: Sequence[int] | None, /,
                **fixed: Any) -> Callable[..., Any]:
        """Launches with the arguments ``fixed`` named once: the function returned takes the queue
        and the other arguments by name, and enqueues a launch (which sets every argument, as any
        launch does).  A launch that names only what changes is cheaper: a fill's hundred-odd
        launches each named over thirty arguments anew."""
        names = self.names
        unknown = sorted(set(fixed) - set(names))
        if unknown:
            raise TypeError(f"kernel {self.name}: unknown {', '.join(unknown)} (it takes {', '.join(names)})")
        slots = tuple((i, n) for i, n in enumerate(names) if n not in fixed)
        template = [fixed.get(n) for n in names]
        kernel = self.kernel

        def launch(queue: Any, /, **args: Any) -> Any:
            values = template.copy()
            try:
                for i, n in slots:
                    values[i] = args[n]
            except KeyError:
                values = None
            if values is None or len(args) != len(slots):
                self._values({**fixed, **args})  # raises, naming what is missing or unknown
            if self.compiles is not None:
                self._first_launch()
            try:
                return kernel(queue, global_size, local_size, *values)
            except Exception as exc:
                self._explain(values, exc)
                raise

        return launch

    def bind(self, global_size: Sequence[int], local_size: Sequence[int] | None, /,
             **args: Any) -> tuple[Any, Sequence[int], Sequence[int] | None]:
        """Set the named arguments once; returns ``(kernel, global size, local size)`` for
        :func:`pyopencl.enqueue_nd_range_kernel`, which launches it again without setting them."""
        values = self._values(args)
        if self.compiles is not None:
            self._first_launch()
        try:
            self.kernel.set_args(*values)
        except Exception as exc:
            self._explain(values, exc)
            raise
        return self.kernel, global_size, local_size

    def get_work_group_info(self, param: Any, device: Any) -> Any:
        """The built kernel's work-group information (:meth:`pyopencl.Kernel.get_work_group_info`)."""
        return self.kernel.get_work_group_info(param, device)

    def __repr__(self) -> str:
        return f"<NamedKernel {self.name}({', '.join(self.names)})>"


def named_kernel(runtime: Any, sources: str | Sequence[str], name: str,
                 defines: Mapping[str, Any] | None = None) -> NamedKernel:
    """Kernel ``name`` of the program of ``sources`` and ``defines`` on ``runtime``, its
    arguments bound by name: :meth:`inpaint.cl.runtime.Runtime.kernel` fetches it once, with
    the scalar dtypes read from its prototype."""
    params = prototype(sources, name)
    dtypes = [p.dtype(defines) for p in params]
    return NamedKernel(runtime.kernel(sources, name, dtypes, defines), name, params, dtypes,
                       lambda: runtime.compiles_at_launch(sources, name, defines))
