"""toygrad: a small autodiff engine that mirrors PyTorch's autograd.

The book builds it chapter by chapter; each chapter shows the code it adds
with ``literalinclude`` from this package, so the reader sees exactly what
the tests test.
"""

__version__ = "0.1.0"
