"""nbgrader's exchange between real Unix users on one machine, as a class on a shared server uses it.

The instructor (root here) releases `multihead` to a local exchange; two students, each a separate Unix
user, fetch it, answer and submit; the instructor collects, grades with the course's entry point (what
`make grade` runs) and releases feedback; each student fetches their own. Students must not be able to
reach each other's work or the instructor's course folder.

Needs root (useradd, runuser); the users are removed afterwards.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.lab_server import copy_course, grade, sandbox_unavailable, time_limit

COURSE_ID = "attention-kursi"
ASSIGNMENT = "multihead"
TOOLS = ("useradd", "userdel", "runuser", "unshare")


def unavailable() -> str | None:
    if os.geteuid() != 0:
        return "needs root: it creates two Unix users (useradd) and runs nbgrader as each of them (runuser)"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"missing tools: {', '.join(missing)}"
    return sandbox_unavailable()  # grading student code needs the sandbox


pytestmark = pytest.mark.skipif(bool(unavailable()), reason=unavailable() or "")


class Student:
    def __init__(self, name: str, config_dir: Path, mount_point: Path):
        self.name = name
        self.config_dir = config_dir
        self.mount_point = mount_point
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", "-K", "HOME_MODE=0700", name],
                       check=True, capture_output=True, text=True)
        self.home = Path(os.path.expanduser(f"~{name}"))

    def run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        """A command as this user, in their home, with a clean environment (as a login would give)."""
        env = [f"HOME={self.home}", f"USER={self.name}", "LANG=C.UTF-8", "PYTHONWARNINGS=ignore",
               f"PATH={Path(sys.executable).parent}:/usr/bin:/bin", f"JUPYTER_CONFIG_DIR={self.config_dir}"]
        command = ["runuser", "-u", self.name, "--", "env", "-i", *env, *args]
        return subprocess.run(interpreter_reachable(command, self.mount_point), cwd=self.home,
                              capture_output=True, text=True, timeout=timeout)

    def nbgrader(self, *args: str) -> str:
        done = self.run(sys.executable, "-m", "nbgrader", *args, "--course", COURSE_ID)
        assert done.returncode == 0, f"{self.name}: nbgrader {' '.join(args)} failed:\n{done.stdout}{done.stderr}"
        return done.stdout + done.stderr

    def python(self, code: str, *args: str) -> str:
        done = self.run(sys.executable, "-c", code, *args)
        assert done.returncode == 0, f"{self.name}: python failed:\n{done.stdout}{done.stderr}"
        return done.stdout

    def remove(self) -> None:
        subprocess.run(["userdel", "--remove", self.name], capture_output=True, text=True)


def closed_ancestor(path: Path) -> Path | None:
    """The first folder on the way to `path` that other users may not enter, if any."""
    for folder in [*reversed(path.parents), path]:
        if folder.is_dir() and not folder.stat().st_mode & 0o001:
            return folder
    return None


def interpreter_reachable(command: list[str], stash: Path) -> list[str]:
    """Run `command` where other users can execute this Python.

    On a class server Python is installed for everyone. Here it may sit in root's private home (pyenv under
    /root, mode 0700); then the command runs in a private mount namespace where that folder is replaced by
    an empty one holding only the interpreter's installation, so nothing else of root's becomes visible.
    """
    prefix = Path(sys.base_prefix).resolve()
    closed = closed_ancestor(prefix)
    if closed is None:
        return command
    script = "\n".join([
        "set -e",
        "mount --make-rprivate /",
        f"mount --bind {prefix} {stash}",
        f"mount -t tmpfs -o size=1m,mode=755 tmpfs {closed}",
        f"mkdir -p {prefix}",
        f"mount --bind {stash} {prefix}",
        f"mount -o remount,bind,ro {prefix}",
        'exec "$@"',
    ])
    return ["unshare", "--mount", "--", "/bin/sh", "-c", script, "student", *command]


ANSWER = """
import sys, nbformat
path, answers = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
nb = nbformat.read(path, as_version=4)
for cell in nb.cells:
    grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
    if grade_id in answers:
        cell.source = answers[grade_id]
nbformat.write(nb, path)
"""

# Tries to read each path; prints what happened, so the test sees the user's view of the file system.
PROBE = """
import json, os, sys
seen = {}
for path in sys.argv[1:]:
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            open(path, "rb").read(1)
        seen[path] = "read"
    except OSError as exc:
        seen[path] = type(exc).__name__
