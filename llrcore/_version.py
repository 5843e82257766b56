"""The version of llrcore, in a module of its own so that the report and the command line can name it without
importing the package's face (which imports them)."""

__version__ = "1.0.0"
