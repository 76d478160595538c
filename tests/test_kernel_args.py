"""Kernel arguments bound by name: the prototype reader, every wrapper's kernels against the
compiler's own view of their parameters, and the checks a launch makes."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
import pytest

from inpaint.cl import build as build_module
from inpaint.cl.build import (
    SCALAR_DTYPES,
    NamedKernel,
    Param,
    build_options,
    file_prototypes,
    named_kernel,
    parse_prototypes,
)
from inpaint.integral import opencl as integral_cl
from inpaint.methods.criminisi import opencl as criminisi_cl, reference
from inpaint.methods.criminisi.stages import bundle_for
from inpaint.methods.multiscale import opencl as multiscale_cl
from inpaint.resources import data_dir, kernel_source
from inpaint.seam import opencl as seam_cl

KERNELS = data_dir("kernels")
STEMS = sorted(p.relative_to(KERNELS).with_suffix("").as_posix() for p in KERNELS.rglob("*.cl"))
STAGES = ("grey", "front", "valid", "confidence", "priority", "ssd", "reduce", "copy")


# --------------------------------------------------------------------------- the prototype reader

SOURCE = """
// __kernel void in_a_comment(int a) { }
/* __kernel void
   in_a_block_comment(int b) { } */
#define NOTE(x) __kernel void in_a_directive(x)
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void f(__global const SRC_T *restrict src, /* inline */ const int n,
       uint key, unsigned int count, __local int *scratch, global uchar4 *out,
       __global volatile int *flags, float scale, IDX_T index)
{
    __local int fake[4];  /* void g(int) inside a body is no kernel */
}

