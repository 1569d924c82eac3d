"""Grade every submission of an assignment: prepared from the course's copies, executed in parallel
sandboxes, checked outside the kernels, then recorded by nbgrader in a staging gradebook that replaces
the real one only when everything succeeded.

Layout (nbgrader's): submitted/<student>/<assignment>/*.ipynb in; autograded/, feedback/ and gradebook.db
out, plus build/grades.csv and build/grading/ (report). Student code never runs outside a sandbox here.
"""

import contextlib
import hashlib
import json
import os
import queue
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from grading import execute, tekshiruv
from grading.execute import fail_every_test, reference_records, run_in_sandbox, verify
from grading.prepare import executable_notebook, nbgrader_meta, read_student_notebook
from grading.record import check_gradebook, prepare_gradebook, record_and_publish
from grading.sandbox import FIRST_UID, ForkServer, unavailable_reason

ALLOWED_EXTRA = {"timestamp.txt", "submission_secret.txt"}  # nbgrader's own files


@dataclass
class StudentRun:
    student: str
    assignment: str
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    outside_failed: list[str] = field(default_factory=list)


@dataclass
class Course:
    root: Path
    assignment: str
    cell_timeout: int = 60
    server: ForkServer | None = None   # None: the instructor chose to run without a sandbox

    def notebooks(self) -> list[str]:
        names = sorted(p.stem for p in (self.root / "release" / self.assignment).glob("*.ipynb"))
        if not names:
            raise FileNotFoundError(f"release/{self.assignment}/ has no notebooks: run `make release` first")
        return names

    def release(self, name: str):
        return nbformat.read(self.root / "release" / self.assignment / f"{name}.ipynb", as_version=4)

    def source(self, name: str):
        return nbformat.read(self.root / "source" / self.assignment / f"{name}.ipynb", as_version=4)

    def students(self, only: str | None = None) -> list[str]:
        folder = self.root / "submitted"
        found = sorted(p.parent.name for p in folder.glob(f"*/{self.assignment}") if p.is_dir())
        if only is not None:
            found = [s for s in found if s == only]
            if not found:
                raise FileNotFoundError(f"no submission submitted/{only}/{self.assignment}/")
        return found


class Slots:
    """Sandbox identities handed to workers, so no two running kernels share a uid."""

    def __init__(self, count: int):
        self.free = queue.Queue()
        for i in range(count):
            self.free.put(FIRST_UID + 1 + i)


def extra_files(folder: Path, notebooks: list[str]) -> list[str]:
    expected = {f"{name}.ipynb" for name in notebooks} | ALLOWED_EXTRA
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.is_file() and str(p.relative_to(folder)) not in expected)


def unanswered(notebook, release) -> bool:
    """Every answer cell still holds the release's stub: running it cannot earn a point."""
    stubs = {nbgrader_meta(c)["grade_id"]: c.source for c in release.cells if nbgrader_meta(c).get("solution")}
    return all(c.source == stubs.get(nbgrader_meta(c)["grade_id"]) for c in notebook.cells
               if nbgrader_meta(c).get("solution"))


def execute_student(course: Course, student: str, slots: Slots, work: Path, staging: Path):
    """Run one student's notebooks in sandboxes; returns the run and {notebook name: executed notebook}."""
    run = StudentRun(student, course.assignment)
    submitted = course.root / "submitted" / student / course.assignment
    extras = extra_files(submitted, course.notebooks())
    if extras:
        run.problems.append(f"qo'shimcha fayllar e'tiborsiz qoldirildi (nusxalanmadi): {', '.join(extras[:10])}")
    out_dir = staging / "submitted" / student / course.assignment
    out_dir.mkdir(parents=True, exist_ok=True)
    for extra in sorted(ALLOWED_EXTRA):
        if (submitted / extra).is_file():
            shutil.copyfile(submitted / extra, out_dir / extra)
    executed = {}
    for name in course.notebooks():
        student_nb, problems = read_student_notebook(submitted / f"{name}.ipynb")
        notebook, more = executable_notebook(course.release(name), course.source(name), student_nb)
        run.problems += problems + [f"{name}: {p}" for p in more]
        if student_nb is not None and unanswered(notebook, course.release(name)):
            run.problems.append(f"{name}: hech bir javob katagi o'zgartirilmagan, bajarilmadi (0 ball)")
        elif student_nb is not None:  # nothing to run otherwise: every test then fails the outside check
            uid = slots.free.get()
            try:
                execution = run_in_sandbox(notebook, Path(tempfile.mkdtemp(dir=work)), uid, course.cell_timeout,
                                           course.server)
            finally:
                slots.free.put(uid)
            notebook = execution.notebook
            run.seconds += execution.seconds
            run.problems += [f"{name}: {p}" for p in execution.problems]
        executed[name] = notebook
    return run, executed


