"""The set-up's installer (scripts/install_lock.py, issue 25) hands uv the parts of pip's
configuration that say where packages come from, as pip would use them."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import install_lock  # noqa: E402


def settings_from(listing, monkeypatch):
    def fake_run(command, **kwargs):
        assert command[1:] == ["-m", "pip", "config", "list"]
        return subprocess.CompletedProcess(command, 0, stdout=listing, stderr="")

    monkeypatch.setattr(install_lock.subprocess, "run", fake_run)
    return install_lock.pip_settings("python")


def test_pip_s_variables_win_over_its_files_and_lists_are_split(monkeypatch):
    listing = (":env:.find-links='/from/variable'\n"
               "global.extra-index-url='https://a.example/simple https://b.example/simple'\n"
               "global.find-links='/from/file'\n"
               "global.cert='/etc/ssl/bundle.crt'\n")
    settings = settings_from(listing, monkeypatch)
    assert settings["find-links"] == ["/from/variable"]
    assert settings["extra-index-url"] == ["https://a.example/simple", "https://b.example/simple"]
    assert settings["cert"] == ["/etc/ssl/bundle.crt"]


def test_uv_gets_what_pip_would_use_and_skips_what_pip_would_skip(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    constraints = tmp_path / "constraints.txt"
    constraints.write_text("torch<=9\n")
    options, env = install_lock.uv_options({
        "find-links": [str(wheels), str(tmp_path / "missing")],
        "index-url": ["https://mirror.example/simple"],
        "extra-index-url": [f"file://{tmp_path / 'no-such-index'}", "https://extra.example/simple"],
        "constraint": [str(constraints)],
        "cert": ["/etc/ssl/bundle.crt"],
    })
    pairs = list(zip(options[::2], options[1::2]))
    assert pairs == [("--index-strategy", "unsafe-best-match"),  # pip's: the best of all indexes
                     ("--find-links", str(wheels)),
                     ("--index-url", "https://mirror.example/simple"),
                     ("--extra-index-url", "https://extra.example/simple"),
                     ("--constraint", str(constraints))]
    assert env == {"SSL_CERT_FILE": "/etc/ssl/bundle.crt"}


def test_without_pip_configuration_uv_uses_its_defaults():
    options, env = install_lock.uv_options({})
    assert options == ["--index-strategy", "unsafe-best-match"] and env == {}


def test_the_set_up_s_environment_has_the_lock_s_versions():
    # Whoever installed it (uv, or pip after uv failed), .venv holds every pin of the lock.
    from importlib.metadata import version

    pins = [line.split("==") for line in (ROOT / "requirements.txt").read_text().splitlines()
            if "==" in line and not line.startswith("#")]
    assert len(pins) > 100
    assert {name: version(name) for name, _ in pins} == dict(pins)
