"""Readers (and later writers) for problem files of peer packages.

``mechdae.io.siconos`` reads the Siconos numerics ``.dat`` text formats (LCP, local and
global friction-contact problems) into numpy / scipy.sparse arrays.
"""
from .siconos import (FCProblem, GlobalFCProblem, read_numerics_matrix, read_lcp, read_fc,
                      read_global_fc, SiconosTokens)

__all__ = ["FCProblem", "GlobalFCProblem", "read_numerics_matrix", "read_lcp", "read_fc",
           "read_global_fc", "SiconosTokens"]
