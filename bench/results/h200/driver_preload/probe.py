"""Does listing the OpenCL platforms on a thread (through ctypes, which lets go of Python's lock)
while Python imports shorten the start?

Usage: ``python probe.py MODE [DEVICE]``, MODE ``plain`` (pyopencl alone), ``warm`` (the loader
of pyopencl's wheel lists the platforms on a thread first) or ``warmctx`` (that thread also makes
a context on DEVICE, thrown away).  Prints the moments (ms from the start) as JSON.  A measure
made before the product's version (``inpaint/cl/preload.py``), which loads pyopencl's compiled
module instead, so that the drivers its wheel names by file name alone are found too.
"""

import ctypes
import ctypes.util
import importlib.util
import json
import os
import sys
import threading
import time

T0 = time.perf_counter()
mode = sys.argv[1]
want = sys.argv[2] if len(sys.argv) > 2 else "NVIDIA"
marks: dict = {}


def ms() -> float:
    return round((time.perf_counter() - T0) * 1000, 1)


def loader() -> ctypes.CDLL:
    spec = importlib.util.find_spec("pyopencl")
    os.environ["PYOPENCL_HOME"] = os.path.dirname(os.path.abspath(spec.origin))
    libs = os.path.join(os.path.dirname(spec.origin), ".libs")
    for name in os.listdir(libs) if os.path.isdir(libs) else ():
        if name.startswith("libOpenCL"):
            return ctypes.CDLL(os.path.join(libs, name))
    return ctypes.CDLL(ctypes.util.find_library("OpenCL"))


def warm() -> None:
    lib = loader()
    n = ctypes.c_uint()
    lib.clGetPlatformIDs(0, None, ctypes.byref(n))
    ids = (ctypes.c_void_p * n.value)()
    lib.clGetPlatformIDs(n, ids, None)
    marks["warm_platforms"] = ms()
    if mode == "warmctx":
        for p in ids:
            name = ctypes.create_string_buffer(256)
            lib.clGetPlatformInfo(ctypes.c_void_p(p), 0x0902, 256, name, None)
            if want.lower() in name.value.decode().lower() or want == "pocl":
                count = ctypes.c_uint()
                lib.clGetDeviceIDs(ctypes.c_void_p(p), ctypes.c_ulong(0xFFFFFFFF), 0, None, ctypes.byref(count))
                devs = (ctypes.c_void_p * count.value)()
                lib.clGetDeviceIDs(ctypes.c_void_p(p), ctypes.c_ulong(0xFFFFFFFF), count, devs, None)
                err = ctypes.c_int()
                lib.clCreateContext.restype = ctypes.c_void_p
                lib.clCreateContext(None, 1, devs, None, None, ctypes.byref(err))  # kept for the process
                marks["warm_ctx"], marks["ctx_err"] = ms(), err.value
    marks["warm_done"] = ms()


def main() -> None:
    thread = None
    if mode != "plain":
        thread = threading.Thread(target=warm, daemon=True)
        thread.start()
    import numpy  # noqa: F401 - the command's imports' stand-in
    import PIL.Image  # noqa: F401
    marks["numpy"] = ms()
    import pyopencl as cl
    marks["pyopencl"] = ms()
    time.sleep(0.05)  # the rest of the command's modules and its argument checks
    if thread is not None:
        thread.join()
    marks["joined"] = ms()
    platforms = cl.get_platforms()
    marks["platforms"] = ms()
    dev = [d for p in platforms for d in p.get_devices() if want.lower() in (p.name + p.vendor).lower()][0]
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx)
    marks["context"] = ms()
    prg = cl.Program(ctx, "__kernel void k(__global int*a){a[get_global_id(0)]=1;}").build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    prg.k(queue, (16,), None, buf)
    queue.finish()
    marks["first_kernel"] = ms()
    print(json.dumps({"mode": mode, **marks}))


main()
