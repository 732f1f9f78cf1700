"""`python -m corral` runs the command-line interface."""

from .cli import main

main()
