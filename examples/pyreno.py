"""Reno in Python: Linux net/ipv4/tcp_cong.c (tcp_reno_ssthresh,
tcp_reno_cong_avoid) with the kernel's helpers, the worked example of
docs/python-algorithms.md. It gives byte-identical results to the built-in
`reno` on the `linux` stack (tests/test_pyalgo.py).

    ccsim run examples/pyreno.toml --allow-code   # tcp.cc = "py:pyreno:PyReno"
"""

import ccsim
from ccsim import cc


class PyReno(ccsim.Algorithm):
    name = "pyreno"
    recovery = "reno"  # without SACK: RFC 5681 fast recovery, as the built-in reno

    def ssthresh(self, tp):  # tcp_reno_ssthresh
        return max(tp.cwnd >> 1, 2)

    def cong_avoid(self, tp, acked):  # tcp_reno_cong_avoid (the core checks cwnd-limited first)
        if tp.in_slow_start():
            acked = cc.slow_start(tp, acked)
            if not acked:
                return
        cc.cong_avoid_ai(tp, tp.cwnd, acked)
