"""The example kernels (``examples.cu``) and their host code (``examples.py``)."""