print(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def classroom():
    tag = secrets.token_hex(3)
    # Short paths: the grading sandbox's kernel sockets live under the course (a socket path has <= 107 bytes).
    work = Path(tempfile.mkdtemp(prefix="kx-"))
    work.chmod(0o755)  # students must reach the exchange and the shared config below it
    exchange = work / "exchange"
    exchange.mkdir()
    exchange.chmod(0o1777)  # as nbgrader's docs ask: everyone may create, the sticky bit protects
    config_dir = work / "jupyter-config"  # stands for /etc/jupyter on a shared server
    config_dir.mkdir()
    (config_dir / "nbgrader_config.py").write_text(
        f"c = get_config()  # noqa: F821\nc.Exchange.root = {str(exchange)!r}\n"
        f"c.CourseDirectory.course_id = {COURSE_ID!r}\n")
    (config_dir / "nbgrader_config.py").chmod(0o644)
    instructor = work / "i"
    instructor.mkdir(mode=0o700)  # the instructor's home: private
    course = copy_course(instructor / COURSE_ID)
    mount_point = work / "python"  # where the interpreter is mounted aside while root's home is covered
    mount_point.mkdir()
    students = []
    try:
        for suffix in ("a", "b"):
            students.append(Student(f"kurs{tag}{suffix}", config_dir, mount_point))
        yield {"exchange": exchange, "course": course, "config_dir": config_dir, "students": students}
    finally:
        for student in students:
            student.remove()
        shutil.rmtree(work, ignore_errors=True)


def instructor_nbgrader(classroom, *args: str) -> str:
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(classroom["config_dir"]), PYTHONWARNINGS="ignore",
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=classroom["course"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"instructor: nbgrader {' '.join(args)} failed:\n{done.stdout}{done.stderr}"
    return done.stdout + done.stderr


def probe(student: Student, *paths: Path) -> dict[str, str]:
    return json.loads(student.python(PROBE, *map(str, paths)))


def test_release_fetch_submit_collect_grade_feedback(classroom):
    with time_limit(360, "the exchange round trip"):
        exchange, course = classroom["exchange"], classroom["course"]
        alice, bobur = classroom["students"]

        instructor_nbgrader(classroom, "release_assignment", ASSIGNMENT)
        for student, answer_01 in ((alice, "javob_01 = 8"), (bobur, "javob_01 = 64")):
            student.nbgrader("fetch_assignment", ASSIGNMENT)
            fetched = student.home / ASSIGNMENT / "savollar.ipynb"
            assert fetched.is_file(), f"{student.name} has no {fetched}"
            student.python(ANSWER, str(fetched), f"javob-01={answer_01}",
                           f"nega-11=Yozma javob: {student.name} o'zi yozdi.")
            student.nbgrader("submit", ASSIGNMENT)

        inbound = exchange / COURSE_ID / "inbound"
        submissions = {p.name.split("+")[0]: p for p in inbound.iterdir()}
        assert set(submissions) == {alice.name, bobur.name}, sorted(submissions)

        # What each student can reach of the other's work and of the instructor's course.
        seen = probe(bobur, inbound, alice.home / ASSIGNMENT / "savollar.ipynb", course / "source",
                     course / "source" / ASSIGNMENT / "savollar.ipynb", course / "nbgrader_config.py")
        assert set(seen.values()) == {"PermissionError"}, seen
        own = probe(bobur, bobur.home / ASSIGNMENT / "savollar.ipynb")
        assert set(own.values()) == {"read"}, own  # the probe itself can read

        instructor_nbgrader(classroom, "collect", ASSIGNMENT)
        for student in (alice, bobur):
            assert (course / "submitted" / student.name / ASSIGNMENT / "savollar.ipynb").is_file()
        grade(course, ASSIGNMENT)  # python -m grading: what `make grade` runs
        scores = question_1_scores(course, [alice.name, bobur.name])
        assert scores == {alice.name: 1.0, bobur.name: 0.0}, scores

        # nbgrader release_feedback names each feedback file by a hash keyed with the submission's secret, so
        # the grading has to carry submission_secret.txt from submitted/ through autograded/ to feedback/.
        lost = [s.name for s in (alice, bobur)
                if not (course / "feedback" / s.name / ASSIGNMENT / "submission_secret.txt").is_file()]
        assert not lost, (f"feedback/<student>/{ASSIGNMENT}/submission_secret.txt missing for {lost}: the grading "
                          "pipeline must keep it beside timestamp.txt, or release_feedback cannot work")
        instructor_nbgrader(classroom, "release_feedback", ASSIGNMENT)
        for student, own_answer, other_answer in ((alice, "javob_01 = 8", "javob_01 = 64"),
                                                  (bobur, "javob_01 = 64", "javob_01 = 8")):
            student.nbgrader("fetch_feedback", ASSIGNMENT)
            feedback = sorted((student.home / ASSIGNMENT / "feedback").glob("*/savollar.html"))
            assert len(feedback) == 1, f"{student.name}: {feedback}"
            text = feedback[0].read_text(encoding="utf-8")
            assert own_answer in text and other_answer not in text, f"{student.name} got someone else's feedback"
            assert f"{student.name} o'zi yozdi" in text.replace("&#39;", "'")
        # Bobur still cannot list the released feedback (its file names are hashes of each submission).
        assert probe(bobur, exchange / COURSE_ID / "feedback") == {
            str(exchange / COURSE_ID / "feedback"): "PermissionError"}


def question_1_scores(course: Path, students: list[str]) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gradebook:
        return {s: gradebook.find_grade("test-01", "savollar", ASSIGNMENT, s).score for s in students}

