"""The 'spawn' start method re-imports the main script in every worker
process; a script that runs simulations at top level (no ``if __name__ ==
"__main__":`` guard) would run them again in every worker. Entry points that
run simulations call :func:`refuse_in_bootstrap` first. A leaf module: the
scenario layer and the executors both import it."""

from __future__ import annotations

import multiprocessing as mp
import os

# The exit status of a worker process that stopped because the main script,
# which 'spawn' re-imports in every worker, started ccsim work at import time.
GUARD_EXIT = 86


def in_spawn_bootstrap() -> bool:
    """True while a 'spawn' child process re-imports the parent's main script
    (what multiprocessing itself checks before refusing to start a process)."""
    return bool(getattr(mp.current_process(), "_inheriting", False))


def refuse_in_bootstrap(what: str) -> None:
    """Called by every entry point that runs simulations (Scenario.run,
    run_sweep): in a worker still importing an unguarded main script, stop the
    worker at once with GUARD_EXIT (the parent turns that into one clear
    error) instead of running the script's simulations again in every worker."""
    if in_spawn_bootstrap():
        import sys

        sys.stderr.write(
            f"ccsim: a worker process re-ran the main script and reached {what}; "
            'the script needs an `if __name__ == "__main__":` guard\n'
        )
        sys.stderr.flush()
        os._exit(GUARD_EXIT)
