"""Standard input and output under hostile conditions: an unbuffered or non-blocking standard
output that takes part of a write, an endless or huge standard input, a full temporary folder,
``./-`` as a file's name, a stop signal at any moment of a run that read standard input, and
messages that name the streams, not the temporary files that stand for them.

The runs are real processes with real pipes and signals.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import box_mask, save_mask
from PIL import Image

from inpaint.methods.options import BACKEND, DEVICE, PROFILE

REPO = Path(__file__).resolve().parent.parent
H, W = 200, 240
# The streams are the same for every method: the Criminisi method on numpy fills in a moment.
QUICK = ["--method", "criminisi", "--backend", "numpy"]


def _env(tmp: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in (BACKEND.env, DEVICE.env, PROFILE.env)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env["TMPDIR"] = str(tmp)
    env.update(extra)
    return env


def _command(args: list) -> list[str]:
    return [sys.executable, "-m", "inpaint", *map(str, args)]


@pytest.fixture
def work(tmp_path) -> Path:
    """``photo.png`` (noisy, so it does not compress below a pipe's buffer), ``mask.png`` and an
    empty private temporary folder ``tmp/``."""
    rng = np.random.default_rng(3)
    Image.fromarray(rng.integers(0, 256, (H, W, 3), dtype=np.uint8)).save(tmp_path / "photo.png")
    save_mask(tmp_path / "mask.png", box_mask(H, W, slice(90, 110), slice(100, 130)))
    (tmp_path / "tmp").mkdir()
    return tmp_path


def _left_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# -- standard output takes all of the image ---------------------------------------------------------

class _Stingy(io.RawIOBase):
    """A raw stream that takes at most ``most`` bytes a write, and none every third time."""

    def __init__(self, most: int):
        self.most, self.calls, self.data = most, 0, bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b) -> int | None:
        self.calls += 1
        if self.calls % 3 == 0:
            return None
        taken = bytes(b[:self.most])
        self.data += taken
        return len(taken)

    def fileno(self) -> int:  # select() on a pipe that is always writable
        return sys.__stderr__.fileno()


def test_write_all_writes_everything_to_a_stream_that_takes_part_of_each_write():
    from inpaint.cli.streams import write_all

    data = bytes(range(256)) * 1000
    stingy = _Stingy(most=777)
    write_all(stingy, data)
    assert bytes(stingy.data) == data


def test_an_unbuffered_process_writes_the_whole_image_to_a_slow_non_blocking_pipe(work):
    filed = subprocess.run(_command(["photo.png", "--mask", "mask.png", *QUICK, "-o", "filed.png"]), cwd=work,
                           env=_env(work / "tmp"), capture_output=True, timeout=300)
    assert filed.returncode == 0, filed.stderr
    expected = (work / "filed.png").read_bytes()
    assert len(expected) > 2 * 65536  # more than a pipe holds
    r, w = os.pipe()
    fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)  # as some parents hand it over
    with open(work / "photo.png", "rb") as stdin, \
            subprocess.Popen(_command(["-", "--mask", "mask.png", *QUICK, "-o", "-"]), cwd=work, stdin=stdin,
                             stdout=w, stderr=subprocess.PIPE, env=_env(work / "tmp", PYTHONUNBUFFERED="1")) as p:
        os.close(w)
        got = bytearray()
        while chunk := os.read(r, 4096):  # a slow reader: the pipe is full most of the time
            got += chunk
            time.sleep(0.0005)
        os.close(r)
        err = p.stderr.read().decode()
        assert p.wait(timeout=300) == 0, err
    assert bytes(got) == expected


# -- standard input is bounded ----------------------------------------------------------------------

def test_an_endless_stream_of_zeros_is_refused_at_once_and_leaves_nothing(work):
    with open("/dev/zero", "rb") as zeros:
        p = subprocess.run(_command(["-", "--mask", "mask.png", *QUICK, "-o", "out.png"]), cwd=work, stdin=zeros,
                           env=_env(work / "tmp"), capture_output=True, timeout=60)
    assert p.returncode == 2
    assert "is not an image" in p.stderr.decode() and len(p.stderr.decode().splitlines()) == 1
    assert _left_in(work / "tmp") == []
    assert not (work / "out.png").exists()


def test_an_endless_stream_after_an_image_header_stops_at_what_the_pixel_limit_allows(work):
    head = (work / "photo.png").read_bytes()[:200]  # a PNG header: 240x200 pixels
    sent = [0]

    def feed() -> None:  # far more than the limit allows, then the end of the stream
        try:
            p.stdin.write(head)
            while sent[0] < 1 << 28:
                p.stdin.write(bytes(1 << 16))
                sent[0] += 1 << 16
            p.stdin.close()
        except (BrokenPipeError, OSError):
            pass

    with subprocess.Popen(_command(["-", "--mask", "mask.png", *QUICK, "-o", "out.png", "--max-pixels", "50000"]),
                          cwd=work, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          env=_env(work / "tmp")) as p:
        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        err = p.stderr.read().decode()
        assert p.wait(timeout=120) == 2
        feeder.join(timeout=30)
        with contextlib.suppress(BrokenPipeError, OSError):  # the command ended first: its pipe is broken
            p.stdin.close()
    assert "larger than an image of at most 50000 pixels could be" in err
    assert sent[0] < 50000 * 16 + (8 << 20)  # stopped near 16 bytes a pixel, not at the end of the stream
    assert _left_in(work / "tmp") == []


def test_an_image_on_standard_input_with_more_pixels_than_the_limit_is_too_large(work):
    p = subprocess.run(_command(["-", "--mask", "mask.png", *QUICK, "-o", "out.png", "--max-pixels", "1000"]),
                       cwd=work, input=(work / "photo.png").read_bytes(), env=_env(work / "tmp"),
                       capture_output=True, timeout=300)
    err = p.stderr.decode()
    assert p.returncode == 2, err
    assert "on standard input is too large: 48000 pixels, more than the limit of 1000 pixels" in err
    assert "internal error" not in err


def test_a_decompression_bomb_on_standard_input_is_too_large_not_an_internal_error(work):
    bomb = io.BytesIO()
    Image.new("1", (20000, 20000)).save(bomb, format="PNG")  # 400 MP: past Pillow's error threshold
    p = subprocess.run(_command(["-", "--mask", "mask.png", *QUICK, "-o", "out.png"]), cwd=work,
                       input=bomb.getvalue(), env=_env(work / "tmp"), capture_output=True, timeout=300)
    err = p.stderr.decode()
    assert p.returncode == 2, err
    assert "is too large: 400000000 pixels" in err and "internal error" not in err


def _no_bigger_files_than(limit: int):
    def set_limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return set_limit


def test_a_temporary_folder_without_room_is_named_and_standard_output_is_not_blamed(work):
    p = subprocess.run(_command(["-", "--mask", "mask.png", *QUICK, "-o", "-"]), cwd=work,
                       input=(work / "photo.png").read_bytes(), env=_env(work / "tmp"), capture_output=True,
                       timeout=300, preexec_fn=_no_bigger_files_than(30000))
    err = p.stderr.decode()
    assert p.returncode == 2 and p.stdout == b""
    assert f"cannot keep the input image from standard input in {work / 'tmp'}" in err
    assert "standard output" not in err
    assert _left_in(work / "tmp") == []


# -- './-' is a file -------------------------------------------------------------------------------

def test_dot_slash_dash_names_a_file_for_input_and_output(work):
    (work / "-").write_bytes((work / "photo.png").read_bytes())
    env = _env(work / "tmp")
    read = subprocess.run(_command(["./-", "--mask", "mask.png", *QUICK, "-o", "from_file.png"]), cwd=work,
                          stdin=subprocess.DEVNULL, env=env, capture_output=True, timeout=300)
    assert read.returncode == 0, read.stderr
    assert (work / "from_file.png").is_file()
    resized = subprocess.run(_command(["resize", "./-", "--width", "200", "--backend", "numpy", "-o", "small.png"]),
                             cwd=work, stdin=subprocess.DEVNULL, env=env, capture_output=True, timeout=300)
    assert resized.returncode == 0, resized.stderr
    with Image.open(work / "small.png") as small:
        assert small.size == (200, H)
    (work / "-").unlink()
    # a file named '-' has no extension to tell its format: standard output is not taken for it
    written = subprocess.run(_command(["photo.png", "--mask", "mask.png", *QUICK, "-o", "./-"]), cwd=work,
                             env=env, capture_output=True, timeout=300)
    assert written.returncode == 2 and written.stdout == b""
    assert "cannot tell the image format of -" in written.stderr.decode()


def test_only_the_bare_dash_is_a_stream():
    from inpaint.cli.streams import command_path, is_stream

    assert is_stream("-") and is_stream("png:-") and is_stream(command_path("-"))
    assert not is_stream("./-") and not is_stream(Path("-")) and not is_stream(command_path("./-"))
    assert os.fspath(command_path("./-")) == "-"  # the file named '-'


# -- a stop signal at any moment leaves nothing in the temporary folder ----------------------------

# Each signal at every moment: by default each at every other one, so that between them the two
# signals cover every moment; the other halves run in the slow selection.
MOMENTS = (0.0, 0.05, 0.15, 0.3, 0.6)


@pytest.mark.parametrize("sig, delays", [
    (signal.SIGTERM, MOMENTS[::2]), (signal.SIGINT, MOMENTS[1::2]),
    pytest.param(signal.SIGTERM, MOMENTS[1::2], marks=pytest.mark.slow),
    pytest.param(signal.SIGINT, MOMENTS[::2], marks=pytest.mark.slow)])
def test_a_stop_signal_at_any_moment_of_a_standard_input_run_leaves_no_temporary_file(work, sig, delays):
    photo = (work / "photo.png").read_bytes()
    env = _env(work / "tmp")
    for delay in delays:
        with subprocess.Popen(_command(["-", "--mask", "mask.png", "-o", "out.png", "--backend", "numpy", "-y"]),
                              cwd=work, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env=env) as p:
            p.stdin.write(photo)
            p.stdin.close()
            time.sleep(delay)
            p.send_signal(sig)
            err = p.stderr.read().decode()
            code = p.wait(timeout=120)
        assert code in (0, 130 if sig == signal.SIGINT else 128 + sig), (delay, code, err)
        assert "Traceback" not in err
        assert _left_in(work / "tmp") == [], (delay, err)


def test_a_killed_runs_temporary_folder_is_removed_by_the_next_run(work):
    from inpaint.io import atomic

    stale = work / "tmp" / f".stdio~inpaint.{atomic._host_tag()}.999999999.0123456789ab.tmp"
    stale.mkdir()
    (stale / "stdin.png").write_bytes(b"x" * 1000)
    old = time.time() - 3600
    os.utime(stale, (old, old))
    p = subprocess.run(_command(["-", "--mask", "mask.png", *QUICK, "-o", "out.png"]), cwd=work,
                       input=(work / "photo.png").read_bytes(), env=_env(work / "tmp"), capture_output=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert _left_in(work / "tmp") == []


# -- messages name the streams ----------------------------------------------------------------------

def test_messages_of_a_standard_input_run_name_the_stream_not_a_temporary_file(work):
    photo = (work / "photo.png").read_bytes()
    p = subprocess.run(_command(["-", "--mask", "mask.png", *QUICK, "-o", "out.png"]), cwd=work,
                       input=photo[:len(photo) // 2], env=_env(work / "tmp"), capture_output=True, timeout=300)
    err = p.stderr.decode()
    assert p.returncode == 2, err
    assert "cannot read image standard input" in err
    assert str(work / "tmp") not in err and "~inpaint." not in err


def test_a_phone_jpeg_with_previews_on_standard_input_is_written_to_standard_output(work):
    photo = Image.open(work / "photo.png")
    mpo = io.BytesIO()
    photo.save(mpo, format="MPO", save_all=True, append_images=[photo.resize((60, 50))])
    with Image.open(io.BytesIO(mpo.getvalue())) as check:
        assert check.format == "MPO"
    p = subprocess.run(_command(["-", "--mask", "mask.png", *QUICK, "-o", "-"]), cwd=work, input=mpo.getvalue(),
                       env=_env(work / "tmp"), capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr
    with Image.open(io.BytesIO(p.stdout)) as out:
        assert out.format == "JPEG" and out.size == (W, H)
    assert _left_in(work / "tmp") == []



@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_batch_whose_stats_cannot_be_printed_counts_its_written_images_as_done(tmp_path):
    """``--stats`` into a full standard output: every image is written and counted as done; one
    line says the reports are lost (not that the output disk is full), and the status is 2."""
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(2):
        rgb = np.random.default_rng(i).integers(0, 255, (24, 32, 3), dtype=np.uint8)
        Image.fromarray(rgb).save(folder / f"x{i}.png")
        save_mask(folder / f"x{i}_mask.png", box_mask(24, 32, slice(8, 14), slice(10, 18)))
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "inpaint", str(folder), "-o", str(tmp_path / "out") + "/",
                               "--stats", "--backend", "numpy"], stdout=full, stderr=subprocess.PIPE, text=True,
                              env=_env(tmp_path), timeout=300)
    assert proc.returncode == 2
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["x0.png", "x1.png"]
    errors = [line for line in proc.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and "the result is written, but standard output failed" in errors[0], proc.stderr
    assert "2 removed, 0 failed" in proc.stderr
