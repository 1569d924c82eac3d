"""Time the course build two ways, side by side in one run, on the same notebooks and parameters:

(a) the lessons one after another with plain papermill, each with the seed's own thread setting
    (lesson 1: torch.set_num_threads(4); lessons 4-5: one thread, seeds one after another; lessons 2-3: default);
(b) the course's build step (`python -m builder`): lessons concurrently, one kernel per core, threads split.

The extended multi-seed study of lesson 5 is left out of both (TADQIQOT=False); --with-study keeps it in both.
Prints both wall times, the peak memory of all processes together, and the ratio (goal: b/a <= 0.4).
    .venv/bin/python bench/course_bench.py [--with-study]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED_THREADS = {"01": "4", "04": "1", "05": "1"}  # what each seed script set; others used torch's default


def tree_rss(pid: int) -> int:
    """Resident memory (bytes) of a process and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            p = int(stat.parent.name)
            children.setdefault(int(fields[1]), []).append(p)
            rss[p] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo += children.get(p, [])
    return total


def run_measured(commands: list[tuple[list[str], dict]]) -> tuple[float, int]:
    """Run commands one after another; wall time and peak memory of each command's process tree."""
    peak, start = 0, time.perf_counter()
    for cmd, env in commands:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        done = threading.Event()

        def sample(proc=proc, done=done):
            nonlocal peak
            while not done.is_set():
                peak = max(peak, tree_rss(proc.pid))
                time.sleep(0.2)

        sampler = threading.Thread(target=sample)
        sampler.start()
        _, err = proc.communicate()
        done.set()
        sampler.join()
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{err[-3000:]}")
    return time.perf_counter() - start, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--with-study", action="store_true", help="keep lesson 5's extended study in both runs")
    args = parser.parse_args()
    study = "True" if args.with_study else "False"
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    base_env = {k: v for k, v in os.environ.items() if k not in ("KURS_OQIMLAR", "KURS_RASMLAR")}
    base_env["PAPERMILL_EXECUTION"] = "1"  # no progress bars in either run
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "plain").mkdir()
        plain = []
        for nb in notebooks:
            env = dict(base_env, KURS_RASMLAR=f"{tmp}/plain/rasmlar")
            if nb.name[:2] in SEED_THREADS:
                env["KURS_OQIMLAR"] = SEED_THREADS[nb.name[:2]]
            plain.append(([sys.executable, "-m", "papermill", str(nb), f"{tmp}/plain/{nb.name}",
                           "-p", "TADQIQOT", study, "--cwd", tmp], env))
        t_plain, m_plain = run_measured(plain)
        ours = [([sys.executable, "-m", "builder", "--out", f"{tmp}/ours", "--param", f"TADQIQOT={study}"],
                 base_env)]
        t_ours, m_ours = run_measured(ours)
    print(f"cores: {len(os.sched_getaffinity(0))}, extended study: {'in both' if args.with_study else 'in neither'}")
    print(f"(a) plain papermill, one after another: {t_plain:7.1f} s   peak memory {m_plain / 2**20:6.0f} MiB")
    print(f"(b) course build (python -m builder):   {t_ours:7.1f} s   peak memory {m_ours / 2**20:6.0f} MiB")
    print(f"ratio b/a: {t_ours / t_plain:.2f}  (goal <= 0.4)")


if __name__ == "__main__":
    main()
