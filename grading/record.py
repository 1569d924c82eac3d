"""Record checked notebooks with nbgrader itself, in a staging copy, then publish atomically.

nbgrader's own Autograde converter writes the grades (so formgrader, manual grading and `nbgrader export`
work as usual) but with its Execute step removed: the notebooks were already executed in the sandboxes.
Everything is written under staging/ first; the real gradebook.db is replaced by one os.replace at the end,
so a crash midway leaves the previous gradebook intact, and only the graded students' folders change.
"""

import contextlib
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbgrader.converters import Autograde, GenerateAssignment, GenerateFeedback
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import AssignLatePenalties, CheckCellMetadata, LimitOutput, SaveAutoGrades
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from grading.feedback_uz import uzbek_feedback_templates


def tools_on_path() -> None:
    """nbgrader's gradebook shells out to `alembic`, which lives beside this interpreter."""
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])


def course_config(root: Path, staging: Path) -> Config:
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    config.CourseDirectory.root = str(root)
    config.CourseDirectory.submitted_directory = str(staging / "submitted")
    config.CourseDirectory.autograded_directory = str(staging / "autograded")
    config.CourseDirectory.feedback_directory = str(staging / "feedback")
    config.CourseDirectory.db_url = f"sqlite:///{staging / 'gradebook.db'}"
    config.Autograde.sanitize_preprocessors = [CheckCellMetadata]
    config.Autograde.autograde_preprocessors = [ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
                                                AssignLatePenalties, CheckCellMetadata]
    config.HTMLExporter.template_name = "feedback"
    config.HTMLExporter.sanitize_html = True   # students' HTML and scripts are shown as text, never run
    config.HTMLExporter.extra_template_basedirs = [str(uzbek_feedback_templates(staging / "templates"))]
    return config


def run_converter(converter_class, config: Config, assignment: str, student: str = "*", **flags) -> None:
    coursedir = CourseDirectory(config=config)
    coursedir.assignment_id, coursedir.student_id = assignment, student
    converter = converter_class(coursedir=coursedir, config=config)
    for name, value in flags.items():
        setattr(converter, name, value)
    converter.start()


def register_assignment(config: Config, assignment: str, staging: Path) -> None:
    """Make sure the staging gradebook knows the assignment's notebooks and cells (from source/)."""
    with tempfile.TemporaryDirectory(dir=staging) as release_dir:
        scratch = Config(config)
        scratch.CourseDirectory.release_directory = release_dir
        run_converter(GenerateAssignment, scratch, assignment, force=True)


def replace_tree(new: Path, old: Path) -> None:
    if old.exists():
        shutil.rmtree(old)
    old.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(new), str(old))


def check_gradebook(path: Path) -> None:
    """A gradebook that is there must be an SQLite database; it is only read here."""
    if not path.exists():
        return
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            db.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as exc:
        raise RuntimeError(f"{path} o'qib bo'lmadi ({exc}): u SQLite bazasi emas yoki buzilgan. Fayl "
                           "o'zgartirilmadi; uni zaxira nusxadan tiklang yoki boshqa nomga ko'chiring "
                           "(yangi gradebook yaratiladi).") from exc


def prepare_gradebook(root: Path, assignment: str, staging: Path) -> Config:
    """The staging copy of the gradebook, knowing the assignment; the real one is not touched."""
    tools_on_path()
    staging.mkdir(parents=True, exist_ok=True)
    if (root / "gradebook.db").exists():
        shutil.copy2(root / "gradebook.db", staging / "gradebook.db")
    config = course_config(root, staging)
    register_assignment(config, assignment, staging)
    return config


def record_and_publish(root: Path, assignment: str, students: list[str], staging: Path, out_dir: Path,
                       config: Config | None = None) -> None:
    config = config or prepare_gradebook(root, assignment, staging)
    gradebook = root / "gradebook.db"
    # staging/submitted holds exactly this run's students: one nbgrader pass over all of them
    run_converter(Autograde, config, assignment, "*", force=True, create_student=True)
    run_converter(GenerateFeedback, config, assignment, "*", force=True)
    from grading.export import export_grades  # after the gradebook holds this run's grades

    out_dir.mkdir(parents=True, exist_ok=True)
    export_grades(staging / "gradebook.db", out_dir / "grades.csv", config)
    for student in students:
        for kind in ("autograded", "feedback"):
            new = staging / kind / student / assignment
            if new.exists():
                replace_tree(new, root / kind / student / assignment)
    (staging / "gradebook.db").replace(gradebook)