kernel void __attribute__((vec_type_hint(float4))) empty(void) { }
"""


def test_reads_spaces_types_qualifiers_and_skips_comments_and_attributes():
    protos = parse_prototypes(SOURCE)
    assert list(protos) == ["f", "empty"]
    assert protos["empty"] == ()
    assert protos["f"] == (
        Param("src", "global", "SRC_T*", True), Param("n", "private", "int", True),
        Param("key", "private", "uint", False), Param("count", "private", "uint", False),
        Param("scratch", "local", "int*", False), Param("out", "global", "uchar4*", False),
        Param("flags", "global", "int*", False), Param("scale", "private", "float", False),
        Param("index", "private", "IDX_T", False))


def test_scalar_dtypes_come_from_the_prototype_and_its_macros():
    params = parse_prototypes(SOURCE)["f"]
    dtypes = [p.dtype({"SRC_T": "uchar", "IDX_T": "ushort"}) for p in params]
    assert dtypes == [None, np.int32, np.uint32, np.uint32, None, None, None, np.float32, np.uint16]
    with pytest.raises(ValueError, match="index: unsupported scalar type 'IDX_T'"):
        params[-1].dtype({"SRC_T": "uchar"})


@pytest.mark.parametrize("text, message", [
    ("__kernel void f(__global int *a,\n#if X\n int b\n#endif\n) { }", "preprocessor directive"),
    ("__kernel void f(int a) { }\n__kernel void f(uint a) { }", "two different parameter lists"),
    ("__kernel void (int a) { }", "cannot read the kernel prototype"),
    ("__kernel void f(int) { }", "cannot read the parameter"),
    ("__kernel void f(__global int *a, int b { }", "unbalanced parentheses"),
])
def test_unreadable_prototypes_are_refused(text, message):
    with pytest.raises(ValueError, match=message):
        parse_prototypes(text)


def test_a_kernel_under_if_and_else_with_one_prototype_is_one_kernel():
    text = "#if A\n__kernel void f(int a) { a; }\n#else\n__kernel void f(int a) { }\n#endif\n"
    assert parse_prototypes(text) == {"f": (Param("a", "private", "int", False),)}


@pytest.mark.parametrize("stem", STEMS)
def test_every_kernel_file_is_readable_and_its_names_bind_as_keywords(stem):
    for name, params in file_prototypes(stem).items():
        names = [p.name for p in params]
        assert len(set(names)) == len(names), name
        assert all(n.isidentifier() and n != "wait_for" for n in names), name


# --------------------------------------------------------------------------- every wrapper's kernels

@pytest.fixture(scope="module")
def wrapped(runtime):
    """Every kernel the wrappers fetch, with the kernel files and defines of its program: the
    Criminisi stages (both findBestPatch variants, pruned and not, and the device-resident
    loop), the multiscale fill, every carving kernel and both integral-image methods."""
    made = []

    def recording(rt, sources, name, defines=None):
        knl = named_kernel(rt, sources, name, defines)
        made.append((sources, dict(defines or {}), knl))
        return knl

    with pytest.MonkeyPatch.context() as mp:
        for module in (criminisi_cl, multiscale_cl, seam_cl, integral_cl):
            mp.setattr(module, "named_kernel", recording)
        for stage in (criminisi_cl.Grey, criminisi_cl.Front, criminisi_cl.Valid, criminisi_cl.Confidence,
                      criminisi_cl.Priority, criminisi_cl.Reduce, criminisi_cl.Copy):
            stage(runtime)
        criminisi_cl.FindBestPatch(runtime, 9, "local", True)
        criminisi_cl.FindBestPatch(runtime, 9, "global", False)
        criminisi_cl.Loop(runtime, bundle_for(runtime, STAGES, 9, resident=True))
        for part in (multiscale_cl.PatchMatch, multiscale_cl.Vote, multiscale_cl.Poisson, multiscale_cl.Pyramid,
                     multiscale_cl.Onion, multiscale_cl.GradientVote):
            part(runtime, 2, 4)
        carver = seam_cl.OpenCLCarver(runtime)
        kernels = carver._kernels(has_mask=True, track=True, shift_cost=True)
        for key in ("energy_full", "energy_update", "remove", "update"):
            kernels[key]
        for key in ("walk", "tiled", "argmin", "strips", "rows"):
            kernels[key], kernels[key + "_batch"]
        dup = np.zeros((3, 5), np.uint8)
        dup[:, 2] = 1
        carver.insert(np.arange(15, dtype=np.uint32).reshape(3, 5), dup)
        image = cl_array.to_device(runtime.queue, np.full((9, 7), 3, np.uint8))
        for method in ("block", "naive"):
            plan = integral_cl.IntegralPlan((9, 7), np.uint8, "sum", np.int32, method=method, runtime=runtime)
            plan(image)
        assert plan.max_abs(image) == 3
    return made


def test_every_kernel_of_every_file_has_a_named_wrapper(wrapped):
    declared = {(stem, name) for stem in STEMS for name in file_prototypes(stem)}
    fetched = set()
    for sources, _, knl in wrapped:
        stems = (sources,) if isinstance(sources, str) else sources
        fetched |= {(stem, knl.name) for stem in stems if knl.name in file_prototypes(stem)}
    assert fetched == declared


def _resolved(param, defines):
    base = param.type.rstrip("*")
    return str(defines.get(base, base)) + "*" * (len(param.type) - len(base))


def _reported_name(name):
    """PoCL reports a parameter named like a built-in function (``log``) as ``_cl_log``."""
    return name.removeprefix("_cl_")


SPACES = {cl.kernel_arg_address_qualifier.GLOBAL: "global", cl.kernel_arg_address_qualifier.LOCAL: "local",
          cl.kernel_arg_address_qualifier.CONSTANT: "constant", cl.kernel_arg_address_qualifier.PRIVATE: "private"}


def test_every_wrapped_kernel_matches_the_compilers_argument_info(runtime, wrapped):
    """The parameters a wrapper binds by name, in order, with their address space, type (macros
    resolved), constness and scalar dtype, equal what the OpenCL compiler reports for the very
    program the wrapper runs, built again with ``-cl-kernel-arg-info``."""
    programs = {}
    for sources, defines, knl in wrapped:
        key = (sources, build_options(defines))
        programs.setdefault(key, (sources, defines, {}))[2].setdefault(knl.name, knl)
    info = cl.kernel_arg_info
    checked = set()
    for (sources, options), (_, defines, kernels) in programs.items():
        stems = (sources,) if isinstance(sources, str) else sources
        text = "\n".join(kernel_source(s) for s in stems)
        prg = cl.Program(runtime.context, text).build(options=[*options, "-cl-kernel-arg-info"])
        for name, knl in kernels.items():
            k = cl.Kernel(prg, name)
            assert k.num_args == len(knl.params), name
            for i, (param, dtype) in enumerate(zip(knl.params, knl.dtypes)):
                seen = (_reported_name(k.get_arg_info(i, info.NAME)),
                        SPACES[k.get_arg_info(i, info.ADDRESS_QUALIFIER)], k.get_arg_info(i, info.TYPE_NAME))
                assert seen == (param.name, param.space, _resolved(param, defines)), (name, i)
                if param.pointer:
                    const = bool(k.get_arg_info(i, info.TYPE_QUALIFIER) & cl.kernel_arg_type_qualifier.CONST)
                    assert const == param.const, (name, param.name)
                    assert dtype is None
                else:
                    assert np.dtype(dtype) == np.dtype(SCALAR_DTYPES[seen[2]]), (name, param.name)
            checked.add(name)
    assert checked == {name for stem in STEMS for name in file_prototypes(stem)}


# --------------------------------------------------------------------------- launching by name

def _grey_setup(runtime, rng, h=11, w=13):
    rgb = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    mf = cl.mem_flags
    rgb_buf = cl.Buffer(runtime.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=rgb)
    grey_buf = cl.Buffer(runtime.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.full((h, w), 7, np.uint8))
    want = np.full((h, w), 7, np.uint8)
    reference.grey(rgb, want, (2, 1, w - 3, h))
    knl = named_kernel(runtime, "criminisi/grey", "rgb_to_grey", criminisi_cl.common_defines(runtime))
    args = {"rgba": rgb_buf, "grey": grey_buf, "width": np.int64(w), "x0": 2, "y0": np.int32(1), "w": w - 5,
            "h": h - 1}
    return knl, args, grey_buf, want


def _read(runtime, buf, like):
    out = np.empty_like(like)
    cl.enqueue_copy(runtime.queue, out, buf)
    return out


def test_a_launch_by_name_equals_the_reference(runtime, rng):
    knl, args, grey, want = _grey_setup(runtime, rng)
    knl(runtime.queue, (16, 16), (8, 8), **dict(reversed(list(args.items()))))  # order of the keywords is free
    assert _read(runtime, grey, want).tobytes() == want.tobytes()


def test_a_bound_launch_equals_the_reference(runtime, rng):
    knl, args, grey, want = _grey_setup(runtime, rng)
    kernel, size, local = knl.bind((16, 16), (8, 8), **args)
    assert kernel is knl.kernel
    cl.enqueue_nd_range_kernel(runtime.queue, kernel, size, local)
    assert _read(runtime, grey, want).tobytes() == want.tobytes()


def test_a_partial_launch_equals_the_reference(runtime, rng):
    """Arguments named once (``partial``), the rest at each launch: the same launch, again and again."""
    knl, args, grey, want = _grey_setup(runtime, rng)
    changing = {name: args.pop(name) for name in ("x0", "grey")}
    launch = knl.partial((16, 16), (8, 8), **args)
    for _ in range(2):
        launch(runtime.queue, **changing)
    assert _read(runtime, grey, want).tobytes() == want.tobytes()
    with pytest.raises(TypeError, match="rgb_to_grey: unknown hh"):
        knl.partial((16, 16), (8, 8), hh=1)


@pytest.mark.parametrize("change, message", [
    ({"h": None}, r"rgb_to_grey: missing h \(it takes rgba, grey, width, x0, y0, w, h\)"),
    ({"hh": 3}, "rgb_to_grey: unknown hh"),
    ({"h": None, "height": 3}, "rgb_to_grey: missing h; unknown height"),
    ({"x0": 2 ** 31}, r"argument x0 \(private int\) cannot take 2147483648"),
    ({"width": 13.0}, r"argument width \(private int\) cannot take 13.0"),
    ({"rgba": 5}, r"argument rgba \(global uchar4\*\) cannot take 5"),
])
@pytest.mark.parametrize("how", ["call", "bind", "partial"])
def test_a_wrong_set_of_names_or_an_unconvertible_value_is_refused(runtime, rng, change, message, how):
    knl, args, grey, _ = _grey_setup(runtime, rng)
    for key, value in change.items():
        if value is None:
            del args[key]
        else:
            args[key] = value
    with pytest.raises(TypeError, match=message):
        if how == "call":
            knl(runtime.queue, (16, 16), (8, 8), **args)
        elif how == "bind":
            knl.bind((16, 16), (8, 8), **args)
        else:  # the changed ones named at the launch, the others once
            later = {key: args.pop(key) for key in [*change, "x0"] if key in args}
            knl.partial((16, 16), (8, 8), **args)(runtime.queue, **later)
    runtime.queue.finish()
    assert (_read(runtime, grey, np.empty((11, 13), np.uint8)) == 7).all()  # nothing ran


def test_scalars_take_the_prototypes_types(runtime):
    """uint, int and float parameters get Python and numpy values converted to their own types."""
    text = ("__kernel void put(__global uint *out, const uint key, const int n, const float f)\n"
            "{ out[0] = key; out[1] = (uint)n; out[2] = as_uint(f); }")
    params = parse_prototypes(text)["put"]
    dtypes = [p.dtype() for p in params]
    kernel = cl.Kernel(cl.Program(runtime.context, text).build(), "put")
    kernel.set_scalar_arg_dtypes(dtypes)
    knl = NamedKernel(kernel, "put", params, dtypes)
    out = cl.Buffer(runtime.context, cl.mem_flags.READ_WRITE, 12)
    knl(runtime.queue, (1,), (1,), out=out, key=2 ** 32 - 1, n=np.int64(-5), f=0.1)
    got = _read(runtime, out, np.empty(3, np.uint32))
    assert got.tolist() == [2 ** 32 - 1, np.uint32(2 ** 32 - 5), int(np.float32(0.1).view(np.uint32))]
    with pytest.raises(TypeError, match=r"argument key \(private uint\) cannot take -1"):
        knl(runtime.queue, (1,), (1,), out=out, key=-1, n=0, f=0.0)


def test_a_parameter_named_like_the_launch_keyword_is_refused():
    with pytest.raises(ValueError, match="may not be named 'wait_for'"):
        NamedKernel(None, "k", parse_prototypes("__kernel void k(int wait_for) { }")["k"], [np.int32])


@pytest.mark.parametrize("how", ["call", "partial", "bind"])
def test_a_first_launch_that_compiles_is_told_once(how, monkeypatch):
    """Build listeners hear 'compile' when a kernel's first launch compiles it (PoCL's), and only
    then: the launches after it ask nothing."""
    params = parse_prototypes("__kernel void put(__global uint *out, const int n) { }")["put"]
    launched, asked, heard = [], [], []

    class Fake:
        def __call__(self, *args, **kwargs):
            launched.append(args)

        def set_args(self, *values):
            launched.append(values)

    def compiles():
        asked.append(1)
        return True

    knl = NamedKernel(Fake(), "put", params, [None, np.int32], compiles)
    monkeypatch.setattr(build_module, "_BUILD_LISTENERS", [lambda *event: heard.append(event)])
    for n in range(3):
        if how == "call":
            knl(None, (1,), (1,), out=None, n=n)
        elif how == "bind":
            knl.bind((1,), (1,), out=None, n=n)
        else:
            knl.partial((1,), (1,), out=None)(None, n=n)
    assert len(launched) == 3 and heard == [("compile", ("put",), 0.0)] and asked == [1]
    assert knl.compiles is None


def test_a_first_launch_asks_nothing_without_listeners(monkeypatch):
    params = parse_prototypes("__kernel void put(const int n) { }")["put"]
    knl = NamedKernel(lambda *a, **k: None, "put", params, [np.int32], lambda: pytest.fail("asked"))
    monkeypatch.setattr(build_module, "_BUILD_LISTENERS", [])
    knl(None, (1,), (1,), n=1)
    assert knl.compiles is None
