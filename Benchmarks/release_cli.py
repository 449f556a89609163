"""The release build of the `functions` CLI that the Python benchmarks drive."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cli_path(build):
    """The CLI's path; built first (through functions/, sharing the root's .build) when `build`."""
    command = ["swift", "build", "-c", "release", "--package-path", str(ROOT / "functions"),
               "--scratch-path", str(ROOT / ".build")]
    if build:
        subprocess.run(command + ["--product", "functions"], check=True, stdout=sys.stderr)
    return Path(subprocess.run(command + ["--show-bin-path"], check=True, capture_output=True,
                               text=True).stdout.strip()) / "functions"
