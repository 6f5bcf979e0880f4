//go:build !linux

package probe

import "runtime"

func notLinux(what string) Result {
	return absent("%s is probed on Linux only; this is %s", what, runtime.GOOS)
}

// Landlock is absent outside Linux.
func Landlock(min int) Result { return notLinux("Landlock") }

// NetNamespace is absent outside Linux.
func NetNamespace() Result { return notLinux("a network namespace") }

// PTY is probed on Linux only.
func PTY() Result { return notLinux("a pseudo-terminal") }

// Int80 is absent outside Linux.
func Int80(dir string) Result { return notLinux("int 0x80") }
