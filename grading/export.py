"""grades.csv in nbgrader's own export format (its CsvExportPlugin), from a gradebook file."""

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
