"""Settings of the mutation run's tests (bench/mutation), also when pytest runs them directly.

tests/conftest.py is not loaded here (pytest loads the conftest files of the paths it is
given): what of it these tests need is repeated.
"""

import os

# Unit tests never read or write the on-disk result cache of dpviz.experiments (tests/conftest.py).
os.environ["DPVIZ_CACHE"] = "off"
