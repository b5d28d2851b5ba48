"""`python -m fabula_env ARGS...` runs the `fabula` program this wheel installed, with ARGS
(`python -m fabula_env up --count 50`), for environments whose PATH lacks the venv's bin."""

from __future__ import annotations

import os
import sys

from fabula_env.local import FabulaRunError, find_fabula


def main() -> None:
    """Replaces this process with `fabula ARGS...`."""
    try:
        binary = find_fabula()
    except FabulaRunError as error:
        sys.exit(f"fabula_env: {error}")
    os.execv(binary, [binary, *sys.argv[1:]])


if __name__ == "__main__":
    main()
