package terminal

import (
	"fmt"
	"sync"
	"time"
	"unicode/utf8"
)

// Sink receives every task's terminal stream, for an editor to show as a
// terminal. The Table calls Open once per task before any Output, Output with
// strictly increasing seq (starting at 1) and Exit last; the calls for one
// task come from one goroutine, in that order. Calls for different tasks may
// run concurrently. A Sink may be slow: the task never waits for it, and what
// it cannot keep up with is skipped with a marker in the data.
type Sink interface {
	// Open announces a new task's terminal.
	Open(info TaskInfo)
	// Output delivers the task's raw output as UTF-8 text (escape sequences
	// kept, invalid bytes replaced by U+FFFD), never split inside a character.
	// Chunks are coalesced over about 10 ms or 32 KiB.
	Output(taskID string, seq int64, data string)
	// Exit says the task's process exited, with its exit code (128+n when a
	// signal ended it) and the signal's name ("" when it exited normally).
	Exit(taskID string, exitCode int, signal string)
}

// Stream tuning: coalescing window, largest chunk, and how much a slow Sink
// may fall behind before output is skipped.
const (
	streamDelay   = 10 * time.Millisecond
	streamChunk   = 32 << 10
	streamBacklog = 1 << 20
)

// stream moves one task's output to a Sink without ever blocking the reader.
type stream struct {
	sink   Sink
	info   TaskInfo
	notify chan struct{} // something is pending
	full   chan struct{} // a whole chunk is pending
	exited chan struct{}

	// writeMu serialises writers (the task's reader and Task.Note).
	writeMu sync.Mutex
	carry   []byte // incomplete character at the end of the last write

	mu       sync.Mutex
	pending  []byte
	head     int   // pending[head:] is not yet delivered
	skipped  int64 // bytes dropped since the last delivery
	finished bool
	exitCode int
	signal   string
}

func newStream(sink Sink, info TaskInfo) *stream {
	s := &stream{
		sink:   sink,
		info:   info,
		notify: make(chan struct{}, 1),
		full:   make(chan struct{}, 1),
		exited: make(chan struct{}),
	}
	go s.pump()
	return s
}

// write queues raw output.
func (s *stream) write(p []byte) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if len(s.carry) > 0 {
		p = append(s.carry, p...)
		s.carry = nil
	}
	n := completePrefix(p)
	if n < len(p) {
		s.carry = append([]byte(nil), p[n:]...)
		p = p[:n]
	}
	if len(p) == 0 {
		return
	}
	s.mu.Lock()
	if s.finished {
		s.mu.Unlock()
		return
	}
	s.enqueueLocked(p)
	size := len(s.pending) - s.head
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
	if size >= streamChunk {
		select {
		case s.full <- struct{}{}:
		default:
		}
	}
}

func (s *stream) enqueueLocked(p []byte) {
	if len(p) > streamBacklog {
		cut := len(p) - streamBacklog
		for cut < len(p) && !utf8.RuneStart(p[cut]) {
			cut++
		}
		s.skipped += int64(cut)
		p = p[cut:]
	}
	if over := len(s.pending) - s.head + len(p) - streamBacklog; over > 0 {
		// Drop the oldest undelivered bytes, at least half the backlog at a
		// time so that a Sink that stays slow does not cost a copy per read.
		drop := max(over, (len(s.pending)-s.head)/2)
		cut := min(s.head+drop, len(s.pending))
		for cut < len(s.pending) && !utf8.RuneStart(s.pending[cut]) {
			cut++
		}
		s.skipped += int64(cut - s.head)
		s.head = cut
	}
	if s.head > 0 && len(s.pending)+len(p) > cap(s.pending) {
		n := copy(s.pending, s.pending[s.head:])
		s.pending = s.pending[:n]
		s.head = 0
	}
	s.pending = append(s.pending, p...)
}

// finish flushes what is left and sends Exit after the pending output.
func (s *stream) finish(exitCode int, signal string) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	if s.finished {
		s.mu.Unlock()
		return
	}
	if len(s.carry) > 0 {
		s.enqueueLocked(s.carry)
		s.carry = nil
	}
	s.finished = true
	s.exitCode, s.signal = exitCode, signal
	s.mu.Unlock()
	close(s.exited)
}

// take removes up to one chunk of pending output, marker first.
func (s *stream) take() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var marker string
	if s.skipped > 0 {
		marker = fmt.Sprintf("\r\n[whale: %d bytes of output skipped because the terminal fell behind]\r\n", s.skipped)
		s.skipped = 0
	}
	avail := s.pending[s.head:]
	if len(avail) == 0 {
		s.pending, s.head = s.pending[:0], 0
		return marker, marker != ""
	}
	n := min(len(avail), streamChunk)
	for n < len(avail) && n > 0 && !utf8.RuneStart(avail[n]) {
		n--
	}
	if n == 0 {
		n = min(len(avail), streamChunk)
	}
	data := marker + validText(avail[:n])
	s.head += n
	if s.head == len(s.pending) {
		s.pending, s.head = s.pending[:0], 0
	}
	return data, true
}

func (s *stream) pump() {
	s.sink.Open(s.info)
	var seq int64
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		done := false
		select {
		case <-s.notify:
		case <-s.exited:
			done = true
		}
		if !done {
			timer.Reset(streamDelay)
			select {
			case <-s.full:
			case <-timer.C:
			case <-s.exited:
			}
			timer.Stop()
		}
		for {
			data, ok := s.take()
			if !ok {
				break
			}
			seq++
			s.sink.Output(s.info.ID, seq, data)
		}
		select {
		case <-s.exited:
			// Output queued before finish has been taken above; take once
			// more in case finish raced with the loop.
			for {
				data, ok := s.take()
				if !ok {
					break
				}
				seq++
				s.sink.Output(s.info.ID, seq, data)
			}
			s.sink.Exit(s.info.ID, s.exitCode, s.signal)
			return
		default:
		}
	}
}

// WaitSink is a Sink that is also told when a running task waits for the
// user, so an editor can bring that task's terminal forward (a password is
// typed there, never by the model).
type WaitSink interface {
	Sink
	// Waiting says the task waits for input; secret means with echo off (a
	// password or passphrase), prompt is its last line of output.
	Waiting(taskID string, secret bool, prompt string)
}
