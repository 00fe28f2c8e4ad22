"""The campaign folder: what a sweep writes and how it survives a crash.

Layout (``ccsim sweep FILE --out DIR``)::

    DIR/campaign.json        what made it: ccsim and model version, every sweep run into it
    DIR/catalogue.jsonl      one line per point attempt: run_id, params, status, error, timings
    DIR/runs/<run_id>/       a finished run: one Parquet file per table, manifest.json
                             and summary.json (the manifest without its scenarios)
    DIR/tmp/                 runs being written (emptied when the campaign is opened)
    DIR/stale/               runs of an older model, moved aside by --rerun-stale

A run folder is written under ``tmp/`` and renamed into ``runs/`` in one
step, so ``runs/<id>/`` either is complete or does not exist; its manifest
records every file's size and SHA-256, and a folder whose files do not
match (damaged after the fact) counts as missing. The checks read
``summary.json``: the manifest holds the whole resolved scenario (tens of
MB for a mix of 15,000 web flows), which no check needs; the summary
records the manifest's size, so a manifest cut short is found too. Catalogue lines are appended (one
``write`` each) only after the rename; a line cut short by a crash is
ignored when read and cut off before the next append, and a finished run
whose line was lost is re-catalogued from its manifest. Nothing is fsync'ed:
a killed process loses nothing the kernel already has; after a power cut
the size and hash checks find damaged runs. Only the client process writes here.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .. import _core
from .._json import manifest_bytes
from ..analysis.results import file_sha256
from ..errors import ScenarioError
from .sweep import canonical_json

FORMAT = 1


# The manifest's parts no check of the store reads: the scenario as written
# and as resolved (the bulk of a large run's manifest).
HEAVY = ("scenario", "resolved")


def light(manifest: dict[str, Any]) -> dict[str, Any]:
    """A manifest without its `HEAVY` parts."""
    return {k: v for k, v in manifest.items() if k not in HEAVY}


def model_tag() -> dict[str, Any]:
    return {"model_version": int(_core.MODEL_VERSION), "ccsim_version": _core.__version__}


def run_id(core: dict[str, Any], backend: str = "sim") -> str:
    """A run's identity: a hash of the canonical resolved scenario (units
    and defaults applied; it holds the seed), the model version and the
    package version; for an emulated run also the backend and the kernel
    release (another kernel is another TCP) and the emulation backend's
    version. 20 hex digits (80 bits)."""
    import hashlib
    import os

    ident = {"scenario": core, **model_tag()}
    if backend != "sim":
        from ..emulation import EMU_VERSION

        ident.update(backend=backend, kernel=os.uname().release, emu_version=EMU_VERSION)
    text = canonical_json(ident)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def params_key(params: dict[str, Any]) -> str:
    return canonical_json(params)


class CampaignError(ScenarioError):
    """The campaign folder cannot be used as asked (the message says why and what to do)."""


# Catalogues whose bad lines were already warned about in this process.
_WARNED: set[str] = set()


def _linked(path: Path) -> CampaignError:
    return CampaignError(
        str(path),
        message=(
            f"{path}: is a symbolic link; ccsim writes only its own files in a campaign folder and never through "
            "a link (remove the link, or choose another --out)"
        ),
    )


def _open_own(path: Path, flags: int, mode: int = 0o644) -> int:
    """os.open of one of ccsim's own files, never through a symbolic link."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW, mode)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise _linked(path) from None
        raise


