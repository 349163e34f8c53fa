"""Where the project's SQL lives: beside the package when installed, the repo's sql/ in a checkout."""

from pathlib import Path

_PACKAGED = Path(__file__).parent / "_sql"
SQL_DIR = _PACKAGED if _PACKAGED.is_dir() else Path(__file__).resolve().parents[1] / "sql"
