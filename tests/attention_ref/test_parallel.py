"""The threaded softmax used on large arrays gives exactly the serial result."""
import os
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from attention_ref import _threads, scaled_dot_product_attention, softmax
from attention_ref import scores as scores_module


def serial_softmax(x, axis=-1):
    """The serial kernel that small arrays use, on a copy."""
    out = np.array(x, copy=True)
    scores_module._softmax_slices(out, axis)
    return out


@pytest.fixture(params=["threads", "one thread"])
def tiny_threshold(monkeypatch, request):
    """Send small arrays down the blocked paths (threaded or not), in cache blocks of a few elements."""
    threshold = 1 if request.param == "threads" else 10**12
    monkeypatch.setattr(scores_module, "PARALLEL_MIN_ELEMENTS", threshold)
    monkeypatch.setattr(scores_module, "CACHE_BLOCK_BYTES", 128)


@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 7, 11), (1, 40), (40, 1), (3, 17, 13)])
def test_parallel_equals_serial_bitwise(tiny_threshold, shape):
    x = np.random.default_rng(0).standard_normal(shape) * 5
    x[..., 0, :] = -np.inf  # a fully masked row
    np.testing.assert_array_equal(softmax(x), serial_softmax(x))
    np.testing.assert_array_equal(softmax(x.astype(np.float32)), serial_softmax(x.astype(np.float32)))


def test_parallel_attention_with_masks(tiny_threshold):
    rng = np.random.default_rng(1)
    Q, K, V = rng.standard_normal((2, 3, 9, 4)), rng.standard_normal((2, 3, 11, 4)), rng.standard_normal((2, 3, 11, 5))
    mask = rng.random((9, 11)) < 0.5
    mask[4] = False
    out, w = scaled_dot_product_attention(Q, K, V, mask=mask)
    s = Q @ np.swapaxes(K, -1, -2) / 2
    s[..., ~mask] = -np.inf
    want = serial_softmax(s)
    np.testing.assert_allclose(w, want, rtol=0, atol=1e-15)
    assert (w[..., 4, :] == 0).all() and (out[..., 4, :] == 0).all()


def test_non_contiguous_and_other_axes_take_the_serial_path(tiny_threshold):
    x = np.random.default_rng(2).standard_normal((6, 8))
    np.testing.assert_array_equal(softmax(x[:, ::2]), serial_softmax(x[:, ::2]))
    np.testing.assert_array_equal(softmax(x, axis=0), serial_softmax(x, axis=0))


def test_large_attention_goes_parallel_and_is_right():
    # 1024 x 1025 = 1,049,600 scores: above PARALLEL_MIN_ELEMENTS with the real settings.
    rng = np.random.default_rng(3)
    Q, K, V = (rng.standard_normal((n, 8)).astype(np.float32) for n in (1024, 1025, 1025))
    assert Q.shape[0] * K.shape[0] >= scores_module.PARALLEL_MIN_ELEMENTS
    out, w = scaled_dot_product_attention(Q, K, V)
    s = (Q.astype(np.float64) @ K.T.astype(np.float64)) / np.sqrt(8)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    want_w = e / e.sum(axis=-1, keepdims=True)
    assert w.dtype == out.dtype == np.float32
    np.testing.assert_allclose(w, want_w, rtol=0, atol=1e-6)
    np.testing.assert_allclose(out, want_w @ V.astype(np.float64), rtol=0, atol=1e-5)


def test_concurrent_callers(tiny_threshold):
    """Several threads calling at once (e.g. a threaded grader) share the pool safely."""
    rng = np.random.default_rng(4)
    inputs = [rng.standard_normal((3, 30, 20)) for _ in range(12)]
    want = [serial_softmax(x) for x in inputs]
    with ThreadPoolExecutor(4) as callers:
        got = list(callers.map(softmax, inputs))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_errors_in_workers_reach_the_caller(monkeypatch):
    def boom(rows):
        raise RuntimeError("worker failed")

    with pytest.raises(RuntimeError, match="worker failed"):
        _threads.map_parallel(boom, [np.ones((2, 2))] * 3)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_gets_a_working_pool(tiny_threshold):
    """A child forked after the pool started inherits no threads; it must not hang."""
    x = np.random.default_rng(5).standard_normal((4, 50))
    softmax(x)  # make sure the parent's pool exists
    assert _threads.pool() is not None or _threads.cpu_count() < 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Python >= 3.12 warns about fork with threads
        pid = os.fork()
    if pid == 0:  # child: must end in os._exit whatever happens, never return into pytest
        ok = False
        try:
            ok = np.array_equal(softmax(x), serial_softmax(x))
        finally:
            os._exit(0 if ok else 1)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.02)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung in softmax")


def test_small_inputs_stay_on_the_calling_thread(monkeypatch):
    seen = []
    real = scores_module._softmax_slices

    def spy(x, axis=-1):
        seen.append(threading.current_thread() is threading.main_thread())
        return real(x, axis)

    monkeypatch.setattr(scores_module, "_softmax_slices", spy)
    scaled_dot_product_attention([[1.0, 0.0]], [[1, 0], [0, 1], [0.5, 0.5]], [[10, 0], [0, 10], [5, 5]])
    assert seen == [True]
