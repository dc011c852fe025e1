'use strict'
// Parent-death watchdog: exit when the process that started us is gone.
//
// Three signals, any one suffices: stdin reaching EOF (the JSPyBridge pipe),
// the IPC channel closing (forked workers), and the parent pid changing or
// no longer existing (checked every ``intervalMs``).

function parentAlive (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

function install ({ onGone, intervalMs = 500, watchStdin = false, watchIpc = false } = {}) {
  const parent = process.ppid
  let fired = false
  const gone = (why) => {
    if (fired) return
    fired = true
    try { if (onGone) onGone(why) } catch (e) {}
    // Give the bots a moment to say goodbye, then leave regardless.
    setTimeout(() => process.exit(0), 300).unref()
  }
  const timer = setInterval(() => {
    if (process.ppid !== parent || !parentAlive(parent)) gone('parent process is gone')
  }, intervalMs)
  timer.unref()
  if (watchStdin) {
    process.stdin.on('end', () => gone('stdin closed'))
    process.stdin.on('close', () => gone('stdin closed'))
  }
  if (watchIpc) process.on('disconnect', () => gone('ipc channel closed'))
  return { parent, stop: () => clearInterval(timer) }
}

module.exports = { install, parentAlive }
