"""`python -m harness ...` is the `harness` command."""
from .cli import main

main()
