"""flashcore's version: the one place it is written (the wheel's metadata and file name,
flashcore.build_info()["version"] of an installed wheel)."""

VERSION = "0.1.0"
