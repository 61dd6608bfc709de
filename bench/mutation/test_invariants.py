"""tests/test_invariants.py's tests in the mutation run, as is (bench/mutation/_from_tests.py)."""

from bench.mutation._from_tests import collect

collect("test_invariants", globals())
