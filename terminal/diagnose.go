package terminal

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Diagnosis reasons.
const (
	ReasonExited          = "exited"
	ReasonYieldTimeout    = "yield_timeout"
	ReasonWaitingForInput = "waiting_for_input"
	ReasonPasswordPrompt  = "password_prompt"
	ReasonNetworkBlocked  = "network_blocked"
	ReasonLongRunning     = "long_running"
)

// Diagnosis says why a task is in its state and what the model should do
// next.
type Diagnosis struct {
	Reason string `json:"reason"`
	Hint   string `json:"hint"`
}

var (
	secretPrompt = regexp.MustCompile(`(?i)(password|passphrase|passcode|pin|token|secret|verification code|one-time code|otp)[^\n]{0,40}:\s*$|\[sudo\] password for`)
	inputPrompt  = regexp.MustCompile(`(?i)(\[y/n\]|\[y/n/[a-z?]+\]|\(y/n\)|\(yes/no(/\[fingerprint\])?\)|\[yes/no\]|press (any key|enter|return)|--more--|\(end\)|continue\?\s*$|proceed\?\s*$|overwrite\b.*\?\s*$|\?\s*$|:\s*$|>\s*$)`)
	networkFail  = regexp.MustCompile(`(?i)(could not resolve host|temporary failure in name resolution|name or service not known|getaddrinfo|enotfound|eai_again|network is unreachable|no route to host|connection timed out|connection refused|econnrefused|econnreset|etimedout|operation timed out|tls handshake timeout|i/o timeout|dial tcp|failed to connect to|unable to connect|could not connect to|proxy error|ssl_connect|certificate verify failed)`)
)

