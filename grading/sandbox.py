"""Run a student's kernel in a sandbox: its own identity, a private view of the files, no network, limits.

The grader (root) starts one fork server (grading/forkserver.py) per run; each kernel is a fork of it that
enters new mount, network, PID, IPC and UTS namespaces, keeps only the interpreter, the venv and the course's
packages (read-only) and its scratch folder in view, takes resource limits and drops to an unprivileged uid
without capabilities. The kernel talks to the grader over IPC sockets in the scratch folder, which keep
working inside a private network namespace; the grader holds a pidfd to signal or kill it.
"""

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner

from grading.forkserver import MS_NODEV, MS_NOSUID, mount, unmount

COURSE = Path(__file__).resolve().parent.parent
FIRST_UID = 61000  # sandbox identities: FIRST_UID + worker slot, owned by no account
# what a sandboxed kernel sees of the grader's environment; the rest (tokens, paths) stays outside
PASSED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM")
SCRATCH_BYTES = 512 << 20  # a notebook's scratch folder, RAM-backed
# kernels run side by side, one per core: one thread each, so they never oversubscribe
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


class SandboxError(RuntimeError):
    """The sandbox itself failed, not the student's code: grading stops and publishes nothing."""


@dataclass(frozen=True)
class Limits:
    RLIMIT_AS: int = 6 << 30         # address space; torch maps ~1 GiB on import
    RLIMIT_NPROC: int = 256          # per sandbox uid; threads count
    RLIMIT_FSIZE: int = 64 << 20     # bytes per file
    RLIMIT_NOFILE: int = 512
    RLIMIT_CORE: int = 0


def unavailable_reason() -> str | None:
    """Why no sandbox can be set up here, or None when it can."""
    if sys.platform != "linux":
        return f"the sandbox needs Linux namespaces; this is {sys.platform}"
    if os.geteuid() != 0:
        return "the sandbox is set up as root (namespaces, mounts and a separate uid); run grading as root"
    probe = subprocess.run([sys.executable, "-m", "grading.forkserver", "--probe"], cwd=COURSE,
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return f"the kernel refused new namespaces (unshare): {probe.stderr.strip()[-300:]}"
    return None


def visible_paths() -> list[Path]:
    """What the sandbox keeps visible, read-only: the interpreter, the venv and the course's packages."""
    venv = Path(sys.prefix)
    keep = [Path(sys.base_prefix).resolve(), venv, COURSE / "helpers", COURSE / "grading"]
    return list(dict.fromkeys(keep))


def hidden_paths(course_root: Path | None = None) -> list[Path]:
    """Covered by empty read-only-to-the-student tmpfs: the course (this checkout and the one being graded),
    temporary and shared-memory folders, homes."""
    hidden = [COURSE, Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"), Path("/run"), Path("/root"), Path("/home"),
              Path("/work")]
    if course_root and not any(course_root.resolve().is_relative_to(h) for h in hidden):
        hidden.append(course_root.resolve())   # the course being graded, wherever it lives
    return hidden


@contextlib.contextmanager
def scratch_folder(scratch: Path, uid: int):
    """The notebook's private folder: its own tmpfs (a full one stops only its owner), owned by the sandbox
    uid, closed to everyone else, unmounted afterwards."""
    scratch.mkdir(parents=True, exist_ok=True)
    mount("tmpfs", str(scratch), "tmpfs", MS_NOSUID | MS_NODEV, f"size={SCRATCH_BYTES},uid={uid},gid={uid},mode=700")
    try:
        yield scratch
    finally:
        unmount(str(scratch))


class ForkServer:
    """The grader's end of grading/forkserver.py: spawns sandboxed kernels, one request at a time."""

    def __init__(self, course_root: Path | None = None):
        self.hidden = [str(p) for p in hidden_paths(course_root) if p.exists()]
        self.channel, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # the server's memory is every kernel's: only what a kernel may see goes in (no instructor secrets)
        env = {k: v for k, v in os.environ.items() if k in PASSED_ENV} | ONE_THREAD | {"PYTHONPATH": str(COURSE)}
        self.process = subprocess.Popen([sys.executable, "-m", "grading.forkserver", str(theirs.fileno())],
                                        pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, cwd="/", env=env)
        theirs.close()
        self.lock = threading.Lock()
        self.ready = False
        self.kernels: list[ForkedKernel] = []
        self.cgroups_missing: set[str] = set()   # per-slot CPU/memory/task limits that could not be set

    def spawn(self, request: dict) -> "ForkedKernel":
        """A new sandboxed kernel."""
        with self.lock:
            if not self.ready:
                if self.channel.recv(64) != b"ready":
                    raise SandboxError("the sandbox's fork server did not start (see its error above)")
                self.ready = True
            try:
                self.channel.send(json.dumps(request).encode())
                message, fds, _, _ = socket.recv_fds(self.channel, 1 << 16, 1)
            except OSError as exc:
                raise SandboxError(f"the sandbox's fork server is gone: {exc}") from exc
        if not fds:
            raise SandboxError(f"the sandbox could not start a kernel: {message.decode(errors='replace')}")
        self.cgroups_missing.update(json.loads(message)["cgroups_missing"])
        kernel = ForkedKernel(fds[0])
        self.kernels.append(kernel)
        return kernel

    def close(self) -> None:
        for kernel in self.kernels:   # normally all gone already, each with its notebook
            kernel.kill()
        self.channel.close()   # the server sees the end of its input and exits
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()

    def __enter__(self) -> "ForkServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def kernel_path(scratch: Path) -> list[str]:
    """sys.path of `python -m ipykernel_launcher` run in scratch with PYTHONPATH=COURSE."""
    return [str(scratch), str(COURSE)] + [p for p in sys.path if p.startswith((sys.base_prefix, sys.prefix))]


def kernel_env(env: dict, scratch: Path) -> dict:
    kept = {k: v for k, v in env.items() if k in PASSED_ENV}
    return kept | ONE_THREAD | {"HOME": str(scratch), "MPLCONFIGDIR": str(scratch / ".mpl"), "KURS_SANDBOX": "1",
                                "PYTHONPATH": str(COURSE), "PYTHONNOUSERSITE": "1", "KURS_OQIMLAR": "1"}


class ForkedKernel:
    """The part of Popen jupyter_client uses, for a kernel known by its pidfd (not our child)."""

    stdin = stdout = stderr = None

    def __init__(self, pidfd: int):
        self.pidfd, self.returncode = pidfd, None

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self.pidfd], [], [], 0)[0]:
            self.returncode = -1   # ended; its exit code belongs to its parent in the sandbox
            os.close(self.pidfd)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        if self.returncode is None:
            select.select([self.pidfd], [], [], timeout)
        return self.poll()

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            try:
                signal.pidfd_send_signal(self.pidfd, signum)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)   # PID 1 of the sandbox: its whole namespace goes with it

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


