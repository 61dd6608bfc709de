"""The notebooks' user interface: charts, widgets, exercise checking, the kernel hook.

Imports the core, ``trees`` and ``audit``; nothing below it imports this package.
"""
