"""The private (and reference non-private) tree classifiers of the four papers, and PrivaTree."""
