"""The sandbox itself, probed from inside a kernel: identity, capabilities, files, network, processes."""

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from nbformat import v4

from grading.execute import run_in_sandbox
from grading.sandbox import COURSE, FIRST_UID, SCRATCH_BYTES, ForkServer, Limits, SandboxError, unavailable_reason

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or unavailable_reason() is not None,
                                reason="the grading sandbox is set up as root")
UID = FIRST_UID + 40

PROBE = r"""
import json, os, socket, sys
def fails(action):
    try:
        action()
        return False
    except Exception:
        return True
status = dict(l.split(":\t") for l in open("/proc/self/status").read().splitlines() if ":\t" in l)
print(json.dumps({
    "uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(), "pid": os.getpid(),
    "caps": sorted({status[k].strip() for k in status if k.startswith("Cap")}),
    "no_new_privs": status["NoNewPrivs"].strip(),
    "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
    "seen": {p: os.path.exists(p) for p in PATHS},
    "network": fails(lambda: socket.create_connection(("1.1.1.1", 53), timeout=2)),
    "write_venv": fails(lambda: open(os.path.join(sys.prefix, "x"), "w")),
    "write_course_code": fails(lambda: open(os.path.join(COURSE, "grading", "x.py"), "w")),
    "secret": os.environ.get("KURS_MAXFIY"),
}))
"""


def probe_notebook(paths: list[str]):
    setup = f"PATHS = {paths!r}\nCOURSE = {str(COURSE)!r}"
    return v4.new_notebook(cells=[v4.new_code_cell(setup), v4.new_code_cell(PROBE)])


def sandbox_processes() -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            uid = int(next(line for line in status.read_text().splitlines() if line.startswith("Uid:")).split()[1])
        except (OSError, StopIteration):
            continue
        if uid == UID:
            found.append(int(status.parent.name))
    return found


@pytest.fixture(scope="module")
def server():
    with ForkServer() as server:
        yield server


def test_kernel_is_locked_in(server, tmp_path, monkeypatch):
    monkeypatch.setenv("KURS_MAXFIY", "instructor token")
    neighbour = Path(tempfile.mkdtemp(prefix="kg-"))
    (neighbour / "boshqa_talaba.ipynb").write_text("{}")
    hidden = [str(COURSE / "source"), str(COURSE / "nbgrader_config.py"), str(COURSE / "gradebook.db"),
              str(neighbour / "boshqa_talaba.ipynb"), "/root/.bashrc", str(tmp_path)]
    (COURSE / "gradebook.db").exists() or hidden.remove(str(COURSE / "gradebook.db"))
    scratch = Path(tempfile.mkdtemp(prefix="kg-"))
    run = run_in_sandbox(probe_notebook(hidden), scratch, UID, 60, server)
    assert run.problems == []
    seen = json.loads(run.notebook.cells[1].outputs[0]["text"])
    assert (seen["uid"], seen["gid"], seen["groups"]) == (UID, UID, [])
    assert seen["caps"] == ["0000000000000000"] and seen["no_new_privs"] == "1"
    assert seen["pid"] == 1 and max(seen["pids"]) < 100   # its own PID namespace
    assert not any(seen["seen"].values()), seen["seen"]
    assert seen["network"] and seen["write_venv"] and seen["write_course_code"]
    assert seen["secret"] is None


def test_no_process_outlives_its_notebook(server):
    escape = (
        "import ctypes, os, subprocess\n"
        "subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    ctypes.CDLL(None).prctl(1, 0, 0, 0, 0)  # no death signal\n"
        "    if os.fork() == 0:\n"
        "        import time; time.sleep(300)\n"
        "    os._exit(0)\n"
        "print('qochdim')\n"
    )
    notebook = v4.new_notebook(cells=[v4.new_code_cell(escape)])
    run = run_in_sandbox(notebook, Path(tempfile.mkdtemp(prefix="kg-")), UID, 60, server)
    assert "qochdim" in run.notebook.cells[0].outputs[0]["text"]
    assert sandbox_processes() == []


def test_a_kernel_that_cannot_start_stops_grading(server):
    """A kernel that dies before its first cell (here: no memory to start in) is the grader's failure: after a
    retry it raises SandboxError, which stops the run, instead of giving the student a zero."""
    notebook = v4.new_notebook(cells=[v4.new_code_cell("javob = 1")])
    with pytest.raises(SandboxError, match="did not start"):
        run_in_sandbox(notebook, Path(tempfile.mkdtemp(prefix="kg-")), UID, 10, server, Limits(RLIMIT_AS=1 << 20))
    assert sandbox_processes() == []


