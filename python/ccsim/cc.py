"""What a Python congestion-control algorithm works with: Linux's shared
helpers of net/ipv4/tcp_cong.c under their names (run by the core's own
code, so a port behaves as the built-in does), the types its hooks receive,
and Linux's constants (include/net/tcp.h, include/uapi/linux/tcp.h)."""

from __future__ import annotations

from ._core import CA_ACK_ECE, AckSample, RateSample, Tcp, cong_avoid_ai, reno_cong_avoid, slow_start

__all__ = [
    "CA_ACK_ECE",
    "CA_CWR",
    "CA_DISORDER",
    "CA_EVENT_COMPLETE_CWR",
    "CA_EVENT_CWND_RESTART",
    "CA_EVENT_ECN_IS_CE",
    "CA_EVENT_ECN_NO_CE",
    "CA_EVENT_LOSS",
    "CA_EVENT_TLP_RECOVERY",
    "CA_EVENT_TX_START",
    "CA_LOSS",
    "CA_OPEN",
    "CA_RECOVERY",
    "INFINITE_SSTHRESH",
    "AckSample",
    "RateSample",
    "Tcp",
    "cong_avoid_ai",
    "reno_cong_avoid",
    "slow_start",
]

# enum tcp_ca_state, the kernel's values (tp.ca_state, set_state's argument)
CA_OPEN, CA_DISORDER, CA_CWR, CA_RECOVERY, CA_LOSS = range(5)
# enum tcp_ca_event (cwnd_event's argument); TLP_RECOVERY is the BBRv3 kernel's
(
    CA_EVENT_TX_START,
    CA_EVENT_CWND_RESTART,
    CA_EVENT_COMPLETE_CWR,
    CA_EVENT_LOSS,
    CA_EVENT_ECN_NO_CE,
    CA_EVENT_ECN_IS_CE,
    CA_EVENT_TLP_RECOVERY,
) = range(7)
# tp.ssthresh before the first reduction (the core's "arbitrarily high")
INFINITE_SSTHRESH = 2**32 - 1
