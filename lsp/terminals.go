package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/whale-ls/whale-ls/terminal"
)

// terminalSink streams every task to the editor as whale/terminal/*
// notifications; it is installed only when the client declared
// experimental.whale.terminals.
type terminalSink struct{ s *Server }

func (t terminalSink) notify(method string, params any) {
	if err := t.s.conn.Notify(context.Background(), method, params); err != nil {
		t.s.log.Debug("terminal notification not sent", "method", method, "err", err)
	}
}

func (t terminalSink) Open(info terminal.TaskInfo) {
	t.notify(methodTerminalOpen, terminalOpenParamsOf(info))
}

func (t terminalSink) Output(taskID string, seq int64, data string) {
	t.notify(methodTerminalOutput, terminalOutputParams{TaskID: taskID, Seq: seq, Data: data})
}

func (t terminalSink) Exit(taskID string, exitCode int, signal string) {
	t.notify(methodTerminalExit, terminalExitParams{TaskID: taskID, ExitCode: exitCode, Signal: signal})
}

func (t terminalSink) Waiting(taskID string, secret bool, prompt string) {
	t.notify(methodTerminalWaiting, terminalWaitingParams{TaskID: taskID, Secret: secret, Prompt: prompt})
}

// terminalRequest answers the editor's whale/terminal/* requests.
func (s *Server) terminalRequest(method string, raw json.RawMessage) (any, error) {
	s.mu.Lock()
	sess := s.session
	s.mu.Unlock()
	if sess == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "shell tasks are not available in this session")
	}
	table := sess.Terminals
	var p terminalRequestParams
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s params: %v", method, err))
		}
	}
	var err error
	switch method {
	case methodTerminalList:
		return terminalListResultOf(table.List()), nil
	case methodTerminalInput:
		err = s.inputs.enqueue(table, p.TaskID, p.Data)
	case methodTerminalResize:
		if p.Cols <= 0 || p.Rows <= 0 {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "resize needs positive cols and rows")
		}
		err = table.Resize(p.TaskID, p.Cols, p.Rows)
	case methodTerminalCancel:
		// Also ends what a finished task left running (ended: [{pid,
		// command}]).
		var rep terminal.CancelReport
		rep, err = table.Cancel(p.TaskID)
		if err == nil {
			return terminalCancelResultOf(rep), nil
		}
	default:
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, fmt.Sprintf("method %q is not supported by whale-ls", method))
	}
	if err != nil {
		code := jsonrpc2.InternalError
		if errors.Is(err, terminal.ErrNotFound) || errors.Is(err, terminal.ErrNotRunning) || errors.Is(err, terminal.ErrStdinClosed) {
			code = jsonrpc2.InvalidParams
		}
		return nil, jsonrpc2.NewError(code, err.Error())
	}
	return nil, nil
}

// inputQueues keeps what the user types in an editor terminal in order per
// task. whale/terminal/input is handled on the read loop, in wire order, and
// only enqueues; one goroutine per task writes, so a process that does not
// read its input never holds back the connection.
type inputQueues struct {
	mu sync.Mutex
	q  map[string]chan string
}

// inputQueueLen bounds the keystrokes waiting for one task.
const inputQueueLen = 1024

func (iq *inputQueues) enqueue(table *terminal.Table, id, data string) error {
	if _, err := table.Get(id); err != nil {
		return err
	}
	iq.mu.Lock()
	defer iq.mu.Unlock()
	if iq.q == nil {
		iq.q = map[string]chan string{}
	}
	ch := iq.q[id]
	if ch == nil {
		ch = make(chan string, inputQueueLen)
		iq.q[id] = ch
		go iq.drain(table, id, ch)
	}
	select {
	case ch <- data:
		return nil
	default:
		return fmt.Errorf("task %s is not reading its input (%d writes waiting); try again later", id, inputQueueLen)
	}
}

// drain writes a task's input in order; it ends when the task is gone or
// after a minute without input.
func (iq *inputQueues) drain(table *terminal.Table, id string, ch chan string) {
	idle := time.NewTimer(time.Minute)
	defer idle.Stop()
	for {
		select {
		case data := <-ch:
			if err := table.Input(id, data); err != nil && (errors.Is(err, terminal.ErrNotFound) || errors.Is(err, terminal.ErrNotRunning)) {
				iq.remove(id, ch)
				return
			}
			idle.Reset(time.Minute)
		case <-idle.C:
			iq.mu.Lock()
			if len(ch) == 0 {
				delete(iq.q, id)
				iq.mu.Unlock()
				return
			}
			iq.mu.Unlock()
			idle.Reset(time.Minute)
		}
	}
}

func (iq *inputQueues) remove(id string, ch chan string) {
	iq.mu.Lock()
	defer iq.mu.Unlock()
	if iq.q[id] == ch {
		delete(iq.q, id)
	}
}
