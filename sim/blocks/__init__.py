"""Behavioral twins: same ports and cycle behaviour as the Amaranth blocks in ``hdl``."""
