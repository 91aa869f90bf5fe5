"""A tiny but complete programs package: one program per registered exec node, one row per
phase, so the harness tests can run a whole gate (`--programs gate_programs`) in seconds.
Every consumed option is set to a non-default value by some program, as the audit demands."""
