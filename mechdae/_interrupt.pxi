# The interrupt callback of every C kernel wrapper (included by mechdae/**/_*.pyx; setup.py
# puts mechdae/ on Cython's include path). The including module declares, as each does for
# its own use: ``import threading``, ``from cpython.exc cimport PyErr_Occurred`` and, from
# Python.h, ``int _check_signals "PyErr_CheckSignals" ()`` and
# ``unsigned long PyThread_get_thread_ident() nogil``.

DEF INTERRUPTED = 11     # MDAE_INTERRUPTED (csrc/mdae_status.h)

cdef unsigned long _main_ident = <unsigned long>threading.main_thread().ident


cdef int _interrupted(void *ctx) noexcept nogil:
    """Interrupt callback of the C kernels (polled every few milliseconds of work): on the
    main thread, runs Python's signal handlers; nonzero when one raised (Ctrl-C), the
    exception left pending for the wrapper. Other threads never receive signals: they
    return the flag ``*(int *)ctx`` (when ctx is not NULL), which the main thread sets when
    it stops, so that a batch split over threads stops as a whole."""
    cdef int r
    if PyThread_get_thread_ident() != _main_ident:
        return (<int *>ctx)[0] if ctx != NULL else 0
    with gil:
        r = _check_signals()
    if r != 0 and ctx != NULL:
        (<int *>ctx)[0] = 1
    return r != 0


cdef int _raise_pending() except -1:
    """Raise the exception left pending by a signal handler (KeyboardInterrupt)."""
    if PyErr_Occurred() == NULL:
        raise KeyboardInterrupt
    return -1
