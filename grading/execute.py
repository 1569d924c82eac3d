"""Execute a prepared notebook in the sandbox and check its test cells outside the student's kernel.

A test cell passes only if nbgrader would pass it (no error, nothing on stderr) AND the plain records it
printed (`KURS-NATIJA {...}` lines: the normalised answer, or a drill's outputs on hidden inputs) equal the
records the instructor's source notebook prints. Code in the student's kernel can silence errors or patch
the checks, but it cannot make a wrong answer print the right record: the stricter check decides.
"""

import atexit
import time
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode, v4

from grading.prepare import nbgrader_meta
from grading.sandbox import ForkServer, Limits, SandboxError, SandboxKernelManager, scratch_folder
from grading.tekshiruv import MARKER, records_match

MAX_OUTPUT_CHARS = 100_000   # per cell; the rest is dropped and reported
OUTSIDE_CHECK_FAILED = "natija tashqi tekshiruvdan o'tmadi (javob noto'g'ri yoki test bajarilmadi)"


class KernelNeverStarted(Exception):
    """The kernel died or hung before the first cell."""


@dataclass
class Execution:
    notebook: NotebookNode
    seconds: float
    problems: list[str] = field(default_factory=list)


class CappedClient(NotebookClient):
    """nbclient that stops keeping a cell's output once it has printed MAX_OUTPUT_CHARS."""

    def output(self, outs, msg, display_id, cell_index):
        kept = self.__dict__.setdefault("_kept", {})
        size = len(str(msg.get("content", "")))
        if kept.get(cell_index, 0) + size > MAX_OUTPUT_CHARS:
            self.__dict__.setdefault("_truncated", set()).add(cell_index)
            return None
        kept[cell_index] = kept.get(cell_index, 0) + size
        return super().output(outs, msg, display_id, cell_index)

    def _update_display_id(self, display_id, msg):
        """update_display() replaces an output in place: held to the same cap, and dropped beyond it."""
        if len(str(msg.get("content", ""))) <= MAX_OUTPUT_CHARS:
            super()._update_display_id(display_id, msg)


def run_in_sandbox(notebook: NotebookNode, scratch: Path, uid: int, cell_timeout: int,
                   server: ForkServer | None, limits: Limits | None = None) -> Execution:
    """Execute in a sandbox forked by `server`; None (the instructor's explicit choice) runs a plain kernel.

    A kernel that dies before running any cell is the grader's failure, not the student's: it is retried
    once, then SandboxError stops the whole run (so no student gets a zero for it).
    """
    if server is None:
        return execute_notebook(notebook, scratch, AsyncKernelManager, cell_timeout)
    manager = SandboxKernelManager.sandboxed(server, scratch, uid, limits or Limits())
    for _ in range(2):
        try:
            with scratch_folder(scratch, uid):
                return execute_notebook(notebook, scratch, manager, cell_timeout)
        except KernelNeverStarted as exc:
            failure = exc
    raise SandboxError(f"a sandboxed kernel did not start, twice: {failure}")


def execute_notebook(notebook: NotebookNode, scratch: Path, manager: type[AsyncKernelManager],
                     cell_timeout: int) -> Execution:
    client = CappedClient(notebook, kernel_name="python3", allow_errors=True, timeout=cell_timeout,
                          kernel_manager_class=manager, record_timing=False, store_widget_state=False)
    started = []
    client.on_notebook_start = lambda notebook: started.append(True)
    start, problems = time.perf_counter(), []
    try:
        client.execute(cwd=str(scratch))
    except Exception as exc:
        if not started:
            raise KernelNeverStarted(f"{type(exc).__name__}: {str(exc)[:300]}") from exc
        problems.append(failure_problem(exc, cell_timeout))
    finally:
        atexit.unregister(client._cleanup_kernel)  # nbclient leaves it registered when the kernel never started
    for index in sorted(client.__dict__.get("_truncated", ())):
        problems.append(f"{index}-katak chiqishi juda katta: {MAX_OUTPUT_CHARS} belgidan keyingisi tashlandi")
    return Execution(notebook, time.perf_counter() - start, problems)


def failure_problem(exc: Exception, cell_timeout: int) -> str:
    """What the report says when the student's notebook stopped early."""
    if isinstance(exc, DeadKernelError):
        return "yadro (kernel) to'xtab qoldi: keyingi kataklar bajarilmadi"
    if isinstance(exc, CellTimeoutError):
        return f"katak {cell_timeout} soniyadan ko'p ishladi: to'xtatildi, keyingilari bajarilmadi"
    return f"bajarishda xato: {type(exc).__name__}: {str(exc)[:200]}"   # the batch goes on


def stream_text(output) -> str:
    """A stream output's text, whatever shape the kernel sent it in (nbformat allows a list of lines)."""
    text = output.get("text", "")
    return "".join(map(str, text)) if isinstance(text, list) else str(text)


def records(cell) -> list[str]:
    text = "".join(stream_text(o) for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stdout")
    return [line for line in text.splitlines() if line.startswith(MARKER)]


def reference_records(notebook: NotebookNode) -> dict[str, list[str]]:
    """grade_id -> records printed by each test cell of the executed instructor notebook."""
    return {nbgrader_meta(c)["grade_id"]: records(c) for c in notebook.cells
            if c.cell_type == "code" and nbgrader_meta(c).get("grade")}


def agree(expected: list[str], got: list[str]) -> bool:
    """records_match, and a malformed student line (say, JSON nested a million deep) is a mismatch."""
    try:
        return records_match(expected, got)
    except Exception:
        return False


def failure(text: str) -> NotebookNode:
    return v4.new_output("error", ename="TekshiruvXatosi", evalue=text, traceback=[f"TekshiruvXatosi: {text}"])


def fail_every_test(notebook: NotebookNode) -> None:
    """When a notebook's outputs cannot even be checked, its tests keep no output but the failure."""
    for cell in notebook.cells:
        if cell.cell_type == "code" and nbgrader_meta(cell).get("grade"):
            cell.outputs = [failure(OUTSIDE_CHECK_FAILED)]


def verify(notebook: NotebookNode, reference: dict[str, list[str]]) -> list[str]:
    """Fail every test cell whose records differ from the reference.

    Returns the grade ids that nbgrader alone would have passed: a sign of tampering, worth reporting.
    """
    suspicious = []
    for cell in notebook.cells:
        grade_id = nbgrader_meta(cell).get("grade_id")
        if cell.cell_type != "code" or not nbgrader_meta(cell).get("grade"):
            continue
        # nbgrader reads a numeric execute_result as partial credit: keep it visible, not scorable
        for out in cell.outputs:
            if out.get("output_type") == "execute_result":
                out.output_type = "display_data"
                out.pop("execution_count", None)
        expected = reference.get(grade_id)
        if not expected or agree(expected, records(cell)):
            continue
        if not any(o.get("output_type") == "error" or o.get("name") == "stderr" for o in cell.outputs):
            suspicious.append(grade_id)
        cell.outputs.append(failure(OUTSIDE_CHECK_FAILED))
    return suspicious
