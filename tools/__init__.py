"""Instructor tooling: the students' copy (student.py) and graded assignments (assignment.py)."""
