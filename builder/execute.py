"""Execute lesson notebooks with papermill, several at once, and export each to HTML."""

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter

from helpers.muhit import OQIMLAR_OZGARUVCHISI, oqimlar_soni
from helpers.rasm import RASMLAR_OZGARUVCHISI


@dataclass
class Run:
    """The outcome of executing one notebook."""

    source: Path
    executed: Path
    html: Path
    seconds: float
    threads: int
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def lesson_notebooks(folder: Path) -> list[Path]:
    found = sorted(folder.glob("[0-9][0-9]_*.ipynb"))
    if not found:
        raise FileNotFoundError(f"no lesson notebooks (NN_name.ipynb) in {folder}")
    return found


def threads_per_kernel(jobs: int) -> int:
    """Split the machine's cores between concurrent kernels so torch never oversubscribes them."""
    return max(1, oqimlar_soni() // jobs)


def execute_one(notebook: Path, out_dir: Path, parameters: dict, timeout: int, env: dict) -> Run:
    """papermill in its own process: it changes the working directory, which threads would share."""
    executed = out_dir / notebook.name
    html = executed.with_suffix(".html")
    cmd = [sys.executable, "-m", "papermill", str(notebook), str(executed), "--cwd", str(out_dir),
           "--kernel", "python3", "--no-progress-bar", "--execution-timeout", str(timeout),
           "--parameters_yaml", json.dumps(parameters)]
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    error = None
    if done.returncode != 0:  # a failed lesson is reported; the others still build
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        error = " | ".join(lines[-3:])[:2000] or f"papermill exited with {done.returncode}"
    if executed.exists():
        body, _ = HTMLExporter().from_notebook_node(nbformat.read(executed, as_version=4))
        html.write_text(body, encoding="utf-8")
    return Run(notebook, executed, html, seconds, int(env[OQIMLAR_OZGARUVCHISI]), error)


def execute_all(notebooks: list[Path], out_dir: Path, parameters: dict | None = None,
                jobs: int | None = None, timeout: int = 2400) -> list[Run]:
    """Execute notebooks concurrently into out_dir; figures go to out_dir/rasmlar."""
    out_dir = out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = jobs or min(len(notebooks), oqimlar_soni())
    env = dict(os.environ, PAPERMILL_EXECUTION="1")
    env[OQIMLAR_OZGARUVCHISI] = str(threads_per_kernel(jobs))
    env[RASMLAR_OZGARUVCHISI] = str(out_dir / "rasmlar")
    # Longest lessons first (by the last build's times), so a slow one never starts last on an idle core.
    timings_file = out_dir / "timings.json"
    last = json.loads(timings_file.read_text()) if timings_file.exists() else {}
    ordered = sorted((nb.resolve() for nb in notebooks), key=lambda nb: -last.get(nb.name, nb.stat().st_size))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        runs = list(pool.map(lambda nb: execute_one(nb, out_dir, parameters or {}, timeout, env), ordered))
    timings_file.write_text(json.dumps({run.source.name: round(run.seconds, 1) for run in runs}, indent=1))
    return sorted(runs, key=lambda run: run.source.name)
