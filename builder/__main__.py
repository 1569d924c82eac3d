"""`python -m builder`: execute every lesson in notebooks/ into build/ and write build/index.html."""

import argparse
import ast
import sys
from pathlib import Path

from builder.execute import execute_all, lesson_notebooks
from builder.index import write_index
from builder.report import write_reproduction_report


def parse_param(text: str) -> tuple[str, object]:
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise SystemExit(f"--param wants NAME=VALUE, got {text!r}")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notebooks", type=Path, default=Path("notebooks"))
    parser.add_argument("--out", type=Path, default=Path("build"))
    parser.add_argument("--jobs", type=int, default=None, help="concurrent kernels (default: one per core)")
    parser.add_argument("--fast", action="store_true", help="run each lesson's quick setting (TEZ = True)")
    parser.add_argument("--timeout", type=int, default=2400, help="seconds allowed per cell")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a papermill parameter for every lesson (VALUE read as a Python literal)")
    args = parser.parse_args(argv)
    parameters = {"TEZ": True} if args.fast else {}
    parameters.update(parse_param(p) for p in args.param)

    notebooks = lesson_notebooks(args.notebooks)
    runs = execute_all(notebooks, args.out, parameters, args.jobs, args.timeout)
    index = write_index(runs, args.out)
    report = write_reproduction_report(runs, args.out)
    for run in runs:
        print(f"{run.source.name:40} {run.seconds:7.1f} s  {'ok' if run.ok else 'FAILED: ' + run.error}")
    print(f"index: {index}")
    print(f"reproduction report: {report}")
    return 0 if all(run.ok for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
