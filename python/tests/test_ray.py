"""evalstream.ray on a local Ray cluster (its own GCS, raylet and worker processes)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

import evalstream
import evalstream.ray as es_ray
from conftest import results, CLASS_METRICS, CLASS_SLICE, TEXT_METRICS, TEXT_SLICE
from engines import kill, require_engines, wait_for

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster():
    try:
        ray.init(num_cpus=2, include_dashboard=False, object_store_memory=256 << 20, log_to_driver=False)
    except Exception as e:
        if require_engines():
            raise
        pytest.skip(f"Ray cannot start here: {e}")
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    yield
    ray.shutdown()


@pytest.mark.parametrize("parts", [8, 13])
def test_wmt17_equals_cli(cluster, data_dir: Path, wmt17_cli: dict, parts: int) -> None:
    ds = ray.data.read_parquet(str(data_dir / f"wmt17_{parts}")).repartition(parts)
    assert es_ray.fold_blocks(ds, metrics=["bleu"], workers=1).count() == parts
    res = es_ray.score(ds, metrics=TEXT_METRICS, slice_by=TEXT_SLICE, workers=1)
    assert results(res.to_dict()) == wmt17_cli


def test_classification_equals_cli(cluster, data_dir: Path, classification_cli: dict) -> None:
    ds = ray.data.read_parquet(str(data_dir / "classification_8")).repartition(8)
    res = es_ray.score(ds, metrics=CLASS_METRICS, slice_by=CLASS_SLICE, workers=1)
    assert results(res.to_dict()) == classification_cli


def test_worker_killed_mid_job(cluster, data_dir: Path, wmt17_cli: dict, tmp_path: Path) -> None:
    """The worker process folding a block is killed: Ray retries the task and the result is
    still exactly the CLI's."""
    markers = tmp_path / "markers"
    markers.mkdir()
    mdir = str(markers)

    def slow(batch):
        import os
        import time
        import uuid

        open(os.path.join(mdir, f"{os.getpid()}-{uuid.uuid4().hex}"), "w").close()
        time.sleep(1)
        return batch

    ds = ray.data.read_parquet(str(data_dir / "wmt17_13")).repartition(13)
    slowed = ds.map_batches(slow, batch_format="pyarrow", batch_size=None)
    out: dict = {}

    def job() -> None:
        try:
            out["res"] = es_ray.score(slowed, metrics=TEXT_METRICS, slice_by=TEXT_SLICE, workers=1)
        except BaseException as e:
            out["err"] = e

    t = threading.Thread(target=job)
    t.start()
    wait_for(lambda: any(markers.iterdir()), "a task to start")
    victim = int(next(markers.iterdir()).name.split("-")[0])
    assert victim != os.getpid()
    kill(victim)
    t.join(timeout=600)
    assert not t.is_alive()
    if "err" in out:
        raise out["err"]
    assert results(out["res"].to_dict()) == wmt17_cli
    assert len(list(markers.iterdir())) > 13, "no task ran twice: the kill did not hit a running task"
