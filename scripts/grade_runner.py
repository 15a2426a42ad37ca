"""The half of a grading that runs the student's code: in the sandbox, beside the
submission's ``code/toygrad``, the book's probes (``tests/probes_chNN.py``) and
``tests/verdict.py``, nothing else of the book's (``scripts/grade.py`` puts it there).

    python -I grade_runner.py job.json results.json

``job.json`` lists the probes to run (module, function, case) and the seed that draws
their inputs, chosen by the grader. What happens goes to ``results.jsonl`` as it happens,
one JSON object a line, each line written whole and flushed: where ``toygrad`` was imported
from (or why it was not), the probe about to run (``{"running": id}``), then its observation,
as plain data, or the error it raised (``{"item": id, "entry": ...}``). A run that dies leaves
what it had found, and the probe it was running; appending keeps the writing in proportion to
the run (rewriting one JSON file after every probe took half of a grading's time, issue 25).
This process decides nothing: the grader reads the observations and compares them, in its own process,
with expectations this one never sees (no test file is here). Whatever the submission does
to this process changes only the observations it reports, which must then be right.
"""

import importlib
import json
import os
import resource
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


class ProbeTimeout(BaseException):  # not an Exception: a submission's except does not stop it
    pass


def where(error):
    """`` (in toygrad/optim.py, line 12)``: the submission's line the error came from, if
    any (the file that does not parse, for a syntax error)."""
    if isinstance(error, SyntaxError) and error.filename and "toygrad" in error.filename:
        path = error.filename.replace(os.sep, "/")
        return f" (in {path[path.rindex('toygrad/'):]}, line {error.lineno})"
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if "/code/toygrad/" in frame.filename.replace(os.sep, "/")]
    if not frames:
        return ""
    path = frames[-1].filename.replace(os.sep, "/")
    return f" (in {path[path.rindex('toygrad/'):]}, line {frames[-1].lineno})"


def describe(error):
    lines = str(error).strip().splitlines()
    said = f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
    return (said + where(error))[:300]


def main(job_path, results_path):
    with open(job_path) as stream:
        job = json.load(stream)
    sys.path[:0] = [os.path.join(HERE, "code"), os.path.join(HERE, "tests")]
    report = open(results_path, "a")

    def say(**event):
        report.write(json.dumps(event, allow_nan=True) + "\n")
        report.flush()

    try:
        import toygrad
        say(toygrad=os.path.dirname(os.path.abspath(toygrad.__file__)))
    except BaseException as error:  # noqa: BLE001 - a syntax or import error: the reason
        say(error=f"import toygrad: {describe(error)}")
    import verdict  # the book's: plain data

    def alarm(signum, frame):
        raise ProbeTimeout(f"the test ran longer than {job['seconds']:g} s")

    def too_much_cpu(signum, frame):
        raise ProbeTimeout(f"the test used more than {job['cpu_seconds']:g} s of CPU")

    _, hard = resource.getrlimit(resource.RLIMIT_CPU)  # the whole run's, set outside
    for item in job["items"]:
        say(running=item["id"])
        signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, job["seconds"])
        # CPU time, all threads: the kernel's SIGXCPU past this probe's share (the
        # process's time so far plus cpu_seconds), its SIGKILL past the run's
        signal.signal(signal.SIGXCPU, too_much_cpu)
        soft = int(time.process_time() + job["cpu_seconds"]) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY
                                                 else min(soft, hard), hard))
        started = time.process_time()
        try:
            module = importlib.import_module(item["module"])
            probe = getattr(module, item["function"])
            entry = {"observed": verdict.plain(probe(*item["case"], seed=job["seed"]))}
            json.dumps(entry, allow_nan=True)  # plain data, or the error below
        except BaseException as error:  # noqa: BLE001 - each probe's own reason
            if isinstance(error, KeyboardInterrupt):
                raise
            entry = {"error": describe(error)}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        entry["cpu"] = round(time.process_time() - started, 3)
        say(item=item["id"], entry=entry)


if __name__ == "__main__":
    main(*sys.argv[1:3])
