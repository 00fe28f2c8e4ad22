"""CUBIC in Python: Linux net/ipv4/tcp_cubic.c (v2.3) with standard slow
start, in the kernel's integer arithmetic, as a worked example of
`ccsim.Algorithm`. The built-in `cubic` with `cc_preset = "no_hystart"` is
the same algorithm in Rust; tests/test_pyalgo.py checks that the two agree.

Run it:  ccsim run examples/pycubic.toml   (tcp.cc = "py:pycubic:PyCubic",
from the examples/ directory, or with examples/ on PYTHONPATH).
"""

import math

import ccsim
from ccsim import cc

BETA_SCALE = 1024
BICTCP_HZ = 10  # time in 2^-10 s
HZ32 = 31  # HZ / 32 jiffies, HZ = 1000


class PyCubic(ccsim.Algorithm):
    name = "pycubic"

    def __init__(self, beta: float = 0.7, c: float = 0.4, fast_convergence: bool = True, tcp_friendliness: bool = True):
        self.beta = round(beta * BETA_SCALE)  # 717
        bic_scale = max(round(c * 1024 / 10), 1)  # 41
        self.cube_rtt_scale = bic_scale * 10
        self.cube_factor = (1 << (10 + 3 * BICTCP_HZ)) // self.cube_rtt_scale
        self.beta_scale = 8 * (BETA_SCALE + self.beta) // 3 // (BETA_SCALE - self.beta)  # 15
        self.fast_convergence = fast_convergence
        self.tcp_friendliness = tcp_friendliness
        self.reset()

    def reset(self):  # bictcp_reset: everything, last_max_cwnd included
        self.cnt = 0
        self.last_max_cwnd = 0
        self.last_cwnd = 0
        self.last_time = 0
        self.origin = 0
        self.k = 0
        self.delay_min = 0  # µs
        self.epoch_start = None  # jiffies
        self.ack_cnt = 0
        self.tcp_cwnd = 0

    def init(self, tp):  # cubictcp_init
        self.reset()

    def ssthresh(self, tp):  # cubictcp_recalc_ssthresh
        self.epoch_start = None
        w = tp.cwnd
        if w < self.last_max_cwnd and self.fast_convergence:
            self.last_max_cwnd = w * (BETA_SCALE + self.beta) // (2 * BETA_SCALE)
        else:
            self.last_max_cwnd = w
        return max(w * self.beta // BETA_SCALE, 2)

    def set_state(self, tp, new_state):  # cubictcp_state
        if new_state == cc.CA_LOSS:
            self.reset()

    def cwnd_event(self, tp, event):  # cubictcp_cwnd_event: shift the epoch over idle time
        if event != cc.CA_EVENT_TX_START or self.epoch_start is None:
            return
        now = tp.now_us // 1000
        delta = now - tp.lsndtime_us // 1000
        if delta > 0:
            self.epoch_start = min(self.epoch_start + delta, now)

    def pkts_acked(self, tp, sample):  # cubictcp_acked (HyStart left out)
        if sample.rtt_us is None:
            return
        if self.epoch_start is not None and tp.now_us // 1000 - self.epoch_start < 1000:
            return  # discard delay samples for 1 s after an epoch starts
        delay = max(sample.rtt_us, 1)
        if self.delay_min == 0 or self.delay_min > delay:
            self.delay_min = delay

    def update(self, cwnd, acked, j):  # bictcp_update
        self.ack_cnt += acked
        if self.last_cwnd == cwnd and j - self.last_time <= HZ32:
            return
        if not (self.epoch_start is not None and j == self.last_time):
            self.last_cwnd = cwnd
            self.last_time = j
            if self.epoch_start is None:
                self.epoch_start = j
                self.ack_cnt = acked
                self.tcp_cwnd = cwnd
                if self.last_max_cwnd <= cwnd:
                    self.k = 0
                    self.origin = cwnd
                else:
                    # the exact cube root, rounded (Linux: a table and one Newton step)
                    self.k = round(math.cbrt(self.cube_factor * (self.last_max_cwnd - cwnd)))
                    self.origin = self.last_max_cwnd
            t = j - self.epoch_start + -(-self.delay_min // 1000)  # one minimum RTT ahead
            t = (t << BICTCP_HZ) // 1000
            offs = abs(t - self.k)
            delta = min((self.cube_rtt_scale * offs**3) >> (10 + 3 * BICTCP_HZ), 2**32 - 1)
            target = max(self.origin - delta, 0) if t < self.k else min(self.origin + delta, 2**32 - 1)
            self.cnt = cwnd // (target - cwnd) if target > cwnd else 100 * cwnd
            if self.last_max_cwnd == 0 and self.cnt > 20:
                self.cnt = 20
        if self.tcp_friendliness:
            delta = max((cwnd * self.beta_scale) >> 3, 1)
            while self.ack_cnt > delta:
                self.ack_cnt -= delta
                self.tcp_cwnd += 1
            if self.tcp_cwnd > cwnd:
                self.cnt = min(self.cnt, cwnd // (self.tcp_cwnd - cwnd))
        self.cnt = max(self.cnt, 2)

    def cong_avoid(self, tp, acked):  # cubictcp_cong_avoid
        if tp.in_slow_start():
            acked = cc.slow_start(tp, acked)
            if not acked:
                return
        self.update(tp.cwnd, acked, tp.now_us // 1000)
        cc.cong_avoid_ai(tp, self.cnt, acked)
