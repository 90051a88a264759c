"""Time attention_ref's scaled dot-product attention against the matmul floor (and PyTorch).

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_attention.py                 # the full table + memory
    .venv/bin/python benchmarks/bench_attention.py --sizes 512,1024 --dtypes float32 --reps 5
    .venv/bin/python benchmarks/bench_attention.py --no-speed      # memory only

Shapes: batch 4, 8 heads, d_k = d_v = 64, n_q = n_k = n. For each n and dtype
the contenders run in turns (ref, floor, torch, ref, floor, torch, ...), so a
burst of load from another process hits all of them alike; each ratio is the
median over turns of the ratio measured within one turn ("best ref/floor" is
the ratio of the two fastest times instead: each at its least disturbed turn).

* floor: the two matrix products alone, ``(Q @ K^T) @ V`` -- no implementation
  can do less arithmetic, so ``ref / floor`` is the price of the softmax.
* torch: ``torch.nn.functional.scaled_dot_product_attention`` on the CPU, when
  torch can be imported (skipped otherwise; it is not a project dependency).

Memory: tracemalloc's peak while ``blockwise_attention`` and the full
``scaled_dot_product_attention`` run on one head with n = 16,384 (float64).

This is a benchmark, not a test: numbers depend on the machine and its load.
"""
from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from attention_ref import blockwise_attention, scaled_dot_product_attention  # noqa: E402

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = None

BATCH, HEADS, D_K = 4, 8, 64


