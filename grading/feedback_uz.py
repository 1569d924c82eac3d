"""nbgrader's feedback page with its labels in Uzbek.

The template is nbgrader's own (read from the installed package at grading time), with its visible
English labels replaced; a missing label fails loudly, so an nbgrader upgrade cannot silently bring the
English back.
"""

import shutil
from pathlib import Path

import nbgrader

LABELS = {
    "(Score: ": "(Ball: ",
    ">Test cell<": ">Test katagi<",
    ">Coding free-response<": ">Erkin kod javobi<",
    ">Written response<": ">Yozma javob<",
    ">Task<": ">Vazifa<",
    "Late submission penalty": "Kechikib topshirilgani uchun jarima",
    "      Score: ": "      Ball: ",
    "(Top)": "(Yuqoriga)",
    "Student's answer": "Talabaning javobi",
    "Student's task": "Talabaning vazifasi",
    "<b>Comments:</b>": "<b>Izohlar:</b>",
}


def uzbek_feedback_templates(folder: Path) -> Path:
    """Write a template base dir holding `feedback/` (Uzbek labels); returns the base dir."""
    original = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"
    target = folder / "feedback"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(original / "feedback", target)
    page = target / "index.html.j2"
    text = page.read_text(encoding="utf-8")
    for english, uzbek in LABELS.items():
        if english not in text:
            raise RuntimeError(f"nbgrader's feedback template no longer has {english!r}; update grading.feedback_uz")
        text = text.replace(english, uzbek)
    page.write_text(text, encoding="utf-8")
    return folder
