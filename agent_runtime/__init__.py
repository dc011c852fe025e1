"""PIANO-style agent runtime for Minecraft: typed Agent State in Redis, concurrent modules,
a bottlenecked Cognitive Controller broadcasting over MQTT, and an LLM layer with a heuristic brain.

Public entry points: :class:`agent_runtime.app.village.Village`, :mod:`agent_runtime.config`,
:mod:`agent_runtime.interfaces` (the seams), :mod:`agent_runtime.world` (the body contract).
Nothing is started or read at import time.
"""

import os as _os

# One BLAS thread per process, set before numpy loads OpenBLAS (modules import this package
# first). Sentence encodings run in a worker thread beside the event loop; OpenBLAS's own
# thread pool deadlocked there (threads in threaded sgemm waiting on its level-3 lock, seen
# with gdb at the end of in-process experiment runs) and its fork handler hangs a process
# that starts a child mid-multiplication. Its pool also competes with the event loop for
# the cores. An explicit OPENBLAS_NUM_THREADS in the environment wins.
_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
