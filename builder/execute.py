"""Execute lesson notebooks with papermill, several at once, and export each to HTML."""

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import papermill
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


def execute_one(notebook: Path, out_dir: Path, parameters: dict, timeout: int) -> Run:
    executed = out_dir / notebook.name
    html = executed.with_suffix(".html")
    start = time.perf_counter()
    error = None
    try:
        papermill.execute_notebook(
            str(notebook), str(executed), parameters=parameters, cwd=str(out_dir),
            kernel_name="python3", progress_bar=False, execution_timeout=timeout,
        )
    except Exception as exc:  # a failed lesson is reported; the others still build
        error = f"{type(exc).__name__}: {exc}".strip()[:2000]
    seconds = time.perf_counter() - start
    if executed.exists():
        body, _ = HTMLExporter().from_notebook_node(nbformat.read(executed, as_version=4))
        html.write_text(body, encoding="utf-8")
    return Run(notebook, executed, html, seconds, error)


def execute_all(notebooks: list[Path], out_dir: Path, parameters: dict | None = None,
                jobs: int | None = None, timeout: int = 1200) -> list[Run]:
    """Execute notebooks concurrently into out_dir; figures go to out_dir/rasmlar."""
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = jobs or min(len(notebooks), oqimlar_soni())
    os.environ[OQIMLAR_OZGARUVCHISI] = str(threads_per_kernel(jobs))
    os.environ[RASMLAR_OZGARUVCHISI] = str((out_dir / "rasmlar").resolve())
    os.environ["PAPERMILL_EXECUTION"] = "1"
    # Longest lessons first, so a slow one does not start last and leave a core idle.
    ordered = sorted(notebooks, key=lambda nb: -nb.stat().st_size)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        runs = list(pool.map(lambda nb: execute_one(nb, out_dir, parameters or {}, timeout), ordered))
    return sorted(runs, key=lambda run: run.source.name)
