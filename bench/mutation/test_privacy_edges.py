"""tests/test_privacy_edges.py's tests in the mutation run (bench/mutation/_from_tests.py)."""

from bench.mutation._from_tests import collect

collect("test_privacy_edges", globals())
