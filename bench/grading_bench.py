"""Grade a class of generated `multihead` submissions two ways, side by side in one run:

(a) plain `nbgrader autograde`, one student after another, as nbgrader ships it (no sandbox);
(b) this course's `make grade` entry point (`python -m grading`: sandboxed, parallel, checked, feedback).

Prints seconds per submission for each and their ratio (goal: b/a <= 0.5 on a 2-core machine).
    .venv/bin/python bench/grading_bench.py [--students 30]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grading.export import raw_scores  # noqa: E402
from grading.prepare import nbgrader_meta  # noqa: E402


def student_work(name: str, kind: int):
    """kind 0: every answer right; 1 and 2: every other answer right, the rest left as the release's stub.

    Every notebook has answers, so none is skipped as unanswered: the class costs the grader its full price.
    """
    solved = nbformat.read(ROOT / "source" / "multihead" / f"{name}.ipynb", as_version=4)
    if kind == 0:
        return solved
    work = nbformat.read(ROOT / "release" / "multihead" / f"{name}.ipynb", as_version=4)
    answers = [c for c in work.cells if nbgrader_meta(c).get("solution")]
    for cell in answers[kind - 1::2]:
        cell.source = next(c.source for c in solved.cells
                           if nbgrader_meta(c).get("grade_id") == nbgrader_meta(cell)["grade_id"])
    return work


def make_course(folder: Path, students: int) -> Path:
    folder.mkdir(parents=True)
    for item in ("nbgrader_config.py", "source", "release"):
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, folder / item)
    for i in range(students):
        out = folder / "submitted" / f"talaba{i:02d}" / "multihead"
        out.mkdir(parents=True)
        for name in ("savollar", "xatolar"):
            nbformat.write(student_work(name, i % 3), out / f"{name}.ipynb")
    return folder


def env() -> dict:
    return dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return time.perf_counter() - start


def plain_scores(course: Path) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        return {s.student.id: s.score for s in gradebook.assignment_submissions("multihead")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    args = parser.parse_args()
    nbgrader = [sys.executable, "-m", "nbgrader"]
    with tempfile.TemporaryDirectory() as tmp:
        plain = make_course(Path(tmp) / "plain", args.students)
        ours = make_course(Path(tmp) / "ours", args.students)
        subprocess.run([*nbgrader, "generate_assignment", "multihead", "--force",
                        f"--CourseDirectory.release_directory={plain / 'build-release'}"],
                       cwd=plain, env=env(), check=True, capture_output=True)
        t_plain = timed([*nbgrader, "autograde", "multihead", "--create", "--force"], plain)
        t_ours = timed([sys.executable, "-m", "grading", "--root", str(ours)], ours)
        ours_scores = raw_scores(ours / "build" / "grades.csv")
        differ = sorted(s for s, score in plain_scores(plain).items() if ours_scores.get(s) != score)
    n = args.students
    print(f"submissions: {n}, cores: {len(os.sched_getaffinity(0))}")
    print(f"plain nbgrader autograde (sequential): {t_plain:7.1f} s  {t_plain / n:5.2f} s/submission")
    print(f"make grade (sandboxed, parallel):      {t_ours:7.1f} s  {t_ours / n:5.2f} s/submission")
    print(f"ratio make grade / plain: {t_ours / t_plain:.2f}  (goal <= 0.5)")
    print(f"scores that differ between the two: {len(differ)} {differ[:5]}")


if __name__ == "__main__":
    main()
