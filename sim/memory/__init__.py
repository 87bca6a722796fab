"""Memory system behind the SMs: the interface (``interface.py``) and its implementations."""