def blas_description() -> str:
    """Which BLAS (and which of its kernels) numpy's matmul uses here."""
    env = {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS") if k in os.environ}
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        cfg = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        info = f"{cfg.get('name')} {cfg.get('version')} (kernel unknown: threadpoolctl not installed)"
    else:
        blas = [p for p in threadpool_info() if p["user_api"] == "blas"]
        info = "; ".join(f"{p['internal_api']} {p['version']} kernel={p.get('architecture')} threads={p['num_threads']}" for p in blas)
    return f"{info}; env {env or 'none set'}"


CLOCK = time.perf_counter  # --clock cpu switches to time.process_time


def time_once(func) -> float:
    start = CLOCK()
    func()
    return CLOCK() - start


def bench_speed(sizes, dtypes, reps: int, use_torch: bool) -> list[dict]:
    rows = []
    rng = np.random.default_rng(0)
    for dtype in dtypes:
        for n in sizes:
            Q, K, V = (rng.standard_normal((BATCH, HEADS, n, D_K)).astype(dtype) for _ in range(3))
            Kt = np.swapaxes(K, -1, -2)
            contenders = {
                # The arrays are deleted at the end of each turn (memory), and rebound at the next.
                "ref": lambda: scaled_dot_product_attention(Q, K, V),  # noqa: F821
                "floor": lambda: (Q @ Kt) @ V,  # noqa: F821
            }
            if use_torch:
                tq, tk, tv = (torch.from_numpy(a) for a in (Q, K, V))

                def run_torch():
                    with torch.inference_mode():
                        return F.scaled_dot_product_attention(tq, tk, tv)

                contenders["torch"] = run_torch
            for func in contenders.values():  # warm-up: page faults, thread start-up
                func()
                gc.collect()
            times = {name: [] for name in contenders}
            for _ in range(reps):
                for name, func in contenders.items():
                    times[name].append(time_once(func))
                    gc.collect()  # free the last result before the next contender runs
            row = {"dtype": np.dtype(dtype).name, "n": n}
            for name, ts in times.items():
                row[name] = statistics.median(ts)
            row["ref/floor"] = statistics.median(r / f for r, f in zip(times["ref"], times["floor"]))
            row["best ref/floor"] = min(times["ref"]) / min(times["floor"])  # each at its least disturbed turn
            if use_torch:
                row["torch/floor"] = statistics.median(t / f for t, f in zip(times["torch"], times["floor"]))
                row["ref/torch"] = statistics.median(r / t for r, t in zip(times["ref"], times["torch"]))
            rows.append(row)
            print(format_row(row, use_torch), flush=True)
            del Q, K, V, Kt, contenders
            gc.collect()
    return rows


def header(use_torch: bool) -> str:
    cols = "| dtype | n | ref s | floor s | ref/floor | best ref/floor |"
    sep = "|---|---:|---:|---:|---:|---:|"
    if use_torch:
        cols += " torch s | torch/floor | ref/torch |"
        sep += "---:|---:|---:|"
    return cols + "\n" + sep


def format_row(row: dict, use_torch: bool) -> str:
    line = (f"| {row['dtype']} | {row['n']} | {row['ref']:.4f} | {row['floor']:.4f} | {row['ref/floor']:.2f} "
            f"| {row['best ref/floor']:.2f} |")
    if use_torch:
        line += f" {row['torch']:.4f} | {row['torch/floor']:.2f} | {row['ref/torch']:.2f} |"
    return line


def peak_bytes(func) -> tuple[int, float]:
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    start = time.perf_counter()
    result = func()
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    gc.collect()
    return peak, seconds


def bench_memory(n: int, dtype, block_size: int) -> None:
    rng = np.random.default_rng(1)
    Q, K, V = (rng.standard_normal((n, D_K)).astype(dtype) for _ in range(3))
    score_mb = n * n * np.dtype(dtype).itemsize / 1e6
    print(f"\nPeak memory (tracemalloc), one head, n = {n}, d_k = d_v = {D_K}, {np.dtype(dtype).name} "
          f"(one n x n array = {score_mb:.0f} MB; inputs allocated before tracing):")
    block_peak, block_s = peak_bytes(lambda: blockwise_attention(Q, K, V, block_size=block_size))
    print(f"  blockwise_attention(block_size={block_size}): {block_peak / 1e6:9.1f} MB  ({block_s:.1f} s)", flush=True)
    full_peak, full_s = peak_bytes(lambda: scaled_dot_product_attention(Q, K, V))
    print(f"  scaled_dot_product_attention:          {full_peak / 1e6:9.1f} MB  ({full_s:.1f} s)")
    print(f"  blockwise / full = 1/{full_peak / block_peak:.0f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="128,256,512,1024,2048,4096", help="comma-separated n (default %(default)s)")
    parser.add_argument("--dtypes", default="float32,float64", help="comma-separated dtypes (default %(default)s)")
    parser.add_argument("--reps", type=int, default=7, help="timed turns per n and dtype (default %(default)s)")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="wall: elapsed time (default); cpu: the process's CPU time, meaningful on one core "
                             "(run under `taskset -c 0`), where it does not depend on other processes' load")
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch even if it can be imported")
    parser.add_argument("--no-speed", action="store_true", help="skip the timing table")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory measurement")
    parser.add_argument("--memory-n", type=int, default=16_384, help="n for the memory measurement (default %(default)s)")
    parser.add_argument("--block-size", type=int, default=128, help="blockwise_attention's block size (default %(default)s)")
    args = parser.parse_args(argv)
    use_torch = torch is not None and not args.no_torch
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    print(f"numpy {np.__version__}, Python {platform.python_version()}, {os.cpu_count()} cores, "
          f"{len(os.sched_getaffinity(0))} usable; clock: {args.clock}; load average {os.getloadavg()[0]:.1f}")
    print(f"BLAS: {blas_description()}")
    print(f"torch: {torch.__version__ + f' ({torch.get_num_threads()} threads)' if use_torch else 'skipped'}")
    if not args.no_speed:
        sizes = [int(s) for s in args.sizes.split(",")]
        dtypes = [np.dtype(d).type for d in args.dtypes.split(",")]
        print(f"\nbatch {BATCH}, {HEADS} heads, d_k = d_v = {D_K}; medians of {args.reps} interleaved turns\n")
        print(header(use_torch), flush=True)
        bench_speed(sizes, dtypes, args.reps, use_torch)
    if not args.no_memory:
        bench_memory(args.memory_n, np.float64, args.block_size)


if __name__ == "__main__":
    main()