def test_a_failed_lock_in_is_refused_before_any_code_runs(server):
    """If the sandbox cannot be built (here: a file limit above the system's), no kernel starts outside it."""
    notebook = v4.new_notebook(cells=[v4.new_code_cell("javob = 1")])
    with pytest.raises(SandboxError, match="locking the kernel in failed"):
        run_in_sandbox(notebook, Path(tempfile.mkdtemp(prefix="kg-")), UID, 10, server, Limits(RLIMIT_NOFILE=1 << 30))


def test_a_full_disk_is_the_students_own(server):
    """Writing without end fills the notebook's own scratch tmpfs, not the machine's disk."""
    fill = (
        "import os\nwritten = 0\n"
        "try:\n"
        "    for i in range(1000):\n"
        "        with open(f'katta{i}.bin', 'wb') as f:\n"
        "            for _ in range(60):\n"
        "                f.write(b'0' * (1 << 20))\n"
        "                written += 1 << 20\n"
        "except OSError as exc:\n"
        "    print(written, exc.errno)\n"
    )
    scratch = Path(tempfile.mkdtemp(prefix="kg-"))
    run = run_in_sandbox(v4.new_notebook(cells=[v4.new_code_cell(fill)]), scratch, UID, 60, server)
    written, errno = map(int, run.notebook.cells[0].outputs[0]["text"].split())
    assert errno == 28 and written <= SCRATCH_BYTES   # ENOSPC
    assert list(scratch.iterdir()) == []              # the tmpfs is gone with the notebook


STACK_ENVIRONMENT = r"""
import ctypes
libc = ctypes.CDLL(None)
address = ctypes.c_void_p.from_address(ctypes.c_void_p.in_dll(libc, "__libc_stack_end").value + 8).value
strings = []
while (s := ctypes.string_at(address)):
    strings.append(s.decode(errors="replace"))
    address += len(s) + 1
print([s for s in strings if "MAXFIY" in s or "JPY_API" in s])
"""


def test_no_secret_of_the_grader_reaches_kernel_memory(monkeypatch, tmp_path):
    """Not in os.environ, nor in the environment block on the kernel's stack (inherited from the server);
    nor does a course graded from outside the usual folders show through."""
    monkeypatch.setenv("KURS_MAXFIY", "instructor token")
    monkeypatch.setenv("JPY_API_TOKEN", "hub token")
    course = Path(tempfile.mkdtemp(prefix="kg-kurs-", dir="/var/lib"))
    try:
        (course / "source").mkdir()
        with ForkServer(course) as own_server:
            cells = [v4.new_code_cell(STACK_ENVIRONMENT),
                     v4.new_code_cell(f"import os\nprint(os.path.exists({str(course / 'source')!r}), "
                                      "os.access('/dev/shm', os.W_OK), os.access('/run', os.W_OK))")]
            run = run_in_sandbox(v4.new_notebook(cells=cells), Path(tempfile.mkdtemp(prefix="kg-")), UID, 60,
                                 own_server)
    finally:
        shutil.rmtree(course)
    assert run.problems == []
    assert run.notebook.cells[0].outputs[0]["text"].strip() == "[]"
    assert run.notebook.cells[1].outputs[0]["text"].split() == ["False", "False", "False"]


def test_a_notebook_is_held_to_one_core_and_its_memory_in_total(server):
    """Its slot's cgroups (v1 here) hold the kernel and every process it starts, whatever they do."""
    cell = ("import os, subprocess\n"
            "child = subprocess.run(['cat', '/proc/self/cgroup'], capture_output=True, text=True).stdout\n"
            "print(sorted(l.split(':', 2)[1] for l in child.splitlines() if 'kurs-baholash' in l))\n")
    run = run_in_sandbox(v4.new_notebook(cells=[v4.new_code_cell(cell)]), Path(tempfile.mkdtemp(prefix="kg-")),
                         UID, 60, server)
    assert server.cgroups_missing == set()
    controllers = run.notebook.cells[0].outputs[0]["text"].strip()
    assert controllers in ("['cpu', 'memory', 'pids']", "['']"), controllers   # v1, or v2's single hierarchy
    group = Path("/sys/fs/cgroup/memory") / f"kurs-baholash-{UID}"
    if group.exists():
        assert int((group / "memory.limit_in_bytes").read_text()) == Limits().RLIMIT_AS
        quota = Path("/sys/fs/cgroup/cpu") / f"kurs-baholash-{UID}" / "cpu.cfs_quota_us"
        assert quota.read_text().strip() == "100000"
