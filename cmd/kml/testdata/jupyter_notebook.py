"""Drives the KML kernel through Debian's python3-nbclient and
python3-jupyter-client, for cmd/kml's TestJupyterNotebook:

  python3 jupyter_notebook.py NOTEBOOK.ipynb OUT.ipynb

executes NOTEBOOK with the kernelspec "kml" found in JUPYTER_DATA_DIR,
writes the executed notebook to OUT, prints each code cell's output types,
and checks that a plot arrives as image/png and a summary as text/html.
Then it starts a kernel, runs a long fit, and interrupts it twice: with
interrupt_request (the kernelspec's interrupt_mode "message") and with
SIGINT; each must end the cell with an "Interrupted" error in seconds and
keep the session's names. Exit status 1 on any failure.
(Install: apt-get install python3-nbclient python3-jupyter-client python3-nbformat)
"""
import os
import signal
import sys
import time

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def run_notebook(path, out):
    nb = nbformat.read(path, as_version=4)
    start = time.time()
    NotebookClient(nb, timeout=300, kernel_name="kml",
                   resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}}).execute()
    print("notebook executed in %.1f s" % (time.time() - start))
    kinds = set()
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        types = []
        for o in cell.outputs:
            data = sorted(o.get("data", {}).keys())
            types.append(o.output_type + (" " + ",".join(data) if data else " " + o.get("name", "")))
            kinds.update(data)
            check(o.output_type != "error", "cell %d runs without error" % i)
        print("cell %2d [%s]: %s" % (i, cell.get("execution_count"), "; ".join(types) or "(no output)"))
    check("image/png" in kinds, "a plot arrives as image/png")
    check("image/svg+xml" in kinds, "a plot arrives as image/svg+xml")
    check("text/html" in kinds, "the summary arrives as text/html")
    nbformat.write(nb, out)


LONG = "let p = sample(m, chains: 1, warmup: 1000000, draws: 1000000, seed: 1)"


def interrupted(kc, km, how):
    msg_id = kc.execute(LONG)
    # Wait until the cell runs (its execute_input) before interrupting.
    while True:
        m = kc.get_iopub_msg(timeout=30)
        if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "execute_input":
            break
    time.sleep(0.3)
    start = time.time()
    if how == "message":
        km.interrupt_kernel()
    else:
        km.signal_kernel(signal.SIGINT)
    reply = kc.get_shell_msg(timeout=30)
    took = time.time() - start
    c = reply["content"]
    check(c["status"] == "error" and c.get("ename") == "Interrupted" and took < 10,
          "interrupt by %s stops a long fit (%.2f s, %s %s)" % (how, took, c["status"], c.get("ename")))


def run_interrupts():
    km = KernelManager(kernel_name="kml")
    check(km.kernel_spec.interrupt_mode == "message", "the kernelspec's interrupt_mode is message")
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        r = kc.execute_interactive("let a = 5\nmodel m {\n  mu ~ normal(0, 1)\n}", timeout=30)
        check(r["content"]["status"] == "ok", "a cell defines a and m")
        interrupted(kc, km, "message")
        interrupted(kc, km, "SIGINT")
        seen = []
        r = kc.execute_interactive("a + 1", timeout=30, output_hook=seen.append)
        results = [m["content"]["data"]["text/plain"] for m in seen if m["msg_type"] == "execute_result"]
        check(results == ["6"], "names survive the interrupts (a + 1 = %s)" % results)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    check(not km.is_alive(), "the kernel stops on shutdown_request")


run_notebook(sys.argv[1], sys.argv[2])
run_interrupts()
if failures:
    print("%d failures" % len(failures))
    sys.exit(1)
