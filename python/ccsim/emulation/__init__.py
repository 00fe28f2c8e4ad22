"""The emulation backend: a scenario run through the running kernel's own TCP.

Each end host of the scenario becomes a network namespace with one TUN
device; a forwarder written in Rust (``ccsim-emu``, called through
``_core.forward`` without the GIL) moves the packets between the TUN devices
through the scenario's links in real time, with the simulator's own link,
queue, loss and routing code. Senders and sinks are small standard-library
programs (``agent.py``) that set the congestion control, pacing and MSS on
their sockets and sample ``TCP_INFO``. The result has the same tables as a
simulated run (``flows``, ``flow_series``, ``links``, ``link_series``,
``transfers``) plus ``forwarder`` and ``hosts``, and an ``emulation`` block in
its manifest and JSON with the run's self-validation: forwarder lateness,
measured versus configured minimum RTT, and drops the model did not decide.

See docs/emulation.md for what is supported, the envelope measured on two
cores, and how the kernel and the simulator differ.
"""

from ..errors import EmulationError
from .netns import cleanup_stale
from .run import EMU_VERSION, KERNEL_CC, available, check_supported, emulate, kernel_ccs, sim_twin

__all__ = [
    "EMU_VERSION",
    "KERNEL_CC",
    "EmulationError",
    "available",
    "check_supported",
    "cleanup_stale",
    "emulate",
    "kernel_ccs",
    "sim_twin",
]
