//go:build unix

package mcphost

import (
	"errors"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/internal/syncbuf"
	"github.com/whale-ls/whale-ls/mcphost/mcptest"
)

// TestCloseEndsALingeringServer starts a server that ignores the end of its
// input and SIGTERM and has started a child of its own: Close must leave
// neither running, and return within a second.
func TestCloseEndsALingeringServer(t *testing.T) {
	var logs syncbuf.Buffer
	h := New(map[string]ServerConfig{"stuck": {Command: mcptest.Server(t), Args: []string{mcptest.LingerArg}}}, Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if _, err := h.Tools(ctxT(t), "stuck"); err != nil {
		h.Close()
		t.Fatal(err)
	}
	var pids []int
	deadline := time.Now().Add(10 * time.Second)
	for len(pids) < 2 && time.Now().Before(deadline) {
		pids = pids[:0]
		for _, m := range regexp.MustCompile(`(?:ready, pid|child pid) (\d+)`).FindAllStringSubmatch(logs.String(), -1) {
			n, _ := strconv.Atoi(m[1])
			pids = append(pids, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(pids) < 2 {
		h.Close()
		t.Fatalf("the server's and its child's pids were not logged:\n%s", logs.String())
	}
	start := time.Now()
	h.Close()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Close took %v, want well under the second whale has to exit", took)
	}
	for _, pid := range pids {
		if !gone(pid, 2*time.Second) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d outlived Close", pid)
		}
	}
}

// gone waits up to d for pid to be gone (or a zombie nobody reaped yet).
func gone(pid int, d time.Duration) bool {
	for end := time.Now().Add(d); ; {
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return true
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(b), ')'); i > 0 && strings.HasPrefix(strings.TrimSpace(string(b[i+1:])), "Z") {
				return true
			}
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
