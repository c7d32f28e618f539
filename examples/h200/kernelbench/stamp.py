# stamp.py CMD...: runs CMD on a terminal (ncu prints its progress marks,
# one per share of a launch's replay passes, as they happen only there) and
# prints each piece of its output with the seconds since CMD's start, so a
# launch's passes can be timed one share at a time. Exits with CMD's status.
import os, pty, sys, time

t0 = time.time()
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
buf = b""
while True:
    try:
        b = os.read(fd, 4096)
    except OSError:
        break
    if not b:
        break
    t = time.time() - t0
    for piece in b.replace(b"\r", b"").split(b"\n"):
        if piece:
            sys.stdout.write("%.3f %s\n" % (t, piece.decode(errors="replace")[:160]))
    sys.stdout.flush()
_, st = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(st))