class SandboxProvisioner(LocalProvisioner):
    """Launches the kernel through the fork server instead of Popen."""

    async def launch_kernel(self, cmd: list[str], **kwargs) -> dict:
        km = self.parent
        request = {"scratch": str(km.scratch), "uid": km.uid, "limits": asdict(km.limits),
                   "connection_file": km.connection_file, "keep": [str(p) for p in visible_paths()],
                   "hide": km.server.hidden,
                   "env": kernel_env(kwargs.get("env") or os.environ, km.scratch), "path": kernel_path(km.scratch)}
        self.process = km.server.spawn(request)
        self.pid, self.pgid, self.cwd = None, None, km.scratch
        return self.connection_info


class SandboxKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel starts inside the sandbox; `sandboxed` makes one per notebook."""

    server: ForkServer
    scratch: Path
    uid: int
    limits: Limits = Limits()

    @classmethod
    def sandboxed(cls, server: ForkServer, scratch: Path, uid: int,
                  limits: Limits = Limits()) -> type["SandboxKernelManager"]:
        attrs = {"server": server, "scratch": scratch, "uid": uid, "limits": limits}
        return type("StudentKernelManager", (cls,), attrs)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.transport = "ipc"
        self.ip = str(self.scratch / "kernel-ipc")
        self.connection_file = str(self.scratch / "kernel.json")

    def write_connection_file(self, **kwargs):
        super().write_connection_file(**kwargs)
        os.chown(self.connection_file, self.uid, self.uid)

    async def _async_pre_start_kernel(self, **kw):
        if self.provisioner is None:
            self.kernel_id = self.kernel_id or str(uuid.uuid4())
            self.provisioner = SandboxProvisioner(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
        return await super()._async_pre_start_kernel(**kw)
