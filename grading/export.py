"""grades.csv in nbgrader's own export format (its CsvExportPlugin), from a gradebook file."""

import csv
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.plugins import CsvExportPlugin
from traitlets.config import Config


def export_grades(db: Path, destination: Path, config: Config) -> Path:
    plugin = CsvExportPlugin(config=config)
    plugin.to = str(destination)
    with Gradebook(f"sqlite:///{db}", config.CourseDirectory.course_id) as gradebook:
        plugin.export(gradebook)
    return destination


def raw_scores(grades_csv: Path) -> dict[str, float]:
    """student id -> raw score, read back from a grades.csv written by export_grades."""
    with open(grades_csv, encoding="utf-8") as f:
        return {row["student_id"]: float(row["raw_score"]) for row in csv.DictReader(f)}
