import os

# Unit tests never read or write the on-disk result cache of dpviz.experiments.
os.environ["DPVIZ_CACHE"] = "off"
