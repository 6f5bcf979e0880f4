package terminal

import (
	"strings"
	"sync"
	"testing"
)

// waitingSink records the waits announced to it besides the stream.
type waitingSink struct {
	*recordingSink
	mu    sync.Mutex
	waits []announcedWait
}

type announcedWait struct {
	id     string
	secret bool
	prompt string
}

func (s *waitingSink) Waiting(id string, secret bool, prompt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, announcedWait{id, secret, prompt})
}

func (s *waitingSink) announced() []announcedWait {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]announcedWait(nil), s.waits...)
}

// TestAnnounceWait: a task waiting for input is announced to a WaitSink
// once per wait, whatever the number of polls; a password asked with echo
// off is announced as a secret; other diagnoses are not announced.
func TestAnnounceWait(t *testing.T) {
	sink := &waitingSink{recordingSink: newRecordingSink()}
	tb := newTable(t, Options{Sink: sink})
	task := start(t, tb, StartOptions{Command: `read -r -p "name? " a; read -r -s -p "Password: " b; echo done`, Mode: ModePTY})
	var d Diagnosis
	// The process may wait in its read before its prompt reaches the
	// task's output: wait for both, as a result is read after both.
	eventually(t, "waiting_for_input after the prompt", func() bool {
		d = task.Diagnose()
		return d.Reason == ReasonWaitingForInput && strings.HasSuffix(task.tail(64), "name? ")
	})
	task.AnnounceWait(d)
	task.AnnounceWait(task.Diagnose())
	if got := sink.announced(); len(got) != 1 || got[0] != (announcedWait{task.Info().ID, false, "name?"}) {
		t.Fatalf("after two polls of one wait, announced %+v, want one wait for input after %q", got, "name?")
	}
	if err := task.Send("x", []string{"enter"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "password_prompt after the prompt", func() bool {
		d = task.Diagnose()
		return d.Reason == ReasonPasswordPrompt && strings.HasSuffix(task.tail(64), "Password: ")
	})
	task.AnnounceWait(d)
	if got := sink.announced(); len(got) != 2 || got[1] != (announcedWait{task.Info().ID, true, "Password:"}) {
		t.Fatalf("after the password prompt, announced %+v, want a secret asked with %q", got, "Password:")
	}
	task.AnnounceWait(Diagnosis{Reason: ReasonLongRunning})
	if err := task.Send("y", []string{"enter"}); err != nil {
		t.Fatal(err)
	}
	waitDone(t, task)
	task.AnnounceWait(task.Diagnose())
	if got := sink.announced(); len(got) != 2 {
		t.Errorf("announced %+v, want nothing more for a long-running or finished task", got)
	}
}
