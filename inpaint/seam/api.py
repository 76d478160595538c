"""Content-aware resizing by seam carving: the public :func:`resize`."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import cancel
from ..cl import BACKENDS
from ..errors import SeamError
from ..masks import mask_from_array
from . import reference as ref

#: Memory a resize needs per pixel of its largest size (the image, its energy and cost tables,
#: the masks and the index maps), checked before the work.
CARVE_BYTES_PER_PIXEL = 64

ENERGIES = ("backward", "forward")
ORDERS = ("width-first", "height-first")
#: Largest fraction of the current size inserted in one enlarging step (seams must not bunch).
ENLARGE_STEP = 0.5


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise SeamError("{name} must be one of {allowed}; got {value!r}", name=name,
                        allowed=", ".join(repr(a) for a in allowed), value=value)
    return value


def _as_image(image: Any) -> tuple[np.ndarray, int]:
    arr = np.asarray(image)
    if arr.dtype != np.uint8:
        raise SeamError("image must be uint8 (0..255), got dtype {dtype}", dtype=arr.dtype)
    if arr.ndim == 2:
        return np.repeat(arr[..., None], 3, axis=2), 0
    if arr.ndim != 3 or arr.shape[2] not in (3, 4):
        raise SeamError("image must be (H, W), (H, W, 3) or (H, W, 4); got shape {shape}", shape=arr.shape)
    return arr, arr.shape[2]


def _as_mask(name: str, mask: Any, shape: tuple[int, int]) -> np.ndarray | None:
    if mask is None:
        return None
    arr = np.asarray(mask)
    if arr.shape != shape:
        if arr.ndim == 2:
            raise SeamError("{" + name + "} is {mw}x{mh} but the image is {w}x{h}", mw=arr.shape[1], mh=arr.shape[0],
                            w=shape[1], h=shape[0])
        raise SeamError("{" + name + "} has shape {shape}; it must be (height, width) = ({h}, {w})", shape=arr.shape,
                        h=shape[0], w=shape[1])
    return mask_from_array(arr, name)


def _size(name: str, value: Any, current: int, allow_large: bool) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise SeamError("{name} must be a positive integer, got {value!r}", name=name, value=value)
    value = int(value)
    if value <= 0:
        raise SeamError("{name} must be a positive integer, got {value}", name=name, value=value)
    if value > 2 * current and not allow_large:
        raise SeamError("{name}={value} is more than twice the current {current}; pass {allow_large} to "
                        "enlarge that much", name=name, value=value, current=current)
    return value


def _plan(n: int, batch: int | None) -> Callable[[int, int], int]:
    """Strips per pass: 1 (exact) or up to ``batch``, never more than half the width."""
    def plan(width: int, removed: int) -> int:
        cancel.check()  # called before every pass: a stop request ends the carving here
        left = n - removed
        if left <= 0:
            return 0
        if not batch:
            return 1
        return max(1, min(batch, left, width // 2))
    return plan


@dataclasses.dataclass(frozen=True)
class Blends:
    """How every pixel of a resize's result is made from the input's pixels, so that the result
    can be made again from the input at any bit depth (16-bit, float, alpha...).

    A pixel is a copy of an input pixel, or an inserted one: the mean of two pixels, each an input
    pixel or a pixel inserted before it (rounded up in integers, as the carver rounds its bytes).

    Attributes
    ----------
    size : int
        The input's pixel count: an index below it names an input pixel (row-major), ``size + j``
        the j-th inserted pixel.
    origin : ndarray of int64, (H', W')
        Every output pixel's index.
    pairs : ndarray of int64, (K, 2)
        The two indices the j-th inserted pixel is the mean of.
    steps : tuple of int
        Where each enlarging step's pixels end in ``pairs``; a step's pairs name only pixels made
        before the step.
    """

    size: int
    origin: np.ndarray
    pairs: np.ndarray
    steps: tuple[int, ...]

    def apply(self, full: np.ndarray) -> np.ndarray:
        """``full`` ((H, W) or (H, W, C), the input at any depth) made into the result: every
        output pixel its input pixel, or the mean of its pair.

        Raises
        ------
        inpaint.errors.SeamError
            ``full`` does not have the input's pixel count.
        """
        full = np.asarray(full)
        if full.ndim < 2 or full.shape[0] * full.shape[1] != self.size:
            raise SeamError("the picture has shape {shape}, not the input's {size} pixels", shape=full.shape,
                            size=self.size)
        flat = full.reshape(self.size, *full.shape[2:])
        if not len(self.pairs):
            return flat[self.origin]
        values = np.empty((self.size + len(self.pairs), *flat.shape[1:]), flat.dtype)
        values[:self.size] = flat
        start = 0
        for end in self.steps:
            a, b = values[self.pairs[start:end, 0]], values[self.pairs[start:end, 1]]
            if np.issubdtype(flat.dtype, np.integer):
                mean = (a.astype(np.int64) + b.astype(np.int64) + 1) >> 1  # rounded up, as the bytes
            else:
                mean = (a.astype(np.float64) + b.astype(np.float64)) / 2
            values[self.size + start:self.size + end] = mean.astype(flat.dtype)
            start = end
        return values[self.origin]


class _State:
    """The image being carved, with its mask and (optionally) original-index map.

    Tracked, ``idx`` names every pixel: an input pixel (its row-major index) or, from ``h * w`` on,
    a pixel inserted by an enlarging step, whose operands are kept in ``pairs`` and the input pixel
    it was inserted beside in ``roots`` (see :class:`Blends`).  The seam map then grows with the
    inserted pixels, so that the carvers can mark an inserted pixel that a later seam removes."""

    def __init__(self, pixels: np.ndarray, mask: np.ndarray | None, track: bool):
        self.pixels = pixels
        self.mask = mask
        h, w = pixels.shape
        self.size = h * w
        self.idx = np.arange(h * w, dtype=np.int32).reshape(h, w) if track else None
        self.seam_map = np.zeros(h * w, dtype=np.int32) if track else None
        self.pairs: list[np.ndarray] = []
        self.roots = np.zeros(0, np.int64)
        self.removed_ordinal = 0
        self.inserted_ordinal = 0
        self.transposed = False

    def root(self, ids: np.ndarray) -> np.ndarray:
        """The input pixel each of ``ids`` copies or was inserted beside."""
        ids = np.asarray(ids, np.int64)
        inserted = ids >= self.size
        if not inserted.any():
            return ids
        return np.where(inserted, self.roots[np.where(inserted, ids - self.size, 0)], ids)

    def insert_ids(self, dup: np.ndarray, ordinals: np.ndarray) -> None:
        """Name the pixels an enlarging step inserts after the ``dup`` pixels (each the mean of its
        left and right neighbour, the last column's with itself) and mark their input pixels in the
        seam map with the step's ``ordinals``."""
        h, w = self.idx.shape
        r, c = np.nonzero(dup)
        left = self.idx[r, c].astype(np.int64)
        right = self.idx[r, np.minimum(c + 1, w - 1)].astype(np.int64)
        first = self.size + len(self.roots)
        if first + len(r) > np.iinfo(np.int32).max:
            raise SeamError("the result has too many pixels to track: {n}", n=first + len(r))
        roots = self.root(left)
        self.seam_map[roots] = -(self.inserted_ordinal + ordinals[r, c])
        self.pairs.append(np.stack([left, right], axis=1))
        self.roots = np.concatenate([self.roots, roots])
        self.seam_map = np.concatenate([self.seam_map, np.zeros(len(r), np.int32)])
        named = np.zeros_like(self.idx)
        named[r, c] = np.arange(first, first + len(r), dtype=np.int32)
        self.idx = ref.duplicate(self.idx, dup, named)

    def input_seams(self) -> np.ndarray:
        """The seam map over the input's pixels: an inserted pixel that a seam removed marks the
        input pixel it was inserted beside."""
        out = self.seam_map[:self.size].copy()
        later = self.seam_map[self.size:]
        gone = np.flatnonzero(later > 0)
        if gone.size:
            roots = self.roots[gone]
            free = out[roots] <= 0
            out[roots[free]] = later[gone[free]]
        return out

    def blends(self) -> Blends:
        """The result's :class:`Blends`."""
        pairs = np.concatenate(self.pairs) if self.pairs else np.zeros((0, 2), np.int64)
        steps = tuple(int(n) for n in np.cumsum([len(p) for p in self.pairs]))
        return Blends(self.size, self.idx.astype(np.int64), pairs, steps)

    def transpose(self) -> None:
        self.pixels = np.ascontiguousarray(self.pixels.T)
        if self.mask is not None:
            self.mask = np.ascontiguousarray(self.mask.T)
        if self.idx is not None:
            self.idx = np.ascontiguousarray(self.idx.T)
        self.transposed = not self.transposed


def _carve(carver: Any, st: _State, n: int, batch: int | None, progress: Callable[[int], None] | None,
           until_clear: bool = False, partial: bool = False) -> int:
    plan = _plan(n, batch)
    if progress is not None:
        inner = plan

        def plan(width: int, removed: int) -> int:  # wraps the plan with progress
            progress(removed)
            return inner(width, removed)
    pixels, mask, idx, removed, failed = carver.carve(
        st.pixels, st.mask, st.idx, plan, st.seam_map, st.removed_ordinal, until_clear=until_clear)
    if failed and partial:  # the seams found before none was left are in the seam map
        return removed
    if failed:
        what = "height" if st.transposed else "width"
        if until_clear:
            if st.mask is not None and np.any(st.mask == ref.KEEP):
                raise SeamError("{drop_mask_subject}the marked object cannot be removed completely "
                                "({keep_mask} blocks every seam through it, or the image became too small)")
            raise SeamError("{drop_mask_subject}the marked object cannot be removed completely: the image "
                            "became too small")
        # A batch pass may count the seam that failed as removed: then no count is given.
        done = f" (after removing {removed} of the {n} seams needed)" if 0 < removed < n else ""
        raise SeamError("{keep_mask} makes the target {what} impossible: every remaining seam crosses a "
                        "protected pixel{done}", what=what, done=done)
    st.pixels, st.mask, st.idx = pixels, mask, idx
    if st.seam_map is not None and st.seam_map.size:
        st.removed_ordinal = max(st.removed_ordinal, int(st.seam_map.max()))
    return removed


def _resize_seams(tw: int, th: int, w1: int, h1: int, restore: bool, width: Any, height: Any) -> int:
    """The seams the resize after an object's removal takes, from ``w1`` x ``h1`` to the target
    (without ``restore``, a side no size was asked for stays as the removal left it)."""
    to_w = tw if restore or width is not None else w1
    to_h = th if restore or height is not None else h1
    return abs(to_w - w1) + abs(to_h - h1)


def _enlarge(carver: Any, st: _State, n: int, batch: int | None, progress: Callable[[int], None] | None) -> None:
    done = 0
    while done < n:
        cancel.check()
        h, w = st.pixels.shape
        k = min(n - done, max(1, int(w * ENLARGE_STEP)))
        local = _State(st.pixels.copy(), None if st.mask is None else st.mask.copy(), track=True)
        local.transposed = st.transposed
        sub = None if progress is None else (lambda r, base=done: progress(base + r))
        _carve(carver, local, k, batch, sub, partial=True)
        dup_order = local.seam_map.reshape(h, w)
        dup = dup_order > 0
        found = int(np.count_nonzero(dup)) // h  # fewer than k where protected pixels block the rest
        if not found:
            what = "height" if st.transposed else "width"
            raise SeamError("{keep_mask} makes the target {what} impossible: every seam crosses a protected pixel, "
                            "so none can be duplicated", what=what)
        st.pixels = carver.insert(st.pixels, dup)
        if st.mask is not None:
            st.mask = ref.duplicate(st.mask, dup)
        if st.idx is not None:
            st.insert_ids(dup, dup_order)
            st.inserted_ordinal += int(dup_order.max())
        done += found


def _opencl_carver(rt: Any, mode: str) -> Any:
    from .opencl import OpenCLCarver

    return OpenCLCarver(rt, mode)


def _on_carver(engine: Any, mode: str, run: Callable[[Any], Any], largest: int = 0) -> Any:
    """``run(carver)`` on the engine's OpenCL device, the first that compiles the carving kernels
    (they are built as the carving needs them), else, for ``backend='auto'``, on numpy with one
    warning; also there when a buffer of ``largest`` bytes is past the device's largest."""
    if engine.numpy:
        return run(ref.NumpyCarver(mode))
    rt, out = engine.open(prepare=lambda rt: run(_opencl_carver(rt, mode)), largest=largest)
    return run(ref.NumpyCarver(mode)) if rt is None else out


def resize(image: Any, width: int | None = None, height: int | None = None, *,
           energy: str = "backward", order: str = "width-first",
           keep_mask: Any = None, drop_mask: Any = None, batch: int | None = None,
           backend: str = "auto", device: Any = None, profile: Any = None, engine: Any = None,
           progress: Callable[[int, int], None] | None = None, return_seams: bool = False,
           restore: bool = True, allow_large: bool = False, return_source: bool = False,
           return_blends: bool = False) -> Any:
    """Resize an image by removing or inserting low-energy seams (Avidan & Shamir 2007).

    Parameters
    ----------
    image : array_like of uint8
        ``(H, W)`` grey, ``(H, W, 3)`` RGB or ``(H, W, 4)`` RGBA (alpha is carried along).
    width, height : int, optional
        Target size; ``None`` keeps the input's size (after object removal: restores it,
        unless ``restore=False``).
    energy : {'backward', 'forward'}
        Prewitt gradient energy, or Rubinstein et al.'s forward energy (fewer artefacts).
    order : {'width-first', 'height-first'}
        Which direction is carved first.
    keep_mask : array_like of bool, optional
        ``(H, W)``; seams never cross these pixels.
    drop_mask : array_like of bool, optional
        ``(H, W)``; seams through these pixels are removed until none is left, before
        resizing to ``width`` x ``height``.
    batch : int, optional
        Approximate mode: remove up to ``batch`` strip-local seams per cost-table pass.
    backend : {'auto', 'opencl', 'numpy'}
        ``'auto'``: OpenCL when a device exists, else numpy with a warning.
    device, profile
        The OpenCL device and device profile (see :func:`inpaint.cl.runtime.select_device`).
    engine : inpaint.cl.engine.Engine, optional
        The backend, device and profile resolved by the caller (:func:`inpaint.cl.engine.resolve`);
        given, it stands for ``backend``, ``device`` and ``profile``.
    progress : callable, optional
        ``progress(done, total)`` with seams done so far.
    return_seams : bool
        Also return the seam map.
    restore : bool
        After object removal, return to the input size when ``width``/``height`` are None.
    allow_large : bool
        Allow enlarging by more than 2x.
    return_source : bool
        Also return the source map, so that the result can be rebuilt from the input at any
        bit depth (:func:`inpaint.io.writeback.apply_moves`).
    return_blends : bool
        Also return the :class:`Blends`: how each output pixel is made, copies and the means an
        enlarging step inserts, to make the result again at full depth.

    Returns
    -------
    out : ndarray of uint8
        Same channels as ``image``.
    seams : ndarray of int32, only with ``return_seams``
        Input-sized: ``k > 0`` where the k-th removed seam took the pixel, ``-k`` where the
        k-th inserted seam duplicated it, 0 elsewhere.
    source : ndarray of int32, (H', W', 2), only with ``return_source``
        For every output pixel, the (row, col) of the input pixel it is (for a pixel of an
        inserted seam: the input pixel it was inserted beside, whose value it blends with its
        neighbour's).
    blends : Blends, only with ``return_blends``
        The seams, the source map and the blends are returned in that order, those asked for.

    Raises
    ------
    inpaint.errors.SeamError
        Bad option, size or mask; a keep_mask that makes the target impossible; an image
        smaller than the 3x3 filter (an :class:`~inpaint.errors.InputError`, so a ``ValueError``
        too).

    References
    ----------
    S. Avidan, A. Shamir, "Seam carving for content-aware image resizing", SIGGRAPH 2007.
    M. Rubinstein, A. Shamir, S. Avidan, "Improved seam carving for video retargeting",
    SIGGRAPH 2008.

    Examples
    --------
    >>> import numpy as np
    >>> img = np.random.default_rng(0).integers(0, 256, (20, 30, 3), dtype=np.uint8)
    >>> resize(img, 24, 20, backend="numpy").shape
    (20, 24, 3)
    """
    _choice("energy", energy, ENERGIES)
    _choice("order", order, ORDERS)
    _choice("backend", backend, BACKENDS)
    arr, channels = _as_image(image)
    h0, w0 = arr.shape[:2]
    if h0 < ref.MIN_SIZE or w0 < ref.MIN_SIZE:
        raise SeamError("image is {w}x{h}; seam carving needs at least {n}x{n} for its 3x3 filter",
                        h=h0, w=w0, n=ref.MIN_SIZE)
    if batch is not None and (isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1):
        raise SeamError("batch must be a positive integer or None, got {batch!r}", batch=batch)
    batch = int(batch) if batch and batch > 1 else None
    keep = _as_mask("keep_mask", keep_mask, (h0, w0))
    drop = _as_mask("drop_mask", drop_mask, (h0, w0))
    if keep is not None and drop is not None and drop.any() and not (drop & ~keep).any():
        raise SeamError("every pixel of {drop_mask} is also in {keep_mask}: nothing could be removed (protected "
                        "pixels are never carved)")
    from ..cl.engine import check_engine

    check_engine(engine)
    if progress is not None and not callable(progress):
        raise SeamError("progress must be a function of (done, total) or None, got {value!r}", value=progress)
    tw = w0 if width is None else _size("width", width, w0, allow_large)
    th = h0 if height is None else _size("height", height, h0, allow_large)
    from ..io.memory import check_memory

    # before any work: a target the memory cannot hold is refused, not carved until the machine swaps
    check_memory(max(w0 * h0, tw * th, w0 * th, tw * h0) * CARVE_BYTES_PER_PIXEL, f"resizing {w0}x{h0} to {tw}x{th}")
    if keep is not None:
        need_w = int(keep.sum(axis=1).max())
        need_h = int(keep.sum(axis=0).max())
        if tw < need_w:
            raise SeamError("{keep_mask} makes width {tw} impossible: one row has {need} protected pixels",
                            tw=tw, need=need_w)
        if th < need_h:
            raise SeamError("{keep_mask} makes height {th} impossible: one column has {need} protected pixels",
                            th=th, need=need_h)
    mask = None
    if keep is not None or drop is not None:
        mask = np.zeros((h0, w0), dtype=np.uint8)
        if drop is not None:
            mask[drop] = ref.REMOVE
        if keep is not None:
            mask[keep] = ref.KEEP
        if not mask.any():
            mask = None
    def run(carver: Any) -> Any:
        """The whole resize on one carver (from the start again if a device cannot compile)."""
        nonlocal tw, th
        track = return_seams or return_source or return_blends

        def fresh() -> _State:
            return _State(ref.pack(arr), None if mask is None else mask.copy(), track)

        st = fresh()

        total = [0]
        done = [0]

        def report(k: int) -> None:
            if progress is not None:
                progress(min(done[0] + k, total[0]), total[0])

        # 1. Object removal.
        if mask is not None and np.any(mask == ref.REMOVE):
            dropm = mask == ref.REMOVE
            per_row = int(dropm.sum(axis=1).max())
            per_col = int(dropm.sum(axis=0).max())
            vertical = per_row <= per_col  # the fewer seams; the other way where those cannot clear it
            for attempt, upright in enumerate((vertical, not vertical)):
                if attempt:
                    st = fresh()
                if not upright:
                    st.transpose()
                k = per_row if upright else per_col  # the seams the removal takes, at least
                w1, h1 = (w0 - k, h0) if upright else (w0, h0 - k)
                total[0] = k + _resize_seams(tw, th, w1, h1, restore, width, height)  # the whole job's
                try:
                    removed = _carve(carver, st, st.pixels.shape[1], None, report if progress else None,
                                     until_clear=True)
                except SeamError:
                    if attempt:
                        raise
                    continue
                if not upright:
                    st.transpose()
                break
            done[0] = removed
            if st.mask is not None and not np.any(st.mask):
                st.mask = None
            if not restore:
                tw = st.pixels.shape[1] if width is None else tw
                th = st.pixels.shape[0] if height is None else th
        # 2. Resize, one direction at a time.
        h1, w1 = st.pixels.shape
        total[0] = done[0] + _resize_seams(tw, th, w1, h1, True, width, height)
        axes = ("width", "height") if order == "width-first" else ("height", "width")
        for axis in axes:
            if axis == "height":
                st.transpose()
            cur = st.pixels.shape[1]
            target = tw if axis == "width" else th
            sub = report if progress else None
            if target < cur:
                _carve(carver, st, cur - target, batch, sub)
            elif target > cur:
                _enlarge(carver, st, target - cur, batch, sub)
            done[0] += abs(cur - target)
            if axis == "height":
                st.transpose()
        report(0)
        out = ref.unpack(st.pixels, channels or 3)
        if channels == 0:
            out = out[..., 0]
        extra = []
        if return_seams:
            extra.append(st.input_seams().reshape(h0, w0))
        if return_source:
            rows, cols = np.divmod(st.root(st.idx), w0)
            extra.append(np.stack([rows, cols], axis=-1).astype(np.int32))
        if return_blends:
            extra.append(st.blends())
        return (out, *extra) if extra else out

    with cancel.scope():  # a stop requested from now on ends this resize (inpaint.cancel)
        if engine is None:
            from ..cl.engine import Engine, resolve

            # numpy never reads the profile (a bad one is an error only where a device runs)
            engine = Engine("numpy") if backend == "numpy" else resolve(backend, device, profile)
        # (a 32-bit word per pixel of the larger of the input and the result, the largest buffer)
        return _on_carver(engine, energy, run, largest=max(h0, th) * max(w0, tw) * 4)
