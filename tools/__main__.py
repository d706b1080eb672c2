"""``python -m tools``: the ``etg`` command without the installed console script."""

from tools.cli import main

main(prog_name="etg")
