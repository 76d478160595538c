"""One cancel token per job: the library's checks, the command's run and the app's worker read it."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from PIL import Image

from inpaint import cancel
from inpaint.api import inpaint, start


def _case(seed=0, size=(28, 30)):
    img = np.random.default_rng(seed).integers(0, 255, (*size, 3), dtype=np.uint8)
    mask = np.zeros(size, bool)
    mask[10:16, 11:18] = True
    return img, mask


@pytest.mark.parametrize("method", ["multiscale", "criminisi"])
def test_a_cancelled_token_stops_its_job_and_no_other(method):
    img, mask = _case()
    mine, other = cancel.Token(), cancel.Token()
    job = start(img, mask, method=method, backend="numpy", patch=5, token=mine)
    spared = start(img, mask, method=method, backend="numpy", patch=5, token=other)
    assert job.token is mine and spared.token is other
    steps = []

    def after(j):
        steps.append(j.iterations)
        mine.cancel()

    with pytest.raises(cancel.Cancelled):
        job.run(after)
    assert len(steps) == 1 and not job.done          # stopped at the next check, not at the end
    assert spared.run().image.shape == img.shape     # the other token was not cancelled
    assert not cancel.requested()                    # nothing process-wide was asked


@pytest.mark.parametrize("method", ["multiscale", "criminisi"])
@pytest.mark.parametrize("backend", ["numpy", pytest.param("opencl", marks=pytest.mark.opencl)])
@pytest.mark.parametrize("how", ["token", "request"])
def test_a_job_stepped_by_hand_stops_at_its_next_step(method, backend, how):
    # The check was in run() only: stepped by hand (the documented loop), a job ran to its end.
    img, mask = _case()
    token = cancel.Token()
    job = start(img, mask, method=method, backend=backend, patch=5, token=token)
    before = job.image
    try:
        token.cancel() if how == "token" else cancel.request()
        with pytest.raises(cancel.Cancelled):
            job.step()
    finally:
        cancel.clear()
    assert not job.done and job.progress == 0 and np.array_equal(job.image, before)  # the step did not run


def test_a_request_cancels_the_tokens_made_before_it_only():
    before = cancel.Token()
    cancel.request()
    try:
        after = cancel.Token()
        assert before.cancelled and not after.cancelled
        img, mask = _case()
        # started after it (the quicker method: a default one after a request is run in test_nothing_lost)
        assert inpaint(img, mask, backend="numpy", patch=5, method="criminisi").image.shape == img.shape
        with pytest.raises(cancel.Cancelled):
            inpaint(img, mask, backend="numpy", patch=5, token=before)
    finally:
        cancel.clear()


def test_a_job_started_in_a_scope_holds_the_scope_token():
    img, mask = _case()
    with cancel.scope() as run:
        job = start(img, mask, backend="numpy", patch=5)
        assert job.token is run and cancel.current() is run
    assert cancel.current() is not run


def test_the_library_check_inside_a_step_reads_the_token():
    token = cancel.Token()
    with cancel.scope(token):
        cancel.check()
        token.cancel()
        with pytest.raises(cancel.Cancelled):
            cancel.check()  # what the long numpy rounds call between their parts
    cancel.check()          # outside the scope: no process-wide request, no stop


def test_the_app_worker_cancels_through_the_one_token():
    from mobile_ui.worker import Worker

    worker = Worker()
    started, release = threading.Event(), threading.Event()
    seen = {}

    def fn(job):
        seen["token"] = job.token
        img, mask = _case()
        inner = start(img, mask, backend="numpy", patch=5)
        seen["inner"] = inner.token
        started.set()
        release.wait(10)
        cancel.check()  # a check inside the library's step, not the worker's own
        return "not cancelled"

    try:
        job = worker.submit(fn)
        assert started.wait(10)
        job.cancel()
        assert job.cancelled and seen["token"].cancelled
        release.set()
        assert job.finished.wait(10)
        assert job.outcome == "cancelled"
        assert seen["inner"] is seen["token"]  # the library's job holds the worker job's token
    finally:
        release.set()
        worker.shutdown()


def test_both_commands_run_each_image_through_one_image_run(tmp_path, monkeypatch):
    from inpaint.cli import perimage, remove, resize

    calls = []
    real = perimage.ImageRun.save
    monkeypatch.setattr(perimage.ImageRun, "save", lambda self, items: calls.append(self.prog) or real(self, items))
    img, mask = _case()
    Image.fromarray(img).save(tmp_path / "i.png")
    Image.fromarray(mask.astype(np.uint8) * 255).save(tmp_path / "m.png")
    remove.main([str(tmp_path / "i.png"), "--mask", str(tmp_path / "m.png"), "-o", str(tmp_path / "a.png"),
                 "--backend", "numpy", "--method", "criminisi", "-q"])  # (the per-image run is every method's)
    resize.main([str(tmp_path / "i.png"), "--width", "24", "-o", str(tmp_path / "b.png"), "--backend", "numpy", "-q"])
    assert calls == ["inpaint", "inpaint resize"]
    with Image.open(tmp_path / "b.png") as out:
        assert out.size == (24, 28)


def test_a_command_interrupted_in_process_leaves_no_stop_request(tmp_path, monkeypatch, capsys):
    """A program that runs the command in its own process (``inpaint.cli.main(argv)``) and whose
    run is interrupted can go on: the next job it starts is not stopped by the old request."""
    from inpaint.cli import main
    from inpaint.io import atomic

    img, mask = _case()
    Image.fromarray(img).save(tmp_path / "a.png")
    Image.fromarray(mask.astype(np.uint8) * 255).save(tmp_path / "m.png")

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic, "encode", interrupted)
    cancel.clear()
    try:
        assert main([str(tmp_path / "a.png"), "--mask", str(tmp_path / "m.png"), "--backend", "numpy",
                     "-p", "5", "-o", str(tmp_path / "o.png")]) == 130
        assert capsys.readouterr().err.strip().endswith("interrupted")
        assert not cancel.requested()
        assert inpaint(img, mask, backend="numpy", patch=5).image.shape == img.shape
    finally:
        cancel.clear()


@pytest.mark.parametrize("method", ["multiscale", "criminisi"])
def test_a_job_stopped_before_a_step_goes_on_to_the_same_fill(method):
    img, mask = _case(3, (48, 56))
    whole = inpaint(img, mask, method=method, backend="numpy", patch=5)
    job = start(img, mask, method=method, backend="numpy", patch=5, token=cancel.Token())
    job.step()
    job.token.cancel()
    with pytest.raises(cancel.Cancelled):
        job.step()
    job.token = cancel.Token()
    np.testing.assert_array_equal(job.run().image, whole.image)


def test_a_job_stopped_inside_a_step_refuses_to_go_on(monkeypatch):
    from inpaint.errors import InputError

    img, mask = _case(3, (48, 56))
    job = start(img, mask, backend="numpy", patch=5, token=cancel.Token())
    calls = [0]
    real = cancel.check

    def check():                                     # the first step's checks: the third cancels
        calls[0] += 1
        if calls[0] == 3:
            job.token.cancel()
        real()

    monkeypatch.setattr(cancel, "check", check)
    with pytest.raises(cancel.Cancelled):
        job.step()
    assert calls[0] == 3 and not job.done and job.iterations == 0
    monkeypatch.setattr(cancel, "check", real)
    job.token = cancel.Token()
    with pytest.raises(InputError, match="stopped in the middle of a step and cannot go on: start it again"):
        job.step()
    with pytest.raises(InputError, match="cannot go on"):
        job.run()
