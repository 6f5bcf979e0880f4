//go:build !linux

package sandbox

import (
	"fmt"
	"runtime"
	"syscall"
)

// MinABI is the oldest Landlock ABI the sandbox uses (Linux only).
const MinABI = 3

var errNotLinux = fmt.Errorf("the sandbox needs Linux Landlock, and this is %s", runtime.GOOS)

// LandlockABI reports that there is no Landlock here.
func LandlockABI() (int, error) { return 0, errNotLinux }

// Check reports that p cannot be applied here unless it confines nothing.
func Check(p Policy) error {
	if !p.Active() {
		return nil
	}
	return errNotLinux
}

// SetProcAttr does nothing: there are no network namespaces here.
func SetProcAttr(*syscall.SysProcAttr, Policy) {}

// Probe reports that there are no network namespaces here.
func Probe([]string) error { return errNotLinux }

// Apply refuses: nothing can be confined here.
func Apply(string) error { return errNotLinux }

func hostNet() uint64 { return 0 }

func hostMnt() uint64 { return 0 }

func writableWithout(string) bool { return false }
