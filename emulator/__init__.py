"""The platform emulator: the platform of docs/service-contract.md on loopback, for the demo, tests and benchmarks."""

from emulator.config import EmulatorConfig, FaultSpec, RecordDrift
from emulator.errors import EmulatorError
from emulator.server import RunningEmulator, running_emulator

__all__ = ["EmulatorConfig", "EmulatorError", "FaultSpec", "RecordDrift", "RunningEmulator", "running_emulator"]
