package terminal

// This file is the model's view of a task's output: waiting for it and the
// cursor of what was read.

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Wait waits until the task finished, d passed, or ctx ended, and reports
// whether it finished. Time spent while a Gate holds the task does not count
// against d.
func (t *Task) Wait(ctx context.Context, d time.Duration) bool {
	remaining := d
	for {
		t.mu.Lock()
		held := t.holds > 0
		holdChanged := t.holdChanged
		t.mu.Unlock()
		if held {
			select {
			case <-t.exited:
				return true
			case <-ctx.Done():
				return !t.Running()
			case <-holdChanged:
				continue
			}
		}
		if remaining <= 0 {
			return !t.Running()
		}
		begin := time.Now()
		timer := time.NewTimer(remaining)
		select {
		case <-t.exited:
			timer.Stop()
			return true
		case <-ctx.Done():
			timer.Stop()
			return !t.Running()
		case <-timer.C:
			return !t.Running()
		case <-holdChanged:
			timer.Stop()
			remaining -= time.Since(begin)
		}
	}
}

// WaitQuiet waits, up to d, until the task finished or output arrived and
// then stayed quiet for quiet. It is what follows a write to the task.
func (t *Task) WaitQuiet(ctx context.Context, d, quiet time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	seen := false
	for {
		t.mu.Lock()
		changed := t.changed
		t.mu.Unlock()
		q := time.NewTimer(quiet)
		select {
		case <-t.exited:
			q.Stop()
			return
		case <-ctx.Done():
			q.Stop()
			return
		case <-deadline.C:
			q.Stop()
			return
		case <-changed:
			q.Stop()
			seen = true
		case <-q.C:
			if seen {
				return
			}
		}
	}
}

// ReadOutput returns the model text produced since the model last read this
// task, compacted to its head and tail when long, with a marker when the
// buffer limit dropped older output.
func (t *Task) ReadOutput() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	raw, lost := t.filter.out.since(t.cursor)
	t.cursor = t.filter.out.end
	part := t.filter.partial()
	newPartial := len(part) > 0 && (len(raw) > 0 || t.filter.lineGen != t.shownGen || len(part) != t.shownLen)
	t.shownGen, t.shownLen = t.filter.lineGen, len(part)
	t.lastRead = time.Now()
	if t.done {
		t.readAfter = true
	}
	var b strings.Builder
	if lost > 0 {
		fmt.Fprintf(&b, "[%d bytes of earlier output were dropped: the task keeps only its last %d bytes]\n", lost, t.filter.out.limit)
	}
	b.WriteString(validText(raw))
	if newPartial {
		b.WriteString(validText(part))
	}
	return compactText(b.String(), modelHead, modelTail)
}

// tail returns about the last n bytes of model text, the unterminated line
// included.
func (t *Task) tail(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	raw, _ := t.filter.out.since(t.filter.out.end - int64(n))
	return validText(raw) + validText(t.filter.partial())
}
