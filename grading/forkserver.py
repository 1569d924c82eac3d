"""The sandbox's fork server: libraries imported once, every student kernel a fork that locks itself in.

Importing torch costs about two seconds of CPU, more than running a whole assignment notebook, and a fresh
interpreter per notebook pays it every time. This server (root, started by the grader before any student
code runs, holding nothing but imported libraries) forks for each kernel:

  A (root): new mount, network, PID, IPC and UTS namespaces; forks B, hands the grader a pidfd for B, waits.
  B (PID 1 of its namespace): a private file view (the interpreter, the venv and the course's packages
     read-only, the student's scratch folder, empty temporary folders and homes; the course, the gradebook
     and everything else hidden), resource limits, the slot's unprivileged uid without groups, capabilities
     or new privileges, then ipykernel. SIGKILL to B from outside ends the whole namespace.

The protocol is one JSON request per SOCK_SEQPACKET message on the socket passed as argv[1]; the answer is
"ok" with B's pidfd attached, or an error text. `python -m grading.forkserver --probe` checks namespaces.
"""

import ctypes
import json
import os
import resource
import signal
import socket
import sys

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
NAMESPACES = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWNET
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 24, 38
CGROUPS = "/sys/fs/cgroup"
STAGE = "/mnt"   # a tmpfs holding the kept folders while the rest is covered

libc = ctypes.CDLL(None, use_errno=True)


def check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    args = [None if s is None else s.encode() for s in (source, target, fstype)]
    check(libc.mount(*args, ctypes.c_ulong(flags), None if data is None else data.encode()),
          f"mount {source} on {target}")


def unmount(target: str) -> None:
    check(libc.umount2(target.encode(), MNT_DETACH), f"umount {target}")


def prctl(option: int, value: int) -> None:
    check(libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0), f"prctl {option}")


def private_view(keep: list[str], hide: list[str], scratch: str) -> None:
    """Cover `hide` with empty tmpfs, then put `keep` (read-only) and `scratch` back where they were."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    mount("tmpfs", STAGE, "tmpfs", 0, "size=1m")
    for i, path in enumerate([*keep, scratch]):
        os.mkdir(f"{STAGE}/{i}")
        mount(path, f"{STAGE}/{i}", None, MS_BIND)
    for path in hide:
        mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=64m,mode=755")
    for i, path in enumerate(keep):
        os.makedirs(path, exist_ok=True)
        mount(f"{STAGE}/{i}", path, None, MS_BIND)
        mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY)
    os.makedirs(scratch, exist_ok=True)
    mount(f"{STAGE}/{len(keep)}", scratch, None, MS_BIND | MS_NOSUID | MS_NODEV)
    unmount(STAGE)


def drop_privileges(uid: int, limits: dict[str, int]) -> None:
    """Limits, then the slot's uid with no groups, no capabilities (any set) and no way to gain one."""
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))
    last_cap = int(open("/proc/sys/kernel/cap_last_cap").read())
    for cap in range(last_cap + 1):
        prctl(PR_CAPBSET_DROP, cap)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()
    check(libc.capset(header, data), "capset")   # the inheritable set too
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    status = dict(line.split(":\t") for line in open("/proc/self/status").read().splitlines() if ":\t" in line)
    leftover = {k: v for k, v in status.items() if k.startswith("Cap") and int(v, 16)}
    if leftover or status["NoNewPrivs"].strip() != "1" or os.getuid() != uid or os.getgroups():
        raise RuntimeError(f"privileges left after the drop: {leftover}")


