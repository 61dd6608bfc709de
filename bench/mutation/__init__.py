"""The privacy suite as the mutation run (``make mutants``, bench/mutants.py) runs it."""
