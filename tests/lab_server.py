"""What the browser and exchange tests share: a throwaway copy of the course, a JupyterLab server on it
(loopback, random port, token), Debian's Chromium driven by Playwright, a hard time limit, and the course's
grading entry point run on a copy.

Nothing here writes into the repository except screenshots under build/screenshots/.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "build" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# What a course copy needs: the lessons, the assignment (source and release), the code they import and the
# nbgrader configuration. Class data (submitted/, autograded/, feedback/, gradebook.db) is never copied.
COURSE_PARTS = ["nbgrader_config.py", "notebooks", "helpers", "grading", "release", "source"]
IGNORE = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints", "rasmlar", "*.pyc")
# Reference records of the grading pipeline (build/grading-cache/, keyed by a hash of source/ and the
# checking code): carried from one course copy to the next within a test session, so only the first
# grading run of the session executes the instructor's notebooks.
_GRADING_CACHE = Path(tempfile.mkdtemp(prefix="kurs-grading-cache-"))
atexit.register(shutil.rmtree, _GRADING_CACHE, ignore_errors=True)


def copy_course(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for part in COURSE_PARTS:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, dest / part, ignore=IGNORE)
        else:
            shutil.copy2(source, dest / part)
    if any(_GRADING_CACHE.iterdir()):
        shutil.copytree(_GRADING_CACHE, dest / "build" / "grading-cache", dirs_exist_ok=True)
    return dest


def grade(course: Path, assignment: str = "multihead", timeout: float = 240) -> subprocess.CompletedProcess:
    """The course's grading entry point (what `make grade` runs) on a course copy.

    It runs from the repository so that the sandboxed kernels import the course's installed packages
    (the sandbox keeps only those visible); --root points it at the copy.
    """
    done = subprocess.run([sys.executable, "-m", "grading", "--root", str(course), "--assignment", assignment],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"python -m grading failed:\n{done.stdout}\n{done.stderr}"
    keep_grading_cache(course)
    return done


def keep_grading_cache(course: Path) -> None:
    cache = course / "build" / "grading-cache"
    if cache.is_dir():
        shutil.copytree(cache, _GRADING_CACHE, dirs_exist_ok=True)


def sandbox_unavailable() -> str | None:
    from grading.sandbox import unavailable_reason

    return unavailable_reason()


def browser_unavailable() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (make setup installs the lock)"
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} not found: `make test` installs Debian's chromium when run as root"
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def time_limit(seconds: float, what: str):
    """Fail (TimeoutError) when the block runs longer than `seconds`, wherever it is waiting."""

    def expired(signum, frame):
        raise TimeoutError(f"{what} took longer than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class LabServer:
    """`jupyter lab` on a course copy: 127.0.0.1, a random free port, a random token, private config dirs."""

    def __init__(self, course: Path, work: Path, extra_args: list[str] | None = None):
        self.course = course
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.log_path = work / "jupyter.log"
        config_dir = work / "jupyter-config"
        (config_dir / "labconfig").mkdir(parents=True, exist_ok=True)
        # The "receive Jupyter news?" toast would cover the notebook in screenshots.
        (config_dir / "labconfig" / "page_config.json").write_text(json.dumps(
            {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}))
        self.env = dict(os.environ)
        self.env.update({
            "JUPYTER_CONFIG_DIR": str(config_dir),
            "JUPYTER_RUNTIME_DIR": str(work / "runtime"),
            "JUPYTERLAB_SETTINGS_DIR": str(work / "lab-settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(work / "lab-workspaces"),
            "IPYTHONDIR": str(work / "ipython"),
            "MPLCONFIGDIR": str(work / "mpl"),
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
            "PYTHONWARNINGS": "ignore",
        })
        self.env.pop("CI", None)  # a student's session, not a batch run (progress bars as a student sees them)
        self.args = [
            sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
            "--port-retries=0", f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={course}",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            *(["--allow-root"] if os.geteuid() == 0 else []), *(extra_args or []),
        ]
        self.process: subprocess.Popen | None = None

    def url(self, path: str = "lab") -> str:
        sep = "&" if "?" in path else "?"
        return f"http://127.0.0.1:{self.port}/{path}{sep}token={self.token}"

    def get(self, path: str) -> tuple[int, dict, bytes]:
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/{path}",
                                         headers={"Authorization": f"token {self.token}"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers), exc.read()

    def request(self, method: str, path: str) -> None:
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/{path}", method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=30):
            pass

    def shutdown_kernels(self) -> None:
        """What closing the notebooks would do: no kernel of a finished test keeps its memory."""
        for kernel in json.loads(self.get("api/kernels")[2]):
            with contextlib.suppress(urllib.error.HTTPError):
                self.request("DELETE", f"api/kernels/{kernel['id']}")

    def start(self, timeout: float = 60) -> LabServer:
        self.log = open(self.log_path, "w")  # noqa: SIM115 (closed in stop)
        # cwd = the course, so nbgrader (formgrader, Validate) reads the course's nbgrader_config.py.
        self.process = subprocess.Popen(self.args, cwd=self.course, env=self.env, stdout=self.log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited ({self.process.returncode}):\n{self.log_text()}")
            with contextlib.suppress(OSError):
                if self.get("api/status")[0] == 200:
                    return self
            time.sleep(0.3)
        self.stop()
        raise TimeoutError(f"jupyter lab did not answer in {timeout} s:\n{self.log_text()}")

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        if getattr(self, "log", None):
            self.log.close()


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path