def join_slot_cgroups(uid: int, limits: dict[str, int]) -> list[str]:
    """Put this process (and so the kernel and all it starts) in its slot's cgroups: together at most one
    core, RLIMIT_AS bytes of memory and RLIMIT_NPROC tasks. Cgroup v1 or v2; returns what it could not do."""
    memory, tasks = str(limits["RLIMIT_AS"]), str(limits["RLIMIT_NPROC"])
    if os.path.exists(f"{CGROUPS}/cgroup.controllers"):   # v2
        plan = {"": {"memory.max": memory, "cpu.max": "100000 100000", "pids.max": tasks}}
    else:
        plan = {"memory": {"memory.limit_in_bytes": memory}, "pids": {"pids.max": tasks},
                "cpu": {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "100000"}}
    missing = []
    for controller, settings in plan.items():
        group = os.path.join(CGROUPS, controller, f"kurs-baholash-{uid}")
        try:
            os.makedirs(group, exist_ok=True)
            for name, value in settings.items():
                with open(os.path.join(group, name), "w") as f:
                    f.write(value)
            with open(os.path.join(group, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        except OSError as exc:
            missing.append(f"{controller or 'v2'}: {exc.strerror}")
    return missing


def lock_in(request: dict) -> None:
    """In B: the file view, the log, the limits and the unprivileged identity."""
    scratch = request["scratch"]
    private_view(request["keep"], request["hide"], scratch)
    log = os.open(os.path.join(scratch, ".kernel.log"), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.chdir(scratch)
    drop_privileges(request["uid"], request["limits"])
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)   # after the uid change, which clears it
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[:] = request["path"]


def run_kernel(request: dict, ready: int) -> None:
    """In B: lock the process in, tell A how that went (`ready` pipe), then become the kernel."""
    try:
        lock_in(request)
    except BaseException as exc:
        os.write(ready, f"{type(exc).__name__}: {exc}".encode()[:4000])
        os._exit(70)
    os.write(ready, b"ok")
    os.close(ready)
    sys.argv = ["ipykernel_launcher", "-f", request["connection_file"]]
    from ipykernel import kernelapp

    kernelapp.launch_new_instance()


def first_child(request: dict, channel: socket.socket) -> None:
    """A: new namespaces, fork B, pass B's pidfd up once B is locked in, wait for B. Never returns."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.closerange(3, channel.fileno())
    os.closerange(channel.fileno() + 1, 1 << 16)
    check(libc.unshare(NAMESPACES), "unshare")
    missing = join_slot_cgroups(request["uid"], request["limits"])
    ready_r, ready_w = os.pipe()
    kernel = os.fork()
    if kernel == 0:
        os.close(channel.detach())
        os.close(ready_r)
        code = 70
        try:
            run_kernel(request, ready_w)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 0
        except BaseException as exc:
            print(f"sandbox: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        finally:
            os._exit(code)
    os.close(ready_w)
    pidfd = os.pidfd_open(kernel)
    outcome = os.read(ready_r, 4096)
    if outcome != b"ok":
        os.waitpid(kernel, 0)
        raise RuntimeError(f"locking the kernel in failed: {outcome.decode(errors='replace') or 'it died'}")
    socket.send_fds(channel, [json.dumps({"cgroups_missing": missing}).encode()], [pidfd])
    _, status = os.waitpid(kernel, 0)
    os._exit(os.waitstatus_to_exitcode(status) & 0x7F)


def spawn(request: dict) -> tuple[int, bytes]:
    """Fork A for one kernel; returns the pidfd of B and A's report, or raises with A's reason."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        try:
            mine.close()
            first_child(request, theirs)
        except BaseException as exc:
            theirs.send(f"{type(exc).__name__}: {exc}".encode()[:4000])
        finally:
            os._exit(70)
    theirs.close()
    with mine:
        message, fds, _, _ = socket.recv_fds(mine, 4096, 1)
    if not fds:
        os.waitpid(pid, 0)
        raise RuntimeError(message.decode(errors="replace") or "the sandbox process died at start")
    return fds[0], message


def reap() -> None:
    """Collect finished A processes (each exits when its kernel does)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def serve(channel: socket.socket) -> None:
    channel.send(b"ready")
    while True:
        message = channel.recv(1 << 20)
        if not message:   # the grader is gone: so are we, and our children (their death signal)
            return
        reap()
        try:
            pidfd, report = spawn(json.loads(message))
        except Exception as exc:
            channel.send(json.dumps({"error": str(exc)}).encode())
            continue
        socket.send_fds(channel, [report], [pidfd])
        os.close(pidfd)


def probe() -> int:
    """Exit 0 when this process may create the sandbox's namespaces."""
    pid = os.fork()
    if pid == 0:
        os._exit(0 if libc.unshare(NAMESPACES) == 0 else 1)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def warm_up() -> None:
    """What every kernel imports anyway; imported here once, with one thread, before any fork."""
    import ipykernel.ipkernel  # noqa: F401
    import ipykernel.kernelapp  # noqa: F401
    import ipykernel.zmqshell  # noqa: F401
    import numpy  # noqa: F401
    import torch  # noqa: F401
    import torch.nn  # noqa: F401

    import grading.tekshiruv  # noqa: F401


if __name__ == "__main__":
    if sys.argv[1:] == ["--probe"]:
        sys.exit(probe())
    warm_up()
    serve(socket.socket(fileno=int(sys.argv[1])))
