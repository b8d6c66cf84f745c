#!/usr/bin/env python
"""``cardjax sampling_table`` (cardjax/commands/sampling_table.py), run from a checkout."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from cardjax.cli import run_command  # noqa: E402
from cardjax.commands.sampling_table import main  # noqa: E402

if __name__ == "__main__":
    run_command(main)
