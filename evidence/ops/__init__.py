"""Layer 8: commands that are not build targets (behind the ``evidence`` CLI).

why       why a task would rebuild
repro     rebuild from a clean clone and compare
scaffold  ``evidence init``: a new project that builds at once
show      ``evidence show`` and ``evidence diff`` laid out as text, CSV, Markdown or JSON
"""
