"""`python -m grading.release`: regenerate release/<assignment>/ from source/ with nbgrader generate_assignment.

nbgrader writes into a scratch folder with a scratch gradebook (so releasing leaves no gradebook.db
behind), then the result replaces release/<assignment>/. nbgrader's output is a pure function of
source/ (checksums are md5 of the cells, no timestamps), so a second run changes nothing; `--check`
only compares and exits 1 when release/ is out of date.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ["multihead"]


def nbgrader_env(root: Path) -> dict[str, str]:
    """nbgrader shells out to `alembic`, and kernels import `grading`: both from this environment."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), env.get("PYTHONPATH", "")] if p)
    env.setdefault("PYTHONWARNINGS", "ignore")
    return env


def generate(root: Path, assignment: str, out_dir: Path, db: Path | None = None) -> Path:
    """Run nbgrader generate_assignment for `assignment` of the course at `root` into out_dir/<assignment>.

    The gradebook is a throwaway one unless `db` names one to keep (the tests grade against it).
    """
    with tempfile.TemporaryDirectory(prefix="release-db-") as tmp:
        cmd = [sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force",
               f"--CourseDirectory.root={root}",
               f"--CourseDirectory.release_directory={out_dir}",
               f"--CourseDirectory.db_url=sqlite:///{db or Path(tmp) / 'gradebook.db'}"]
        done = subprocess.run(cmd, cwd=root, env=nbgrader_env(root), capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"nbgrader generate_assignment {assignment} failed:\n{done.stdout}{done.stderr}")
    return out_dir / assignment


def differences(a: Path, b: Path) -> list[str]:
    """Relative paths that differ between two folders (missing on either side or different bytes)."""
    names = {p.relative_to(a) for p in a.rglob("*") if p.is_file()} | {
        p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    return sorted(str(n) for n in names
                  if not (a / n).is_file() or not (b / n).is_file()
                  or not filecmp.cmp(a / n, b / n, shallow=False))


def release(root: Path, assignment: str, check: bool) -> list[str]:
    target = root / "release" / assignment
    with tempfile.TemporaryDirectory(prefix="release-") as tmp:
        fresh = generate(root, assignment, Path(tmp))
        changed = differences(fresh, target) if target.exists() else ["*"]
        if changed and not check:
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(fresh, target)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", default=ASSIGNMENTS)
    parser.add_argument("--root", type=Path, default=ROOT, help="course root (holds nbgrader_config.py)")
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 if release/ is stale")
    args = parser.parse_args(argv)
    stale = False
    for assignment in args.assignments:
        changed = release(args.root.resolve(), assignment, args.check)
        where = f"release/{assignment}"
        if not changed:
            print(f"{where}: up to date with source/{assignment}")
        elif args.check:
            stale = True
            print(f"{where}: differs from a fresh release of source/{assignment}: {', '.join(changed)}")
        else:
            print(f"{where}: regenerated ({', '.join(changed)})")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