def check_student(run: StudentRun, executed: dict, references: dict, staging: Path) -> StudentRun:
    """The outside check of every test cell, then the notebooks go where nbgrader will record them."""
    out_dir = staging / "submitted" / run.student / run.assignment
    for name, notebook in executed.items():
        try:
            run.outside_failed += verify(notebook, references[name])
        except Exception as exc:  # outputs shaped to break the check cost this notebook only
            run.problems.append(f"{name}: chiqishlarni tekshirib bo'lmadi ({type(exc).__name__}), testlar 0 ball")
            fail_every_test(notebook)
        nbformat.write(notebook, out_dir / f"{name}.ipynb")
    return run


def reference_key(course: Course) -> str:
    """Identifies the source notebooks and the checking code the references were computed from."""
    digest = hashlib.sha256()
    for path in [*sorted((course.root / "source" / course.assignment).glob("*.ipynb")),
                 Path(tekshiruv.__file__), Path(execute.__file__)]:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def instructor_references(course: Course, slots: Slots, work: Path) -> dict[str, dict[str, list[str]]]:
    """Each test cell's records from the source notebooks, executed in the sandbox (cached per source)."""
    cache = course.root / "build" / "grading-cache" / f"{course.assignment}-{reference_key(course)}.json"
    if cache.exists():
        return json.loads(cache.read_text(encoding="utf-8"))
    references = {}
    for name in course.notebooks():
        uid = slots.free.get()
        try:
            execution = run_in_sandbox(course.source(name), Path(tempfile.mkdtemp(dir=work)), uid,
                                       course.cell_timeout, course.server)
        finally:
            slots.free.put(uid)
        refs = reference_records(execution.notebook)
        silent = [gid for gid, lines in refs.items() if not lines]
        if execution.problems or silent:
            raise RuntimeError(f"source/{course.assignment}/{name}.ipynb does not grade itself cleanly: "
                               f"{execution.problems} test cells without records: {silent}")
        references[name] = refs
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(references, ensure_ascii=False, indent=1), encoding="utf-8")
    return references


def grade(root: Path, assignment: str, student: str | None = None, jobs: int | None = None,
          sandbox: bool = True, out_dir: Path | None = None, cell_timeout: int = 60) -> list[StudentRun]:
    reason = unavailable_reason()
    if reason and sandbox:
        raise RuntimeError(f"Baholash to'xtatildi: talaba kodi uchun sandbox yaratib bo'lmaydi ({reason}). "
                           "Talaba kodini o'z huquqlaringiz bilan ishga tushirish xavfli; baribir shunday "
                           "qilmoqchi bo'lsangiz, --unsafe-no-sandbox bayrog'ini bering.")
    check_gradebook(root / "gradebook.db")
    jobs = jobs or len(os.sched_getaffinity(0))
    slots = Slots(jobs)
    out_dir = out_dir or root / "build"
    work_root = root / "build" / "grading-work"
    work_root.mkdir(parents=True, exist_ok=True)
    # Kernels' scratch folders hold IPC sockets, whose paths must stay under ~107 bytes: keep them short,
    # in /tmp (which each sandbox replaces by its own empty one, with only its scratch mounted back).
    with (ForkServer(root) if sandbox else contextlib.nullcontext()) as server, \
            tempfile.TemporaryDirectory(dir=work_root) as tmp, tempfile.TemporaryDirectory(prefix="kg-") as short:
        course = Course(root, assignment, cell_timeout, server)
        students = course.students(student)
        work = Path(short)
        work.chmod(0o711)
        staging = Path(tmp) / "staging"
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            # references, students and the staging gradebook all at once; checks wait for the references
            refs = pool.submit(instructor_references, course, slots, work)
            futures = [pool.submit(execute_student, course, s, slots, work, staging) for s in students]
            config = prepare_gradebook(root, assignment, staging)
            references = refs.result()
            runs = [check_student(*future.result(), references, staging) for future in futures]
        record_and_publish(root, assignment, [r.student for r in runs], staging, out_dir, config)
        print(f"graded {len(runs)} submission(s) of {assignment} in {time.perf_counter() - start:.1f} s")
        if server is not None and server.cgroups_missing:
            print("ogohlantirish: har slot uchun cgroup cheklovlari (bitta yadro, xotira, jarayonlar) qo'yilmadi: "
                  f"{'; '.join(sorted(server.cgroups_missing))}. Qolgan cheklovlar (rlimit) ishlaydi.")
    return runs
