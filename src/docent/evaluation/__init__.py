"""Answer-quality evaluation: run question sets through the agent and score them.

`metrics` scores one answer or ranking, `harness` runs the questions and builds the
report, `report` prints it and writes JSON. Used by `docent eval`.
"""
