package terminal

// This file ends a task: cancel, kill, and releasing what it holds.

import (
	"syscall"
	"time"
)

// CancelReport says how a task was stopped.
type CancelReport struct {
	// AlreadyExited is true when nothing was running any more.
	AlreadyExited bool `json:"already_exited,omitempty"`
	// Took is the last signal that was needed: SIGINT, SIGTERM or SIGKILL.
	Took string `json:"took,omitempty"`
	// Ended lists, when the task's shell had already exited, the processes
	// it had left running that this cancel ended.
	Ended []Process `json:"ended,omitempty"`
	// Unkillable counts processes still alive after SIGKILL (normally 0).
	Unkillable int `json:"unkillable"`
}

// Grace periods of Cancel after SIGINT, after SIGTERM and after SIGKILL.
var cancelGrace = [3]time.Duration{2 * time.Second, 2 * time.Second, 5 * time.Second}

// Cancel sends SIGINT, then SIGTERM, then SIGKILL to every process group
// and process of the task's tree, waiting a short grace period after each
// until no process of the tree is left, and reports what it took. The tree
// is every process that descends from the task's first process by the PPid
// links in /proc, whatever its session or group, plus the members of the
// task's session. For a task whose shell had exited it ends the survivors
// (and reports them in Ended).
func (t *Task) Cancel() CancelReport {
	if !t.aliveTree() {
		return CancelReport{AlreadyExited: true}
	}
	t.markCanceled()
	rep := CancelReport{Ended: t.Survivors()}
	for i, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		rep.Took = signalName(sig)
		t.signalTree(sig)
		deadline := time.Now().Add(cancelGrace[i])
		for time.Now().Before(deadline) {
			if !t.aliveTree() {
				reapOrphans(map[int]bool{t.pid: true})
				return rep
			}
			if sig == syscall.SIGKILL {
				t.signalTree(sig)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	rep.Unkillable = len(t.tree())
	return rep
}

// aliveTree reports whether the shell or any process of its tree is alive.
func (t *Task) aliveTree() bool {
	select {
	case <-t.procDone:
		return len(t.tree()) > 0
	default:
		return true
	}
}

// leaderGone reports whether the task's first process has been reaped.
func (t *Task) leaderGone() bool {
	select {
	case <-t.procDone:
		return true
	default:
		return false
	}
}

// tree lists the live processes of the task.
func (t *Task) tree() []procInfo { return treeOf(t.pid, t.leaderGone()) }

// signalTree signals every process of the task.
func (t *Task) signalTree(sig syscall.Signal) int { return signalTree(t.pid, t.leaderGone(), sig) }

func (t *Task) markCanceled() {
	t.mu.Lock()
	if !t.done {
		t.canceled = true
	}
	t.mu.Unlock()
}

// kill ends the task's tree at once (SIGKILL).
func (t *Task) kill() {
	for i := 0; i < 100 && t.aliveTree(); i++ {
		t.signalTree(syscall.SIGKILL)
		time.Sleep(10 * time.Millisecond)
	}
}

func (t *Task) closeFiles() {
	t.mu.Lock()
	if t.filesClosed {
		t.mu.Unlock()
		return
	}
	t.filesClosed = true
	t.mu.Unlock()
	_ = t.out.Close()
	t.inMu.Lock()
	if t.stdin != nil {
		_ = t.stdin.Close()
		t.stdin = nil
	}
	t.inMu.Unlock()
}

// releasable reports whether an exited task may be released: its output
// was read long enough ago (or never, for much longer), and no process it
// started still runs — survivors keep the task listed and cancellable.
func (t *Task) releasable(now time.Time, after time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.done {
		return false
	}
	old := now.Sub(t.endedAt) >= 6*after
	if t.readAfter {
		old = now.Sub(t.lastRead) >= after
	}
	if !old || (t.shellStatus != nil && !t.leaderGone()) {
		return false // a reporting supervisor lives while survivors do
	}
	return len(t.survivorsLocked()) == 0
}

// release ends what is left of an exited task: a supervisor on its way out,
// zombies, and its output file.
func (t *Task) release() {
	t.kill()
	reapOrphans(map[int]bool{t.pid: true})
	t.closeFiles()
}
