"""Install the lock (requirements.txt) and the book's package into a virtual environment.

    python3.11 scripts/install_lock.py .venv

With uv (pinned below, installed into the environment by pip first), which unpacks the
wheels in parallel: about 5 s here where pip takes 24 s for the same packages at the same
versions (issue 25: the set-up is the one stage both lanes of ``make test`` wait for). uv
does not read pip's configuration, so the parts of it that say where packages come from
(``find-links``, ``index-url``, ``extra-index-url``, ``constraint``, ``cert``: a machine's
wheel folder, a mirror, a proxy's certificate) are handed to it. If uv cannot be installed or
fails, pip installs the lock as before, and says so.

No bytecode is compiled here: Python writes it for each module the first time a process
imports it (``make`` does not pass ``PYTHONDONTWRITEBYTECODE`` on), about 2,600 of the 12,000
modules installed; compiling them all would cost 27 s of CPU.
"""

import os
import shlex
import subprocess
import sys
from pathlib import Path

UV = "uv==0.13.9"
ROOT = Path(__file__).resolve().parents[1]


def pip_settings(python):
    """{option: [values]} of pip's configuration (files and PIP_* variables) as pip sees it."""
    listed = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True,
                            text=True).stdout
    files, variables = {}, {}
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        values = shlex.split(value)
        values = values[0].split() if values else []
        (variables if key.startswith(":env:") else files)[key.rsplit(".", 1)[-1]] = values
    return {**files, **variables}  # PIP_* variables win over the files, as in pip


def usable(location):
    """Whether pip would use a location: a URL, or a local path that exists (pip warns and
    skips the others; uv stops on them)."""
    if location.startswith("file://"):
        return Path(location.removeprefix("file://")).exists()
    return "://" in location or Path(location).exists()


def uv_options(settings):
    # pip takes the best match across all its indexes; uv, by default, only the first index
    # that has a package at all.
    options, env = ["--index-strategy", "unsafe-best-match"], {}
    for location in settings.get("find-links", []):
        if usable(location):
            options += ["--find-links", location]
    for location in settings.get("index-url", [])[:1]:
        options += ["--index-url", location]
    for location in settings.get("extra-index-url", []):
        if usable(location):
            options += ["--extra-index-url", location]
    for constraint in settings.get("constraint", []):
        if Path(constraint).exists():
            options += ["--constraint", constraint]
    for cert in settings.get("cert", [])[:1]:
        env["SSL_CERT_FILE"] = cert
    return options, env


def run(command, env=None):
    print("+", " ".join(command), flush=True)
    return subprocess.run(command, env={**os.environ, **(env or {})}).returncode == 0


def main(venv):
    python = str(Path(venv) / "bin" / "python")
    requirements = str(ROOT / "requirements.txt")
    quiet = ["--quiet", "--disable-pip-version-check"]
    uv = str(Path(venv) / "bin" / "uv")
    if run([python, "-m", "pip", "install", *quiet, "--no-compile", UV]):
        options, env = uv_options(pip_settings(python))
        install = [uv, "pip", "install", "--quiet", "--python", python, *options]
        if (run(install + ["-r", requirements], env)
                and run(install + ["--no-deps", "--no-build-isolation", "-e", str(ROOT)], env)):
            return 0
        print("uv failed: installing with pip instead", flush=True)
    else:
        print(f"{UV} could not be installed: installing with pip instead", flush=True)
    pip = [python, "-m", "pip", "install", *quiet, "--no-compile"]
    ok = (run(pip + ["-r", requirements])
          and run(pip + ["--no-deps", "--no-build-isolation", "-e", str(ROOT)]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
