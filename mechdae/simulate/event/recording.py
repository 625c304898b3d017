r"""The engine's recorded samples (a part of ``EventEngine``).

States at the output times and at events, with their modes, and the reference directions
of spatial sliding in force from each sample on. Output times passed inside a window are
cubic Hermite interpolants of its sub-samples (states and rates at both ends).
"""
import numpy as np

from .phase import SLIDE_2D

__all__ = ["SampleRecording"]


class SampleRecording:
    """Samples of an event-engine run (a part of ``EventEngine``)."""

    def record(self):
        """Record the current state, time and mode as a sample."""
        self._note_dref(len(self.samples_t))
        self.samples_t.append(self.t)
        self.samples_x.append(self.x.copy())
        self.samples_mode.append(self.mode)

    def _note_dref(self, k):
        """Remember the reference directions in force from sample ``k`` on (spatial sliding:
        the recorded contact forces are evaluated with them)."""
        if SLIDE_2D in self.mode:
            log = self.dref_log
            if not log or not np.array_equal(log[-1][1], self.dref):
                log.append((k, self.dref.copy()))

    def _advance_to(self, tb, ts, Xs, Xds, final_sample=True):
        """Move to ``tb`` along samples ``(ts, Xs, Xds)``; record the output times passed."""
        t0, x0, xd0 = self.t, self.x, self.xd
        ot = self.out_times
        k = self.k_out
        pts_t = [t0] + list(ts)
        pts_x = [x0] + list(Xs)
        pts_d = [xd0] + list(Xds)
        k_end = int(np.searchsorted(ot, tb * (1 + 1e-15) + 1e-300, side="right"))
        if final_sample and k_end > k and ot[k_end - 1] >= tb:
            k_end -= 1           # recorded below as the window end
        if k_end > k:
            to = ot[k:k_end]
            if len(pts_t) == 1:
                xo = np.repeat(np.asarray(x0, float)[None, :], to.size, axis=0)
            else:
                pt = np.asarray(pts_t)
                seg = np.clip(np.searchsorted(pt, to, side="left") - 1, 0, pt.size - 2)
                PX, PD = np.asarray(pts_x, float), np.asarray(pts_d, float)
                ta, dt = pt[seg], pt[seg + 1] - pt[seg]
                sv = np.where(dt > 0, np.clip((to - ta) / np.where(dt > 0, dt, 1.0), 0.0, 1.0),
                              0.0)[:, None]
                dtc = dt[:, None]
                xo = ((2 * sv ** 3 - 3 * sv ** 2 + 1) * PX[seg]
                      + (sv ** 3 - 2 * sv ** 2 + sv) * dtc * PD[seg]
                      + (-2 * sv ** 3 + 3 * sv ** 2) * PX[seg + 1]
                      + (sv ** 3 - sv ** 2) * dtc * PD[seg + 1])
            self._note_dref(len(self.samples_t))
            self.samples_t.extend(float(v) for v in to)
            self.samples_x.extend(xo)
            self.samples_mode.extend([self.mode] * to.size)
            k = k_end
        self.t = float(tb)
        if len(pts_t) > 1:
            self.x, self.xd = np.array(pts_x[-1], float), np.array(pts_d[-1], float)
        hit = k < ot.size and abs(ot[k] - tb) <= 1e-15 * max(1.0, abs(tb)) + 1e-300
        if final_sample and hit:
            self.record()
            k += 1
        self.k_out = k
        if self.pending is not None and self.pending[0] <= tb * (1 + 1e-15):
            self._record_pending()
