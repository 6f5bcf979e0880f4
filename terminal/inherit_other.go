//go:build unix && !linux

package terminal

import "errors"

func closeRangeCloexec() error { return errors.ErrUnsupported }
