"""TODO room docstring."""