def _write_own(path: Path, data: bytes, *, sync: bool = False) -> None:
    """Create one of ccsim's own files anew (a temporary file before its
    rename): never through a link, never onto a file that is already there."""
    if path.is_symlink():
        raise _linked(path)
    path.unlink(missing_ok=True)  # a stale temporary file of an interrupted write
    fd = _open_own(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


# schema/<table>.parquet beside runs/: each table's columns and types,
# without rows, once per campaign
SCHEMA_DIR = "schema"


def _own_dir(path: Path) -> None:
    """mkdir -p for one of ccsim's own folders (runs/, tmp/, stale/), which
    must not be a link to somewhere else."""
    if path.is_symlink():
        raise _linked(path)
    path.mkdir(parents=True, exist_ok=True)


class Store:
    def __init__(self, root: str | Path, *, create: bool = False, readonly: bool = False) -> None:
        self.root = Path(root)
        self.runs_dir = self.root / "runs"
        self.tmp_dir = self.root / "tmp"
        self.catalogue_path = self.root / "catalogue.jsonl"
        self.meta_path = self.root / "campaign.json"
        self._fd: int | None = None
        self._lock_fd: int | None = None
        # manifest summaries (everything but the resolved scenario, which can
        # be tens of MB for a big traffic mix) by run id, with the (mtime,
        # size) they were read at: a sweep consults each several times (stale
        # check, repair, resume), and parsing is what costs
        self._summaries: dict[str, tuple[tuple[int, int], dict[str, Any]]] = {}
        # files whose SHA-256 was checked, by (path, mtime, size): each is
        # read once per process
        self._hashed: dict[tuple[str, int, int], bool] = {}
        if not self.meta_path.exists():
            if not create:
                raise CampaignError(
                    str(self.root),
                    message=(
                        f"{self.root}: not a campaign folder (no campaign.json); "
                        "expected the --out folder of 'ccsim sweep'"
                    ),
                )
            if self.root.exists() and any(self.root.iterdir()):
                raise CampaignError(
                    str(self.root),
                    message=(f"{self.root}: exists, is not empty and is not a campaign folder; choose another --out"),
                )
            self.runs_dir.mkdir(parents=True, exist_ok=True)
            self._write_meta({"format": FORMAT, "created_unix": time.time(), **model_tag(), "sweeps": []})
        self.meta = self._read_meta()
        if readonly:
            return
        self._lock_fd = self._lock()
        self._cut_torn_line()
        _own_dir(self.runs_dir)
        if self.tmp_dir.is_symlink():
            raise _linked(self.tmp_dir)
        if self.tmp_dir.exists():  # runs cut off by a crash: never read, now removed
            shutil.rmtree(self.tmp_dir)

    def _read_meta(self) -> dict[str, Any]:
        try:
            meta = json.loads(self.meta_path.read_text())
        except (OSError, ValueError) as e:
            meta, why = None, str(e).splitlines()[0][:120] if str(e) else type(e).__name__
        else:
            why = "not a JSON object"
        if not isinstance(meta, dict):
            raise CampaignError(
                str(self.meta_path),
                message=(
                    f"{self.meta_path}: damaged ({why}); the runs under runs/ are intact: move campaign.json "
                    "away and run the sweep again to rebuild it, or choose another --out"
                ),
            )
        return meta

    def _lock(self) -> int | None:
        """Hold an exclusive lock on the folder for as long as this writer
        lives (released by the kernel when the process ends, however it
        ends), so that a second sweep into the same folder is refused instead
        of recomputing everything and removing the first one's files. On a
        folder that cannot be written (read-only media) no lock is taken:
        nothing will be written there."""
        import fcntl

        path = self.root / ".lock"
        try:
            fd = _open_own(path, os.O_RDWR | os.O_CREAT)
        except CampaignError:
            raise
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise CampaignError(
                str(self.root),
                message=(
                    f"{self.root}: another ccsim process (pid {holder}) is writing to this campaign; wait for it "
                    "to finish, or choose another --out (queries may read it meanwhile)"
                ),
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return fd

    def release(self) -> None:
        """Release the writer's lock (the process's end releases it too)."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __del__(self) -> None:
        self.release()

    # ---- metadata
    def _write_meta(self, meta: dict[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.root / ".campaign.json.tmp"
        _write_own(tmp, json.dumps(meta, indent=2, default=str).encode())
        os.replace(tmp, self.meta_path)
        self.meta = meta

    def add_sweep(self, description: dict[str, Any]) -> None:
        meta = dict(self.meta)
        meta["sweeps"] = list(meta.get("sweeps", [])) + [{**description, "started_unix": time.time(), **model_tag()}]
        meta.update(model_tag())
        self._write_meta(meta)

    # ---- catalogue
    def _cut_torn_line(self) -> None:
        """Drop a last line that a crash cut short, so that the next append
        starts on a line of its own."""
        if not self.catalogue_path.exists():
            return
        with os.fdopen(_open_own(self.catalogue_path, os.O_RDWR), "rb+") as f:
            data = f.read()
            if data and not data.endswith(b"\n"):
                f.truncate(data.rfind(b"\n") + 1)
                f.flush()
                os.fsync(f.fileno())

    def entries(self) -> Iterator[dict[str, Any]]:
        """Every complete catalogue line, oldest first (a torn last line is
        skipped). A line that is not a catalogue entry (damaged on disk,
        edited by hand) is skipped too, and named once in a warning."""
        if not self.catalogue_path.exists():
            return
        bad = []
        with open(self.catalogue_path, "rb") as f:
            for n, line in enumerate(f, 1):
                if not line.endswith(b"\n"):
                    break
                try:
                    e = json.loads(line)
                except ValueError:
                    e = None
                if isinstance(e, dict) and isinstance(e.get("params"), dict) and "run_id" in e:
                    yield e
                else:
                    bad.append(n)
        if bad and str(self.catalogue_path) not in _WARNED:
            import warnings

            _WARNED.add(str(self.catalogue_path))
            warnings.warn(
                f"{self.catalogue_path}: line{'s' if len(bad) > 1 else ''} {', '.join(map(str, bad[:5]))}"
                f"{' …' if len(bad) > 5 else ''} {'are' if len(bad) > 1 else 'is'} not a catalogue entry and "
                "skipped (the runs they named are recomputed or re-catalogued by the next sweep)",
                stacklevel=2,
            )

    def latest(self) -> dict[tuple[str, str], dict[str, Any]]:
        """(run_id, params key) -> its latest catalogue line."""
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for e in self.entries():
            out[(e["run_id"], params_key(e["params"]))] = e
        return out

    def append(self, entry: dict[str, Any]) -> None:
        line = (json.dumps(entry, sort_keys=True, default=str) + "\n").encode()
        # O_APPEND: one write per line; a crash can only cut the last line short.
        if self._fd is None:
            self._fd = _open_own(self.catalogue_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        os.write(self._fd, line)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def rewrite_catalogue(self, entries: list[dict[str, Any]]) -> None:
        self.close()
        tmp = self.root / ".catalogue.jsonl.tmp"
        text = "".join(json.dumps(e, sort_keys=True, default=str) + "\n" for e in entries)
        _write_own(tmp, text.encode(), sync=True)
        os.replace(tmp, self.catalogue_path)

    # ---- runs
    def has_run(self, rid: str) -> bool:
        """A finished run: its folder is in runs/ and every file the manifest
        names has the size and the SHA-256 recorded there (a folder damaged
        after the fact, by a power cut or a bad disk, counts as missing and
        is recomputed). Each file is hashed once per process while its size
        and mtime stay the same. Runs written before hashes were recorded
        are checked by size alone; the manifest itself by its size and, since
        it is recorded, its SHA-256."""
        d = self.runs_dir / rid
        try:
            man = self.summary(rid)
            files, hashes = man["files"], man.get("sha256") or {}
            if "manifest_bytes" in man:
                mst = (d / "manifest.json").stat()
                if mst.st_size != man["manifest_bytes"]:
                    return False
                if "manifest_sha256" in man and not self._hash_ok(d / "manifest.json", mst, man["manifest_sha256"]):
                    return False
            for name, size in files.items():
                st = (d / name).stat()
                if st.st_size != size:
                    return False
                if name in hashes and not self._hash_ok(d / name, st, hashes[name]):
                    return False
            return True
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return False

    def _hash_ok(self, path: Path, st: os.stat_result, want: str) -> bool:
        key = (str(path), st.st_mtime_ns, st.st_size)
        ok = self._hashed.get(key)
        if ok is None:
            ok = self._hashed[key] = file_sha256(path) == want
        return ok

    def run_dir(self, rid: str) -> Path:
        return self.runs_dir / rid

    def write_run(
        self, rid: str, files: dict[str, bytes], manifest: dict[str, Any], empty: dict[str, bytes] | None = None
    ) -> Path:
        """Write a run's tables and manifest under tmp/ and rename the folder
        into runs/. A table without rows (`empty`) is not written with the
        run: its Parquet bytes (columns and types, the same for every run)
        are kept once per campaign in schema/, which the query views
        read so that a table no run filled still has its view."""
        _own_dir(self.tmp_dir)
        for name, data in (empty or {}).items():
            self._keep_schema(name, data)
        tmp = self.tmp_dir / f"{rid}.{os.getpid()}"
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir()
        for name, data in files.items():
            (tmp / f"{name}.parquet").write_bytes(data)
        manifest = {
            **manifest,
            "files": {f"{name}.parquet": len(data) for name, data in files.items()},
            "sha256": {f"{name}.parquet": hashlib.sha256(data).hexdigest() for name, data in files.items()},
        }
        man_bytes = manifest_bytes(manifest)
        (tmp / "manifest.json").write_bytes(man_bytes)
        summary = light(manifest) | {
            "manifest_bytes": len(man_bytes),
            "manifest_sha256": hashlib.sha256(man_bytes).hexdigest(),
        }
        (tmp / "summary.json").write_bytes(manifest_bytes(summary))
        final = self.runs_dir / rid
        if final.exists():  # damaged (has_run said no): replace it
            shutil.rmtree(final)
        os.rename(tmp, final)
        return final

    def schema_file(self, table: str) -> Path:
        """The campaign's copy of `table` without rows (`write_run`)."""
        return self.root / SCHEMA_DIR / f"{table}.parquet"

    def _keep_schema(self, table: str, data: bytes) -> None:
        path = self.schema_file(table)
        if path.exists():
            return
        _own_dir(path.parent)
        tmp = self.tmp_dir / f"{SCHEMA_DIR}.{table}.{os.getpid()}"
        tmp.write_bytes(data)
        os.replace(tmp, path)

    def manifest(self, rid: str) -> dict[str, Any]:
        man: dict[str, Any] = json.loads((self.runs_dir / rid / "manifest.json").read_text())
        return man

    def summary(self, rid: str) -> dict[str, Any]:
        """A run's manifest without its scenarios (`HEAVY`), parsed once
        while the file is unchanged: its ``summary.json``, or for a run
        written before there was one, its manifest. OSError or ValueError
        when it cannot be read."""
        d = self.runs_dir / rid
        path = d / "summary.json"
        try:
            st = path.stat()
        except FileNotFoundError:
            path = d / "manifest.json"
            st = path.stat()
        key = (st.st_mtime_ns, st.st_size)
        hit = self._summaries.get(rid)
        if hit is not None and hit[0] == key:
            return hit[1]
        man = json.loads(path.read_bytes())
        if not isinstance(man, dict):
            raise ValueError(f"{path}: not a mapping")
        small = light(man)
        self._summaries[rid] = (key, small)
        return small

    def repair(self) -> int:
        """Catalogue runs whose folder exists but whose line was lost in a crash."""
        known = {(e["run_id"], params_key(e["params"])) for e in self.entries() if e.get("status") == "ok"}
        n = 0
        for d in sorted(self.runs_dir.iterdir()):
            if not self.has_run(d.name):
                continue
            man = self.summary(d.name)
            params = man.get("params", {})
            if (d.name, params_key(params)) not in known:
                self.append(ok_entry(d.name, params, man))
                n += 1
        return n

    def stale_runs(self) -> list[str]:
        """Run folders made by another model or package version. A folder
        whose manifest cannot be read (empty or cut short by a power cut) is
        not stale but damaged: `has_run` says no, so it is recomputed, and
        it is left out of every query meanwhile."""
        tag = model_tag()
        out = []
        for d in sorted(self.runs_dir.iterdir()):
            try:
                man = self.summary(d.name)
            except (OSError, ValueError):
                continue
            if not isinstance(man, dict):
                continue
            if man.get("model_version") != tag["model_version"] or man.get("ccsim_version") != tag["ccsim_version"]:
                out.append(d.name)
        return out

    def move_stale(self, rids: list[str]) -> None:
        stale = self.root / "stale"
        _own_dir(stale)
        for rid in rids:
            dest = stale / rid
            if dest.exists():
                shutil.rmtree(dest)
            os.rename(self.runs_dir / rid, dest)
        drop = set(rids)
        self.rewrite_catalogue([e for e in self.entries() if e["run_id"] not in drop])


def ok_entry(rid: str, params: dict[str, Any], man: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "run_id": rid,
        "params": params,
        "status": "ok",
        "error": None,
        "kind": None,
        "model_version": man.get("model_version"),
        "ccsim_version": man.get("ccsim_version"),
        **{k: man.get("stats", {}).get(k) for k in ("wall_s", "cpu_s", "sim_time_s", "events")},
        "finished_unix": time.time(),
        **extra,
    }
