"""Runs a command with SIGINT at its default disposition (lit's workers
ignore SIGINT, and children inherit that), sends it SIGINT after the given
seconds and prints how it ended: "exit N", or "signal N" when the signal
ended it.

usage: interrupt.py SECONDS COMMAND [ARG ...]
"""
import signal
import subprocess
import sys
import time

process = subprocess.Popen(
    sys.argv[2:], preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
time.sleep(float(sys.argv[1]))
process.send_signal(signal.SIGINT)
status = process.wait()
print(f"signal {-status}" if status < 0 else f"exit {status}")
