"""Assignment and grading machinery for the course (nbgrader based)."""
