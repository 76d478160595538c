"""Device profiles: a phone GPU's limits described as data (``profiles/*.toml``).

A profile caps what kernels may assume about the device they run on.  The limits that
kernels are sized from are always ``min(profile, real device)`` (see
:meth:`Profile.effective_limits`), so a desktop GPU behaves within an Adreno 330's 8 KB
of local memory when the ``adreno330`` profile is chosen.  ``profiles/README.md``
documents every field.
"""

from __future__ import annotations

import dataclasses
import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ..errors import ProfileError
from ..resources import data_dir

_DEVICE_TYPES = ("gpu", "cpu", "any")
#: Largest profile file read: profiles are a few lines of TOML.
MAX_PROFILE_BYTES = 64 * 1024


@dataclasses.dataclass(frozen=True)
class Limits:
    """Device limits that kernels are sized from (bytes and work-items)."""

    local_mem_size: int
    max_work_group_size: int
    max_work_item_sizes: tuple[int, int, int]
    compute_units: int
    global_mem_size: int
    #: The largest single buffer (``CL_DEVICE_MAX_MEM_ALLOC_SIZE``).
    max_mem_alloc_size: int = 1 << 62

    def fits_group(self, shape: tuple[int, ...]) -> bool:
        """Whether a work-group of ``shape`` is allowed."""
        total = 1
        for dim, size in enumerate(shape):
            if size > self.max_work_item_sizes[dim]:
                return False
            total *= size
        return total <= self.max_work_group_size

    def work_group(self, want: tuple[int, ...], cap: int | None = None) -> tuple[int, ...]:
        """The work-group shape to launch with: ``want``, every side halved (down to 1) until
        the group is allowed and holds at most ``cap`` work-items.  Every kernel wrapper sizes
        its groups here, so a profile's caps reach them all the same way.

        Parameters
        ----------
        want : tuple of int
            The preferred shape (powers of two stay powers of two).
        cap : int, optional
            A further limit on the work-items, e.g. a built kernel's own maximum.

        Returns
        -------
        tuple of int
        """
        shape = tuple(int(s) for s in want)

        def fits(s: tuple[int, ...]) -> bool:
            total = 1
            for side in s:
                total *= side
            return self.fits_group(s) and (cap is None or total <= cap)

        while not fits(shape) and max(shape) > 1:
            shape = tuple(max(s // 2, 1) for s in shape)
        return shape


@dataclasses.dataclass(frozen=True)
class Profile:
    """A device profile read from TOML.

    ``None`` in a cap means "no cap: use the real device's value".
    """

    name: str
    description: str = ""
    device_type: str = "any"
    local_mem_size: int | None = None
    max_work_group_size: int | None = None
    max_work_item_sizes: tuple[int, ...] | None = None   # 1 to 3 caps, the first dimensions'
    compute_units: int | None = None
    global_mem_size: int | None = None
    max_mem_alloc_size: int | None = None
    path: Path | None = None

    def effective_limits(self, device: Any) -> Limits:
        """Return ``min(profile, device)`` for every cap.

        Parameters
        ----------
        device : pyopencl.Device
            The real device.

        Raises
        ------
        ProfileError
            If a cap is so small that no kernel could run under it.
        """
        def cap(mine: int | None, real: int) -> int:
            return real if mine is None else min(mine, real)

        real_sizes = tuple(int(s) for s in device.max_work_item_sizes)[:3]
        real_sizes = real_sizes + (1,) * (3 - len(real_sizes))
        mine = self.max_work_item_sizes or ()
        sizes = tuple(min(mine[i], real) if i < len(mine) else real for i, real in enumerate(real_sizes))
        limits = Limits(
            local_mem_size=cap(self.local_mem_size, int(device.local_mem_size)),
            max_work_group_size=cap(self.max_work_group_size, int(device.max_work_group_size)),
            max_work_item_sizes=sizes,  # type: ignore[arg-type]
            compute_units=cap(self.compute_units, int(device.max_compute_units)),
            global_mem_size=cap(self.global_mem_size, int(device.global_mem_size)),
            max_mem_alloc_size=cap(self.max_mem_alloc_size, int(device.max_mem_alloc_size)),
        )
        if limits.max_work_group_size < 64 or limits.max_work_item_sizes[0] < 8 or limits.max_work_item_sizes[1] < 8:
            raise ProfileError(
                f"profile {self.name!r}: max_work_group_size={limits.max_work_group_size}, "
                f"max_work_item_sizes={limits.max_work_item_sizes} on {device.name.strip()}; "
                "the kernels need work-groups of at least 8x8 = 64 work-items"
            )
        if limits.local_mem_size < 1024:
            raise ProfileError(
                f"profile {self.name!r}: local_mem_size={limits.local_mem_size} bytes on "
                f"{device.name.strip()}; the kernels need at least 1024 bytes of local memory"
            )
        return limits


_INT_FIELDS = ("local_mem_size", "max_work_group_size", "compute_units", "global_mem_size", "max_mem_alloc_size")
_STR_FIELDS = ("description",)
#: Fields that describe a device but cap nothing: not part of a profile (keep them as comments).
_NOT_LIMITS = ("clock_mhz", "image_support", "double_support", "opencl_version", "opencl_profile")
#: Stage splits are partitions, not profiles (``--partition``, :data:`inpaint.methods.criminisi.stages.PARTITIONS`).
_PARTITION_NAMES = {"host": "none", "coprocess": "coprocess"}


def _readme() -> str:
    """Where the profiles' fields are described: the shipped README, installed or in a checkout."""
    try:
        return str(data_dir("profiles") / "README.md")
    except FileNotFoundError:
        return "the profiles' README.md"


def _parse(data: Mapping[str, Any], name: str, path: Path | None) -> Profile:
    where = str(path) if path else name
    if "device_stages" in data:
        raise ProfileError(f"{where}: a profile holds device limits only; choose the stages that run on the "
                           "device with --partition (all, none, coprocess or a list of stages)")
    informational = sorted(set(data) & set(_NOT_LIMITS))
    if informational:
        raise ProfileError(f"{where}: {', '.join(informational)} cap nothing, so a profile does not take them "
                           f"(keep them as comments); see {_readme()}")
    known = set(_INT_FIELDS) | set(_STR_FIELDS) | {"name", "device_type", "max_work_item_sizes"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ProfileError(f"{where}: unknown field(s) {', '.join(unknown)}; see {_readme()}")
    if "name" not in data:
        raise ProfileError(f"{where}: field 'name' is required (a string, e.g. name = \"{name}\")")
    if not isinstance(data["name"], str) or not data["name"].strip():
        raise ProfileError(f"{where}: field 'name' must be a non-empty string, got {data['name']!r}")
    kwargs: dict[str, Any] = {"name": data["name"], "path": path}
    for field in _INT_FIELDS:
        if field in data:
            value = data[field]
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ProfileError(f"{where}: field {field!r} must be a positive integer, got {value!r}")
            kwargs[field] = value
    for field in _STR_FIELDS:
        if field in data:
            if not isinstance(data[field], str):
                raise ProfileError(f"{where}: field {field!r} must be a string, got {data[field]!r}")
            kwargs[field] = data[field]
    if "device_type" in data:
        if data["device_type"] not in _DEVICE_TYPES:
            raise ProfileError(
                f"{where}: field 'device_type' must be one of {', '.join(_DEVICE_TYPES)}, got {data['device_type']!r}")
        kwargs["device_type"] = data["device_type"]
    if "max_work_item_sizes" in data:
        sizes = data["max_work_item_sizes"]
        if (not isinstance(sizes, list) or not 1 <= len(sizes) <= 3
                or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sizes)):
            raise ProfileError(
                f"{where}: field 'max_work_item_sizes' must be a list of 1 to 3 positive integers, got {sizes!r}")
        kwargs["max_work_item_sizes"] = tuple(sizes)  # the dimensions not listed are not capped
    return Profile(**kwargs)


def available_profiles() -> list[str]:
    """Names of the profiles shipped with the package."""
    return sorted(p.stem for p in data_dir("profiles").glob("*.toml"))


#: The profiles loaded in this process, by file and version (path, inode, modification time, size):
#: every fill of a batch or an app names its profile again, and a profile is immutable.
_LOADED: dict[tuple[str, int, int, int], Profile] = {}


def load_profile(spec: str | Path | Profile | None) -> Profile:
    """Load a profile by shipped name or by path to a TOML file.

    Parameters
    ----------
    spec : str, pathlib.Path, Profile or None
        A shipped profile name (``'adreno330'``), a path to a ``.toml`` file, an already
        loaded profile, or ``None`` for ``native`` (no caps).

    Raises
    ------
    ProfileError
        Unknown name, unreadable file, or a malformed field (the message names it).
    """
    if isinstance(spec, Profile):
        return spec
    if spec is None:
        spec = "native"
    spec_str = str(spec)
    if not isinstance(spec, Path) and not spec_str.strip():
        raise ProfileError(f"the profile name is empty; shipped profiles: {', '.join(available_profiles())} "
                           "(or give a path to a .toml file)")
    path = Path(spec_str)
    shipped = data_dir("profiles") / f"{spec_str}.toml"
    bare = not isinstance(spec, Path) and "/" not in spec_str and os.sep not in spec_str
    if bare and path.suffix != ".toml" and shipped.is_file():  # a shipped name, whatever this folder holds
        name, path = spec_str, shipped
    elif path.suffix == ".toml" or path.exists():
        name = path.stem
    else:
        name = spec_str
        path = data_dir("profiles") / f"{name}.toml"
        if not path.exists() and name in _PARTITION_NAMES:
            raise ProfileError(f"{name!r} is a partition, not a profile: use --partition {_PARTITION_NAMES[name]}")
        if not path.exists():
            raise ProfileError(
                f"unknown profile {name!r}; shipped profiles: {', '.join(available_profiles())} "
                "(or give a path to a .toml file)")
    try:
        st = os.stat(path)
        version = (str(path), st.st_ino, st.st_mtime_ns, st.st_size)
        if version in _LOADED:  # read, checked and parsed before, and unchanged since
            return _LOADED[version]
        if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
            raise ProfileError(f"profile {path} is not a regular file (a named pipe or a device); give a .toml file")
        if st.st_size > MAX_PROFILE_BYTES:
            raise ProfileError(f"profile {path} is {st.st_size} bytes: a profile is a short .toml file "
                               f"(at most {MAX_PROFILE_BYTES} bytes)")
        with open(path, "rb") as fh:
            raw = fh.read(MAX_PROFILE_BYTES + 1)
        if len(raw) > MAX_PROFILE_BYTES:  # pragma: no cover - it grew since the check
            raise ProfileError(f"profile {path} is larger than {MAX_PROFILE_BYTES} bytes")
    except FileNotFoundError:
        raise ProfileError(f"profile file {path} does not exist") from None
    except IsADirectoryError:
        raise ProfileError(f"profile {path} is a folder, not a .toml file") from None
    except ProfileError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: a name with a NUL byte
        raise ProfileError(f"{path}: cannot read: {exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProfileError(f"{path}: not a TOML profile: the file is not UTF-8 text (byte {exc.start})") from None
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        raise ProfileError(f"{path}: not valid TOML: {' '.join(str(exc).split())}") from None
    profile = _LOADED[version] = _parse(data, name, path)
    return profile
