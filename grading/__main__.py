"""`python -m grading` (make grade): grade every submission under submitted/ safely and report.

    python -m grading [--assignment multihead] [--student ID] [--jobs N] [--unsafe-no-sandbox]
"""

import argparse
import sys
from pathlib import Path

from nbgrader.converters.base import NbGraderException

from grading.autograde import grade
from grading.report import write_report
from grading.sandbox import SandboxError

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Grade submitted/<student>/<assignment>/ in sandboxes.")
    parser.add_argument("--assignment", default="multihead")
    parser.add_argument("--student", default=None, help="grade only this student")
    parser.add_argument("--jobs", type=int, default=None, help="concurrent sandboxes (default: one per core)")
    parser.add_argument("--root", type=Path, default=ROOT, help="course root")
    parser.add_argument("--cell-timeout", type=int, default=60, help="seconds one cell may run")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="run student code WITHOUT isolation, with your rights (only where no sandbox exists)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    try:
        runs = grade(root, args.assignment, args.student or None, args.jobs, sandbox=not args.unsafe_no_sandbox,
                     cell_timeout=args.cell_timeout)
    except SandboxError as exc:
        print(f"xato: sandbox ishlamadi, baholash to'xtatildi; gradebook va natijalar o'zgarmadi ({exc})",
              file=sys.stderr)
        return 2
    except (RuntimeError, FileNotFoundError) as exc:
        print(f"xato: {exc}", file=sys.stderr)
        return 2
    except NbGraderException:
        print("xato: nbgrader to'xtadi (sababi yuqoridagi jurnalda); gradebook va natijalar o'zgarmadi",
              file=sys.stderr)
        return 2
    report = write_report(root, args.assignment, runs, root / "build" / "grading")
    print(f"hisobot: {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
