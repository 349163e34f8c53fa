"""`python -m pipelines.cli`: the `metrics-etl` command."""

import sys

from pipelines.cli import main

sys.exit(main())
