package execboundary

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/whale-ls/whale-ls/internal/userdir"
)

// Who decided an exec, as the audit log records it.
const (
	ByPolicy  = "policy"  // a rule, or no rule (allow)
	ByUser    = "user"    // the user answered a prompt
	BySession = "session" // an earlier "allow for this session"
	ByTimeout = "timeout" // no answer before execBoundary.approvalTimeoutMs
	ByNoOne   = "no-one"  // nobody could be asked: denied
	ByVerify  = "verify"  // the image check after the exec killed the task
	ByGone    = "gone"    // the process, or its whole task, ended before the prompt was answered; nothing ran
)

// AuditEntry is one line of the audit log.
type AuditEntry struct {
	Time      time.Time `json:"time"`
	Task      string    `json:"task"`
	Program   string    `json:"program"`
	Argv      []string  `json:"argv"`
	Cwd       string    `json:"cwd"`
	Decision  string    `json:"decision"`
	Rule      string    `json:"rule"`
	DecidedBy string    `json:"decidedBy"`
	// Shared marks an exec that did not prompt itself: it waited for the
	// prompt of an identical exec (same program file, arguments and folder)
	// of the same task, and DecidedBy is that prompt's source.
	Shared bool `json:"shared,omitempty"`
}

// AuditLog appends decisions as JSON lines to a 0600 file in a 0700 folder.
// Write errors are dropped after the first: auditing never blocks an exec.
type AuditLog struct {
	dir string

	mu     sync.Mutex
	f      *os.File
	broken bool
}

// NewAuditLog returns a log writing to dir/audit.jsonl, opened on the first
// entry. An empty dir means userdir.State().
func NewAuditLog(dir string) *AuditLog { return &AuditLog{dir: dir} }

// Path returns the log file's path ("" when no state folder is known).
func (a *AuditLog) Path() string {
	dir := a.dir
	if dir == "" {
		var err error
		if dir, err = userdir.State(); err != nil {
			return ""
		}
	}
	return dir + "/audit.jsonl"
}

// Write appends one entry. It returns the error that broke the log, once;
// later entries are dropped silently.
func (a *AuditLog) Write(e AuditEntry) error {
	if a == nil {
		return nil
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return nil
	}
	line = append(line, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.broken {
		return nil
	}
	if a.f == nil {
		dir := a.dir
		if dir == "" {
			if dir, err = userdir.State(); err != nil {
				a.broken = true
				return err
			}
		}
		f, err := userdir.OpenFile(dir, "audit.jsonl", os.O_WRONLY|os.O_APPEND|os.O_CREATE)
		if err != nil {
			a.broken = true
			return fmt.Errorf("open the audit log: %w", err)
		}
		a.f = f
	}
	if _, err := a.f.Write(line); err != nil {
		a.broken = true
		return fmt.Errorf("write the audit log: %w", err)
	}
	return nil
}

// Close closes the file.
func (a *AuditLog) Close() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f = nil
	return err
}
