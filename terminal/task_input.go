package terminal

// This file is a task's input: stdin, keys, resizing, notes and holds.

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// ErrStdinClosed is returned when writing to a pipe task whose input was
// closed with ctrl-d.
var ErrStdinClosed = errors.New("the task's input was closed with ctrl-d")

// WriteRaw writes bytes to the task's terminal or input pipe unchanged, as
// typed in the editor.
func (t *Task) WriteRaw(p []byte) error {
	if !t.Running() {
		return fmt.Errorf("%w: %s has exited", ErrNotRunning, t.info.ID)
	}
	t.inMu.Lock()
	defer t.inMu.Unlock()
	f := t.master
	if f == nil {
		f = t.stdin
	}
	if f == nil {
		return ErrStdinClosed
	}
	_ = f.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := f.Write(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("the task does not read its input (write timed out): %w", err)
	}
	return err
}

// Send writes text and named keys (see KeyNames) to the task. In pipe mode
// "enter" is a newline, "ctrl-c" sends SIGINT to the task's process group and
// "ctrl-d" closes its input; in PTY mode keys are the bytes a terminal sends.
func (t *Task) Send(input string, keys []string) error {
	var buf []byte
	buf = append(buf, input...)
	for _, k := range keys {
		if t.master == nil {
			switch normKey(k) {
			case "ctrl-c":
				if err := t.flush(&buf); err != nil {
					return err
				}
				interruptGroup(t.pid)
				continue
			case "ctrl-d":
				if err := t.flush(&buf); err != nil {
					return err
				}
				t.inMu.Lock()
				if t.stdin != nil {
					_ = t.stdin.Close()
					t.stdin = nil
				}
				t.inMu.Unlock()
				continue
			}
		}
		seq, err := keyBytes(k, t.master != nil)
		if err != nil {
			return err
		}
		buf = append(buf, seq...)
	}
	return t.flush(&buf)
}

func (t *Task) flush(buf *[]byte) error {
	if len(*buf) == 0 {
		return nil
	}
	err := t.WriteRaw(*buf)
	*buf = (*buf)[:0]
	return err
}

// Resize sets the PTY size; pipe tasks ignore it.
func (t *Task) Resize(cols, rows int) error {
	if t.master == nil || cols <= 0 || rows <= 0 {
		return nil
	}
	t.mu.Lock()
	t.info.Cols, t.info.Rows = cols, rows
	t.mu.Unlock()
	return t.resizePTY(cols, rows)
}

// Note appends a line to the task's output for the model and the editor.
func (t *Task) Note(line string) {
	line = strings.TrimRight(line, "\r\n") + "\r\n"
	t.mu.Lock()
	t.filter.write([]byte(line))
	close(t.changed)
	t.changed = make(chan struct{})
	st := t.stream
	if st == nil {
		// Before the stream exists (a Gate noting while it starts the
		// process): keep the line for the editor until it does.
		t.early = append(t.early, line...)
	}
	t.mu.Unlock()
	if st != nil {
		st.write([]byte(line))
	}
}

// Hold pauses the foreground yield timer until release is called.
func (t *Task) Hold() (release func()) {
	t.mu.Lock()
	t.holds++
	close(t.holdChanged)
	t.holdChanged = make(chan struct{})
	t.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			t.holds--
			close(t.holdChanged)
			t.holdChanged = make(chan struct{})
			t.mu.Unlock()
		})
	}
}
