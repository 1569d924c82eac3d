"""Shared fixtures: the lessons are executed once per test session (in parallel), in full mode.

KURS_TEST_DARSLAR="02_*,03_*" limits which lessons run (for development only; CI runs them all).
"""

import fnmatch
import os
from pathlib import Path

import nbformat
import pytest

from builder.execute import execute_all, lesson_notebooks
from builder.outputs import output_text

ROOT = Path(__file__).resolve().parent.parent


class ExecutedLessons:
    def __init__(self, runs):
        self.runs = {run.source.stem: run for run in runs}

    def __getitem__(self, stem: str) -> nbformat.NotebookNode:
        if stem not in self.runs:
            pytest.skip(f"{stem} was not executed (KURS_TEST_DARSLAR={os.environ.get('KURS_TEST_DARSLAR')})")
        run = self.runs[stem]
        assert run.ok, f"{stem} failed to execute: {run.error}"
        return nbformat.read(run.executed, as_version=4)

    def figures_dir(self, stem: str) -> Path:
        return self.runs[stem].executed.parent / "rasmlar"


@pytest.fixture(scope="session")
def executed_lessons(tmp_path_factory) -> ExecutedLessons:
    notebooks = lesson_notebooks(ROOT / "notebooks")
    patterns = [p for p in os.environ.get("KURS_TEST_DARSLAR", "").split(",") if p]
    if patterns:
        notebooks = [nb for nb in notebooks if any(fnmatch.fnmatch(nb.name, p) for p in patterns)]
    return ExecutedLessons(execute_all(notebooks, tmp_path_factory.mktemp("build")))


@pytest.fixture(scope="module")
def nb(request, executed_lessons) -> nbformat.NotebookNode:
    """The executed lesson named by the test module's STEM."""
    return executed_lessons[request.module.STEM]


@pytest.fixture(scope="module")
def text(nb) -> str:
    """Everything the executed lesson printed, in order."""
    return output_text(nb)