// Diagnose inspects a task. For a running task it looks at the terminal
// first (echo off in canonical mode means a secret is asked; the foreground
// process asleep in a read of the terminal or input pipe means input is
// awaited), then at the last line of output, then at network failures in the
// recent output, and finally at the command's classification.
func (t *Task) Diagnose() Diagnosis {
	id := t.info.ID
	st := t.Status()
	if st.State == StateExited {
		how := fmt.Sprintf("exit code %d", st.ExitCode)
		if st.Signal != "" {
			how = "signal " + st.Signal
		}
		if st.Canceled {
			how += " after shell_cancel"
		}
		if st.ExitCode != 0 && !st.Canceled {
			if m := networkFail.FindString(t.tail(4 << 10)); m != "" {
				return Diagnosis{ReasonNetworkBlocked, fmt.Sprintf("The command failed (%s) with a network error (%q); this machine may have no network access. Do not retry in a loop: ask the user, or find a way that works offline.", how, m)}
			}
		}
		switch n := len(st.Survivors); n {
		case 0:
			return Diagnosis{ReasonExited, fmt.Sprintf("The command finished (%s); its output is complete.", how)}
		case 1:
			return Diagnosis{ReasonExited, fmt.Sprintf("The command finished (%s); 1 process it started still runs and may print more: read it with shell_wait {task_id: %q}, stop it with shell_cancel.", how, id)}
		default:
			return Diagnosis{ReasonExited, fmt.Sprintf("The command finished (%s); %d processes it started still run and may print more: read it with shell_wait {task_id: %q}, stop them with shell_cancel.", how, n, id)}
		}
	}
	tail := t.tail(4 << 10)
	last := lastLine(tail)
	quoted := ""
	if last != "" {
		quoted = fmt.Sprintf(" (last line: %q)", shorten(last, 120))
	}
	secretHint := fmt.Sprintf("The program asks for a secret with echo off%s. Ask the user for it and never guess it; then send it with write_stdin {task_id: %q, input: \"…\", keys: [\"enter\"]}, or stop with shell_cancel.", quoted, id)
	inputHint := fmt.Sprintf("The program waits for input%s. Answer with write_stdin {task_id: %q, input: \"…\", keys: [\"enter\"]} (or keys such as \"q\", \"ctrl-c\"); ask the user when the answer is theirs to give, or stop with shell_cancel.", quoted, id)

	var st2 inputState
	if t.master != nil {
		echo, canon, ok := ttyModes(t.master)
		if ok && !echo && canon {
			return Diagnosis{ReasonPasswordPrompt, secretHint}
		}
		if pg := foregroundGroup(t.master); pg > 0 {
			st2 = inputWait(t.withoutSupervisor(groupMembers(pg)), t.inputID, "/dev/tty")
			// In raw mode (a REPL's line editor, a pager, a full-screen
			// program) a wait in poll/select is a wait for a key.
			if st2.reading || (ok && !canon && st2.polling) {
				if secretPrompt.MatchString(last) {
					return Diagnosis{ReasonPasswordPrompt, secretHint}
				}
				return Diagnosis{ReasonWaitingForInput, inputHint}
			}
		}
	} else if t.inputID != "" && t.stdinOpen() {
		var pids []int
		for _, p := range t.tree() {
			pids = append(pids, p.pid)
		}
		st2 = inputWait(t.withoutSupervisor(pids), t.inputID)
		if st2.reading {
			if secretPrompt.MatchString(last) {
				return Diagnosis{ReasonPasswordPrompt, secretHint}
			}
			return Diagnosis{ReasonWaitingForInput, inputHint}
		}
	}
	// The text: trusted fully where /proc could not tell, and otherwise only
	// while some process waits in poll/select (it may be waiting for input
	// through an event loop).
	textMayTell := !st2.checked || st2.polling
	if last != "" && !strings.HasSuffix(tail, "\n") {
		if secretPrompt.MatchString(last) && textMayTell {
			return Diagnosis{ReasonPasswordPrompt, secretHint}
		}
		if inputPrompt.MatchString(last) && textMayTell && !t.kind.LongRunning {
			return Diagnosis{ReasonWaitingForInput, inputHint}
		}
	}
	if last != "" && strongPrompt.MatchString(last) && textMayTell {
		return Diagnosis{ReasonWaitingForInput, inputHint}
	}
	if m := networkFail.FindString(tail); m != "" {
		return Diagnosis{ReasonNetworkBlocked, fmt.Sprintf("The output shows a network failure (%q); this machine may have no network access. Do not retry in a loop: stop it with shell_cancel {task_id: %q} and ask the user, or work offline.", m, id)}
	}
	elapsed := time.Duration(st.ElapsedMs) * time.Millisecond
	if t.kind.LongRunning {
		return Diagnosis{ReasonLongRunning, fmt.Sprintf("This looks like a dev server or watcher; it keeps running as %s. Read its new output with shell_wait {task_id: %q, timeout_ms: 2000}, and stop it with shell_cancel when done.", id, id)}
	}
	return Diagnosis{ReasonYieldTimeout, fmt.Sprintf("Still running after %s with no sign of a prompt. Wait for it with shell_wait {task_id: %q, timeout_ms: 30000}, or stop it with shell_cancel.", elapsed.Round(100*time.Millisecond), id)}
}

// strongPrompt matches prompts that are unmistakable even at the end of a
// terminated line.
var strongPrompt = regexp.MustCompile(`(?i)(\[y/n\]|\(y/n\)|\(yes/no|press (any key|enter|return)|--more--|\(end\))`)

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

// inputState is what the processes of a task are asleep in.
type inputState struct {
	checked bool // /proc answered for at least one process
	reading bool // a read of the task's terminal or input pipe
	polling bool // poll, select or epoll
}

func groupMembers(pgrp int) []int {
	var out []int
	for _, p := range allProcs() {
		if p.pgrp == pgrp && p.state != 'Z' {
			out = append(out, p.pid)
		}
	}
	return out
}

// withoutSupervisor drops the task supervisor, whose own waits say nothing
// about input.
func (t *Task) withoutSupervisor(pids []int) []int {
	if !t.supervised {
		return pids
	}
	out := pids[:0:0]
	for _, p := range pids {
		if p != t.pid {
			out = append(out, p)
		}
	}
	return out
}

func (t *Task) stdinOpen() bool {
	t.inMu.Lock()
	defer t.inMu.Unlock()
	return t.stdin != nil
}
