#!/usr/bin/env python
"""``cardjax train state_value`` (cardjax/commands/train/state_value.py), run from a checkout."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from cardjax.cli import run_command  # noqa: E402
from cardjax.commands.train.state_value import main  # noqa: E402

if __name__ == "__main__":
    run_command(main)
