// Package probe finds out whether this machine has a property a test relies
// on — the i386 syscall gate, Landlock, namespaces, seccomp user
// notification, a PTY, root — the way a user or an attacker
// would meet it: by trying it on a harmless target, independently of
// whale's own code. A test skips with the Result's reason when the property
// is absent (the attack it guards against is then impossible too) and must
// hold where it is present: machines of one kind differ, and a passing run
// on one says little about the next.
//
// Only tests import this package; nothing of it is in the whale-ls binary.
package probe

import (
	"fmt"
	"os"
	"strings"
)

// Result says whether a property is present, and why it is taken to be
// absent (or how it was seen to be present).
type Result struct {
	Present bool
	Reason  string
}

func present(format string, a ...any) Result {
	return Result{Present: true, Reason: fmt.Sprintf(format, a...)}
}

func absent(format string, a ...any) Result {
	return Result{Reason: fmt.Sprintf(format, a...)}
}

// Skipper is the part of testing.TB that Need uses.
type Skipper interface {
	Helper()
	Skipf(format string, args ...any)
}

// Need skips t with the probe's reason when r's property is absent.
func Need(t Skipper, r Result) {
	t.Helper()
	if !r.Present {
		t.Skipf("skipped: %s", r.Reason)
	}
}

// Root reports whether this process runs as root.
func Root() Result {
	if os.Geteuid() == 0 {
		return present("running as root")
	}
	return absent("not running as root (uid %d); run the tests as root to include it", os.Geteuid())
}

// SeccompUserNotif reports whether the kernel offers seccomp's user
// notification (SECCOMP_RET_USER_NOTIF) to this process: the kernel lists
// the action, and no seccomp filter is already installed above us (a
// second listener in one process tree fails with EBUSY; a filter we cannot
// see into may hold one).
func SeccompUserNotif() Result {
	return seccompUserNotif("/proc/sys/kernel/seccomp/actions_avail", "/proc/self/status")
}

func seccompUserNotif(actionsPath, statusPath string) Result {
	b, err := os.ReadFile(actionsPath)
	if err != nil {
		return absent("cannot read %s: %v (Linux with seccomp is needed)", actionsPath, err)
	}
	if !strings.Contains(" "+strings.TrimSpace(string(b))+" ", " user_notif ") {
		return absent("the kernel offers no seccomp user notification (%s: %s)", actionsPath, strings.TrimSpace(string(b)))
	}
	status, err := os.ReadFile(statusPath)
	if err != nil {
		return absent("cannot read %s: %v", statusPath, err)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "Seccomp:"); ok && strings.TrimSpace(v) != "0" {
			return absent("this process already runs under a seccomp filter (Seccomp: %s), which may hold the one listener a process tree can have", strings.TrimSpace(v))
		}
	}
	return present("the kernel offers seccomp user notification")
}
