"""Build the notebook that is actually executed for a student, from the course's own copies.

The student controls only the contents of the answer cells. Everything else — cell order, nbgrader
metadata (points, flags, grade ids), the locked setup and test cells (hidden tests included, from source/),
the kernelspec — comes from release/ and source/. So deleted, duplicated, retyped or re-flagged cells,
inflated points and a changed kernel cost the student nothing but that answer, and are reported.
"""

import json
from pathlib import Path

import nbformat
from nbformat import NotebookNode

MAX_NOTEBOOK_BYTES = 20 << 20


def nbgrader_meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def is_answer(cell) -> bool:
    return bool(nbgrader_meta(cell).get("solution"))


def read_student_notebook(path: Path) -> tuple[NotebookNode | None, list[str]]:
    """The student's notebook as data (never trusted), or None with the reason."""
    if not path.exists():
        return None, [f"{path.name}: daftar topshirilmagan"]
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        return None, [f"{path.name}: daftar juda katta ({path.stat().st_size} bayt)"]
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(raw, dict) or not isinstance(raw.get("cells"), list):
            raise ValueError("'cells' ro'yxati yo'q")
        return nbformat.from_dict(raw), []
    except (ValueError, UnicodeDecodeError) as exc:
        return None, [f"{path.name}: daftar buzilgan, o'qib bo'lmadi ({type(exc).__name__}: {str(exc)[:120]})"]


def student_answers(student: NotebookNode | None, wanted: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """grade_id -> source of the student's answer cells (first of each id, right cell type), with problems."""
    answers, problems, seen = {}, [], {}
    if student is None:
        return answers, problems
    for cell in student.get("cells", []):
        if not isinstance(cell, dict):
            continue
        grade_id = nbgrader_meta(cell).get("grade_id")
        if not isinstance(grade_id, str):
            continue
        seen[grade_id] = seen.get(grade_id, 0) + 1
        if grade_id in wanted and grade_id not in answers and cell.get("cell_type") == wanted[grade_id]:
            source = cell.get("source", "")
            answers[grade_id] = "".join(source) if isinstance(source, list) else str(source)
    problems += [f"{gid}: katak {n} marta uchradi, faqat birinchisi olindi" for gid, n in seen.items() if n > 1]
    problems += [f"{gid}: javob katagi topilmadi (o'chirilgan yoki turi o'zgargan), 0 ball" for gid in wanted
                 if gid not in answers]
    return answers, problems


def executable_notebook(release: NotebookNode, source: NotebookNode,
                        student: NotebookNode | None) -> tuple[NotebookNode, list[str]]:
    """The release notebook with the student's answers filled in and the source's full test cells."""
    source_cells = {nbgrader_meta(c).get("grade_id"): c for c in source.cells if nbgrader_meta(c).get("grade_id")}
    wanted = {nbgrader_meta(c)["grade_id"]: c.cell_type for c in release.cells if is_answer(c)}
    answers, problems = student_answers(student, wanted)
    notebook = nbformat.from_dict(json.loads(json.dumps(release)))  # a deep copy of the course's own
    for cell in notebook.cells:
        meta = nbgrader_meta(cell)
        grade_id = meta.get("grade_id")
        if is_answer(cell):
            if grade_id in answers:
                cell.source = answers[grade_id]
        elif grade_id in source_cells and (meta.get("grade") or meta.get("locked")):
            cell.source = source_cells[grade_id].source  # hidden tests come back from source/
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return notebook, problems
