"""Starting a local Ray survives one failed head start (a loaded machine's slow or crashed GCS)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from arena.match import executor


class FakeRay:
    """Stands in for `ray.init`/`ray.shutdown`: fails the first `failures` starts as Ray does."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.inits = 0
        self.shutdowns = 0

    def init(self, **_: Any) -> None:
        self.inits += 1
        if self.inits <= self.failures:
            raise RuntimeError("Timed out waiting for file /tmp/ray/session_x/gcs_server_port_y")

    def shutdown(self) -> None:
        self.shutdowns += 1


@pytest.fixture
def fake_ray(monkeypatch: pytest.MonkeyPatch) -> Any:
    def install(failures: int) -> FakeRay:
        fake = FakeRay(failures)
        monkeypatch.setattr(executor.ray, "init", fake.init)
        monkeypatch.setattr(executor.ray, "shutdown", fake.shutdown)
        monkeypatch.setattr(executor.ray, "is_initialized", lambda: False)
        # setenv first, so the variable is put back as it was whatever connect() sets
        monkeypatch.setenv("RAY_gcs_server_port_wait_time_s", "0")
        monkeypatch.delenv("RAY_gcs_server_port_wait_time_s")
        return fake
    return install


def test_a_head_that_fails_once_is_shut_down_and_started_again(fake_ray: Any,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    fake = fake_ray(failures=1)
    assert executor.connect(num_cpus=1) is True
    assert (fake.inits, fake.shutdowns) == (2, 1)
    assert "local Ray did not start (RuntimeError: Timed out waiting" in caplog.text


def test_a_head_that_fails_every_time_raises_rather_than_hiding_it(fake_ray: Any) -> None:
    fake = fake_ray(failures=executor.LOCAL_START_ATTEMPTS)
    with pytest.raises(RuntimeError, match="Timed out waiting"):
        executor.connect(num_cpus=1)
    assert fake.inits == executor.LOCAL_START_ATTEMPTS


def test_the_gcs_wait_is_raised_unless_the_operator_set_it(fake_ray: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_ray(failures=0)
    executor.connect(num_cpus=1)
    assert os.environ["RAY_gcs_server_port_wait_time_s"] == str(executor.GCS_PORT_WAIT_SECONDS)
    monkeypatch.setenv("RAY_gcs_server_port_wait_time_s", "7")
    executor.connect(num_cpus=1)
    assert os.environ["RAY_gcs_server_port_wait_time_s"] == "7"
