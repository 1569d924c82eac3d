"""Run a student's kernel in a sandbox: its own identity, a private view of the files, no network, limits.

Built from util-linux as root: `unshare` (mount, network, PID and IPC namespaces), mounts that hide the
course, homes and temporary folders (only the interpreter, the course's packages and the student's scratch
folder stay visible, the first two read-only), `setpriv` (an unprivileged uid, no capabilities, no new
privileges) and `prlimit` (memory, processes, file size, open files). The kernel talks to the grader over
IPC sockets in the scratch folder, which keep working inside a private network namespace.
"""

import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

COURSE = Path(__file__).resolve().parent.parent
TOOLS = ("unshare", "setpriv", "prlimit")
FIRST_UID = 61000  # sandbox identities: FIRST_UID + worker slot, owned by no account


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = 6 << 30      # address space; torch maps ~1 GiB on import
    processes: int = 256             # per sandbox uid; threads count
    file_bytes: int = 64 << 20
    open_files: int = 512


def unavailable_reason() -> str | None:
    """Why no sandbox can be set up here, or None when it can."""
    if sys.platform != "linux":
        return f"the sandbox needs Linux namespaces; this is {sys.platform}"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"missing tools: {', '.join(missing)} (Debian package util-linux)"
    if os.geteuid() != 0:
        return "the sandbox is set up as root (namespaces, mounts and a separate uid); run grading as root"
    probe = subprocess.run(["unshare", "--mount", "--net", "--pid", "--fork", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"the kernel refused new namespaces: {probe.stderr.strip()}"
    return None


def visible_paths() -> list[Path]:
    """What the sandbox keeps visible, read-only: the interpreter, the venv and the course's packages."""
    venv = Path(sys.prefix)
    keep = [Path(sys.base_prefix).resolve(), venv, COURSE / "helpers", COURSE / "grading"]
    return list(dict.fromkeys(keep))


def hidden_paths() -> list[Path]:
    return [COURSE, Path("/tmp"), Path("/var/tmp"), Path("/root"), Path("/home"), Path("/work")]


def mount_script(scratch: Path, uid: int, limits: Limits) -> str:
    """Shell run as root inside the new namespaces; ends by exec'ing the kernel as the sandbox uid."""
    keep = visible_paths()
    hide = [h for h in hidden_paths() if h.exists()]
    q = shlex.quote
    lines = ["set -e", "mount --make-rprivate /", "mount -t tmpfs -o size=1m tmpfs /mnt"]
    for i, path in enumerate([*keep, scratch]):
        lines += [f"mkdir /mnt/{i}", f"mount --bind {q(str(path))} /mnt/{i}"]
    lines += [f"mount -t tmpfs -o size=64m,mode=755 tmpfs {q(str(h))}" for h in hide]
    for i, path in enumerate(keep):
        lines += [f"mkdir -p {q(str(path))}", f"mount --bind /mnt/{i} {q(str(path))}",
                  f"mount -o remount,bind,ro {q(str(path))}"]
    lines += [f"mkdir -p {q(str(scratch))}", f"mount --bind /mnt/{len(keep)} {q(str(scratch))}", "umount -l /mnt",
              f"cd {q(str(scratch))}",
              f"export HOME={q(str(scratch))} MPLCONFIGDIR={q(str(scratch / '.mpl'))} KURS_SANDBOX=1",
              # the course's own packages first, whatever folder an editable install points at
              f"export PYTHONPATH={q(str(COURSE))}",
              # kernels run side by side, one per core: one thread each, so they never oversubscribe
              "export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 KURS_OQIMLAR=1",
              f"exec setpriv --reuid={uid} --regid={uid} --clear-groups --no-new-privs --inh-caps=-all "
              f"--bounding-set=-all -- prlimit --as={limits.memory_bytes} --nproc={limits.processes} "
              f"--fsize={limits.file_bytes} --nofile={limits.open_files} --core=0 -- \"$@\""]
    return "\n".join(lines)


def sandbox_prefix(scratch: Path, uid: int, limits: Limits) -> list[str]:
    return ["unshare", "--mount", "--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child", "--mount-proc",
            "--", "/bin/sh", "-c", mount_script(scratch, uid, limits), "sandbox"]


def prepare_scratch(scratch: Path, uid: int) -> None:
    """The student's private folder: owned by the sandbox uid, closed to everyone else."""
    scratch.mkdir(parents=True, exist_ok=True)
    for path in [scratch, *scratch.rglob("*")]:
        os.chown(path, uid, uid)
    scratch.chmod(0o700)


class SandboxKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel starts inside the sandbox; `sandboxed` makes one per student."""

    scratch: Path
    uid: int
    limits: Limits = Limits()

    @classmethod
    def sandboxed(cls, scratch: Path, uid: int, limits: Limits = Limits()) -> type["SandboxKernelManager"]:
        return type("StudentKernelManager", (cls,), {"scratch": scratch, "uid": uid, "limits": limits})

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.transport = "ipc"
        self.ip = str(self.scratch / "kernel-ipc")
        self.connection_file = str(self.scratch / "kernel.json")

    def write_connection_file(self, **kwargs):
        super().write_connection_file(**kwargs)
        os.chown(self.connection_file, self.uid, self.uid)

    def format_kernel_cmd(self, extra_arguments=None):
        return sandbox_prefix(self.scratch, self.uid, self.limits) + super().format_kernel_cmd(extra_arguments)
