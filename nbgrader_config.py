"""nbgrader configuration of the course (read by every `nbgrader ...` command run from the repository root).

Layout at the repository root: source/ (instructor versions), release/ (generated student versions,
committed), submitted/, autograded/, feedback/ (class data, gitignored). The gradebook is gradebook.db at
the root (gitignored); `python -m grading.release` uses a throwaway gradebook so releasing leaves none.
"""

import os

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import ClearHiddenTests, GetGrades

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

ROOT = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.course_id = "attention-kursi"
c.CourseDirectory.root = ROOT
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "release"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(ROOT, "gradebook.db")
# Never copy a student's stray files (or anything a release might pick up) beyond these defaults.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "rasmlar"]

# What a student sees where a solution was removed (Uzbek, Latin script).
c.ClearSolutions.code_stub = {
    "python": "# SHU YERGA YOZING (javob yoki tuzatish), keyin bu ikki qatorni o'chiring\n"
              "raise NotImplementedError()",
}
c.ClearSolutions.text_stub = "JAVOBINGIZNI SHU YERGA YOZING"

# Each notebook loads torch once (a few seconds); no cell of this assignment needs more than seconds.
c.Execute.timeout = 120
c.ExecutePreprocessor.timeout = 120

# Feedback shows the student's notebook with its grades but not the hidden tests: their source is cut
# out, and grading.feedback shortens tracebacks (whose context lines would quote hidden code) to their
# last line, drops the KURS-NATIJA record lines and any output that quotes a hidden test.
c.GenerateFeedback.preprocessors = [
    GetGrades,
    "grading.feedback.HiddenOutputFilter",   # before ClearHiddenTests: it compares outputs with hidden lines
    ClearHiddenTests,
    CSSHTMLHeaderPreprocessor,
]
