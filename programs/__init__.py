"""Table test programs, one module per exec node (`programs/<short_name>.py`, e.g.
`programs/interval_join.py`), each exposing a module-level `PROGRAMS` list.

Program ids start with the node's short name (`interval-join-early-fire`); `harness`
discovers every module here. See harness.program for the builder API.
"""
