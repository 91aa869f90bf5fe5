"""A tiny but complete programs package: each node's TINY program from `programs/` (one row
per phase), so the harness tests can run a whole gate (`--programs gate_programs`) in seconds.
Every consumed option is set to a non-default value by some program, as the audit demands."""
from harness.discovery import tiny_programs

PROGRAMS = tiny_programs()
