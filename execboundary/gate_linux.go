//go:build linux

package execboundary

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// probeGate runs the helper once with --probe to learn whether the filter
// can be installed here.
func probeGate(helper []string) error {
	if len(execCalls) == 0 {
		return errors.New("the exec gate does not know this architecture's syscalls")
	}
	if len(helper) == 0 {
		return errors.New("cannot find the whale-ls executable to run the exec gate")
	}
	out, err := exec.Command(helper[0], append(append([]string(nil), helper[1:]...), "--probe")...).Output()
	if err != nil {
		if reason := strings.TrimSpace(string(out)); reason != "" {
			return errors.New(reason)
		}
		return fmt.Errorf("the exec gate helper failed: %w", err)
	}
	return nil
}

// handshakeTimeout bounds the wait for the helper's listener.
const handshakeTimeout = 15 * time.Second

// Start starts cmd behind the gate: it runs the helper in front of cmd's
// program, receives the listener, and answers every exec of the task's
// process tree until the last process of the tree is gone. Where the helper
// cannot install the filter, mode enforce returns an error (nothing runs)
// and best-effort runs the command unchecked, noting so in the task's
// output. Mode off starts cmd directly.
func (g *Gate) Start(cmd *exec.Cmd, task Task) (stop func(), err error) {
	mode := g.Mode()
	spec := confinementOf(task)
	if mode == ModeOff {
		if spec == "" {
			return nil, cmd.Start()
		}
		return nil, g.startConfined(cmd, spec)
	}
	unchecked := func(reason string) (func(), error) {
		if mode == ModeBestEffort {
			hint := UncheckedHint(reason)
			task.Note("whale: " + hint)
			notify(task, Event{Kind: EventUnchecked, Text: hint})
			return nil, nil
		}
		return nil, errors.New(refusal(reason))
	}
	if len(g.helper) == 0 || len(execCalls) == 0 {
		reason := "cannot find the whale-ls executable to run the exec gate"
		if len(execCalls) == 0 {
			reason = "the exec gate does not know this architecture's syscalls"
		}
		if _, err := unchecked(reason); err != nil {
			return nil, err
		}
		if spec != "" {
			return nil, g.startConfined(cmd, spec)
		}
		return nil, cmd.Start()
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("make the exec gate's socket pair: %w", err)
	}
	childEnd := os.NewFile(uintptr(pair[1]), "exec-gate")
	parentFile := os.NewFile(uintptr(pair[0]), "exec-gate")
	conn, err := net.FileConn(parentFile)
	parentFile.Close()
	if err != nil {
		childEnd.Close()
		return nil, fmt.Errorf("open the exec gate's socket: %w", err)
	}
	defer conn.Close()
	uc := conn.(*net.UnixConn)

	origPath, origArgs := cmd.Path, cmd.Args
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, childEnd)
	args := append([]string(nil), g.helper...)
	if spec != "" {
		args = append(args, "--confine", spec)
	}
	args = append(args, "--fd", strconv.Itoa(fd), "--", origPath)
	cmd.Path = g.helper[0]
	cmd.Args = append(args, origArgs...)
	err = cmd.Start()
	childEnd.Close()
	if err != nil {
		return nil, err
	}
	abort := func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	_ = uc.SetDeadline(time.Now().Add(handshakeTimeout))
	buf := make([]byte, 4096)
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
	if err != nil || n == 0 {
		abort()
		return nil, fmt.Errorf("the exec gate helper did not report (%v); check that the whale-ls executable still exists, then retry", err)
	}
	msg := string(buf[:n])
	if reason, failed := strings.CutPrefix(msg, msgConfine+" "); failed {
		abort()
		return nil, fmt.Errorf("%s, so the command was not run; ask the user to check the sandbox settings (shell.sandbox, shell.network, shell.writableRoots) or to set shell.sandbox to off", reason)
	}
	if reason, failed := strings.CutPrefix(msg, msgFailed+" "); failed {
		g.setProbe(errors.New(reason))
		if mode == ModeBestEffort {
			if _, _, err := uc.WriteMsgUnix([]byte(msgRun), nil, nil); err != nil {
				abort()
				return nil, fmt.Errorf("start the command unchecked: %w", err)
			}
			return unchecked(reason)
		}
		_, _, _ = uc.WriteMsgUnix([]byte(msgStop), nil, nil)
		abort()
		return unchecked(reason)
	}
	listener := -1
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil && len(msgs) == 1 {
		if fds, err := unix.ParseUnixRights(&msgs[0]); err == nil && len(fds) == 1 {
			listener = fds[0]
		}
	}
	if msg != msgListener || listener < 0 {
		abort()
		return nil, errors.New("the exec gate helper sent no listener; this is a bug in whale-ls, report it")
	}
	unix.CloseOnExec(listener)
	tg := &taskGate{g: g, task: task, command: commandOf(origArgs), session: cmd.Process.Pid, cache: map[string]cached{}, pending: map[string]*sharedPrompt{}, listener: listener}
	tg.ctx, tg.end = context.WithCancelCause(context.Background())
	go tg.loop()
	if _, _, err := uc.WriteMsgUnix([]byte(msgGo), nil, nil); err != nil {
		abort()
		return nil, fmt.Errorf("start the gated command: %w", err)
	}
	return tg.stop, nil
}

// startConfined starts cmd through the helper without the exec filter:
// the helper applies the confinement spec and executes cmd's program. A
// confinement that fails leaves its reason in the task's output and the
// exit code 126.
func (g *Gate) startConfined(cmd *exec.Cmd, spec string) error {
	if len(g.helper) == 0 {
		return errors.New("cannot find the whale-ls executable to apply the sandbox, so the command was not run; ask the user to set shell.sandbox to off")
	}
	args := append(append([]string(nil), g.helper...), "--confine", spec, "--no-filter", "--", cmd.Path)
	cmd.Path = g.helper[0]
	cmd.Args = append(args, cmd.Args...)
	return cmd.Start()
}

func (g *Gate) setProbe(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.probed, g.probe = true, err
}

// seccompData is struct seccomp_data.
type seccompData struct {
	nr   int32
	arch uint32
	ip   uint64
	args [6]uint64
}

// seccompNotif is struct seccomp_notif.
type seccompNotif struct {
	id    uint64
	pid   uint32
	flags uint32
	data  seccompData
}

// seccompResp is struct seccomp_notif_resp.
type seccompResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

// cached is a decision remembered for the task.
type cached struct {
	allow   bool
	verdict Verdict
	by      string // who decided, so that a repeated denial says why
	final   [2]uint64
	deps    []dependency
	// policy is the rule set the decision was made under: once the rules
	// change (Configure), the entry no longer answers.
	policy *Policy
}

// taskGate answers the execs of one task.
type taskGate struct {
	g        *Gate
	task     Task
	command  string
	session  int // the task's session id (the helper's pid)
	listener int
	// ctx ends (end) when the loop does: no process of the task is left,
	// and every pending prompt is withdrawn.
	ctx context.Context
	end context.CancelCauseFunc
	// prompts counts the goroutines that answer prompts; the loop closes
	// the listener only after the last one returned.
	prompts sync.WaitGroup

	mu    sync.Mutex
	cache map[string]cached
	// pending holds the unanswered prompts by cache key and dependencies,
	// so that an identical exec waits for the answer instead of prompting
	// again.
	pending map[string]*sharedPrompt
	done    bool
	// gens counts the execs seen per thread group, so that a check after
	// one exec ignores images loaded by later (separately checked) ones.
	gens map[int]uint64

	// Owned by the loop's goroutine: the image checks pending, and the
	// buffer the cache key is built in.
	checks []imageCheck
	keyBuf []byte
}

// sharedPrompt is one prompt and the identical execs of a task waiting for
// its answer.
type sharedPrompt struct {
	// key is the cache key the answer is remembered under; pendingKey adds
	// the decision's dependencies (an exec joins only when they match).
	key, pendingKey string
	// withdraw ends the prompt's context; errGone as the cause says that
	// nobody waits for the answer any more.
	withdraw context.CancelCauseFunc
	// waiting (guarded by taskGate.mu) are the execs the answer is for, the
	// one that prompted first. Once p has left taskGate.pending, no exec
	// joins any more.
	waiting []waitingExec
}

// waitingExec is an exec stopped until a prompt is answered.
type waitingExec struct {
	id      uint64
	ex      *execRequest
	verdict Verdict
	final   [2]uint64
	deps    []dependency
}

// watchInterval is how often a pending prompt checks that an exec still
// waits for it.
const watchInterval = 250 * time.Millisecond

// bump records a new exec of tgid and returns its generation.
func (tg *taskGate) bump(tgid int) uint64 {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if tg.gens == nil || len(tg.gens) > 4096 {
		tg.gens = map[int]uint64{}
	}
	tg.gens[tgid]++
	return tg.gens[tgid]
}

func (tg *taskGate) gen(tgid int) uint64 {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return tg.gens[tgid]
}

// stop is called when the task's first process exited. The listener stays
// open while processes of the task remain (background jobs): the loop ends
// when the kernel reports that no process uses the filter any more.
func (tg *taskGate) stop() {
	tg.mu.Lock()
	tg.done = true
	tg.mu.Unlock()
}

func (tg *taskGate) loop() {
	// One thread of its own waits in poll(2) for the next notification, or
	// until the next image check (imageCheck) is due: a notification then
	// wakes that thread and no other (the runtime's poller would wake one
	// thread for the event and more to look for work), and a check costs
	// no goroutine or timer. Checks also run early whenever a notification
	// woke the loop anyway.
	runtime.LockOSThread()
	defer func() {
		tg.end(errGone)
		tg.prompts.Wait()
		unix.Close(tg.listener)
	}()
	for {
		next := tg.runChecks(time.Now(), false)
		timeout := -1 // no check pending: wait for a notification
		if !next.IsZero() {
			timeout = max(int((time.Until(next)+time.Millisecond-1)/time.Millisecond), 0)
		}
		ready, more := tg.ready(timeout)
		if !more {
			return
		}
		if !ready {
			continue // a check is due
		}
		tg.runChecks(time.Now(), true)
		for ready {
			if !tg.receive() {
				return
			}
			if ready, more = tg.ready(0); !more {
				return
			}
		}
	}
}

// imageCheck is a check, after an allowed exec of a process that could not
// race it, that the process runs the image decided: the loop looks at the
// process's executable at growing intervals until it changed (or the
// process is gone or exec'd again), and kills the task if it is another
// file.
type imageCheck struct {
	ex          *execRequest
	tgid        int
	gen         uint64
	prev, final [2]uint64
	due         time.Time
	delay       time.Duration
	tries       int
}

// Timing of imageCheck: the first look after firstCheckDelay, each later
// one checkGrowth times later, at most maxChecks looks (about 1.4 s). Few,
// growing waits: an exec completes within a millisecond or so, and every
// wake-up costs CPU time.
const (
	firstCheckDelay = time.Millisecond
	checkGrowth     = 4
	maxChecks       = 6
	// maxEarlyLooks bounds the early looks per wake-up, so that a burst of
	// execs whose images are still loading costs no more than a few.
	maxEarlyLooks = 8
)

// runChecks runs the image checks that are due at now and returns when the
// next one is (zero: none is pending). With early, it also looks at up to
// maxEarlyLooks checks not due yet, settling those whose process runs
// another image by now or is gone, and leaving the others as they were.
// Only the loop calls it.
func (tg *taskGate) runChecks(now time.Time, early bool) time.Time {
	var next time.Time
	keep := tg.checks[:0]
	looks := 0
	for _, c := range tg.checks {
		if !now.Before(c.due) {
			if !tg.check(&c) {
				continue
			}
			c.due = now.Add(c.delay)
		} else if early && looks < maxEarlyLooks {
			looks++
			if tg.settled(&c) {
				continue
			}
		}
		keep = append(keep, c)
		if next.IsZero() || c.due.Before(next) {
			next = c.due
		}
	}
	clear(tg.checks[len(keep):])
	tg.checks = keep
	return next
}

// settled looks once before c is due: true when that settled it (the
// process runs the image decided, another one and was killed, is gone or
// exec'd again); otherwise c stays as it was.
func (tg *taskGate) settled(c *imageCheck) bool {
	now, err := exeIdentity(c.tgid)
	if err != nil || tg.gen(c.tgid) != c.gen {
		return true
	}
	if now == c.prev {
		return false
	}
	if now != c.final {
		tg.kill(c.ex, c.tgid)
	}
	return true
}

// check looks once; true when it must look again later.
func (tg *taskGate) check(c *imageCheck) bool {
	c.tries++
	now, err := exeIdentity(c.tgid)
	if err != nil || tg.gen(c.tgid) != c.gen {
		return false // gone, or exec'd again: that exec was checked on its own
	}
	if now == c.prev {
		c.delay *= checkGrowth
		return c.tries < maxChecks
	}
	if now != c.final {
		tg.kill(c.ex, c.tgid)
	}
	return false
}

// exeIdentity is identityOf(/proc/PID/exe): the device and inode of the
// image the process runs, without allocating (the gate looks at least once
// per allowed exec). A usual system call, not a raw one: it reaches the
// program's file system (see procName).
func exeIdentity(pid int) ([2]uint64, error) {
	var name procName
	call := fstatatCall
	if call < 0 || !name.setProc(pid, "exe", -1) {
		return identityOf(procPath(pid, "exe"))
	}
	var st unix.Stat_t
	for {
		_, _, errno := unix.Syscall6(uintptr(call), uintptr(atFDCWD), uintptr(unsafe.Pointer(&name[0])), uintptr(unsafe.Pointer(&st)), 0, 0, 0)
		switch errno {
		case 0:
			return [2]uint64{st.Dev, st.Ino}, nil
		case unix.EINTR:
			continue
		}
		return [2]uint64{}, errno
	}
}

// procPath is /proc/PID/NAME.
func procPath(pid int, name string) string {
	return "/proc/" + strconv.Itoa(pid) + "/" + name
}

// ready polls the listener for at most timeout ms (-1: without end):
// ready says a notification waits; more is false once no process of the
// task uses the filter any more (or the listener failed).
//
// A wait of the usual kind (a system call the runtime knows about) hands
// the loop's processor back and takes it again, and around each one the
// runtime's monitor and other threads wake up and sleep: per exec that cost
// more CPU time than deciding it. So the first rawWait of a wait, one loop
// at a time and only where the runtime has more than one processor, is a
// raw poll(2) that keeps the processor; a task that execs often is answered
// from it. After rawWait the loop waits as usual, so that an idle task
// holds no processor. A raw wait delays a stop of the world (the garbage
// collector's) by at most rawWait, or not at all where the runtime
// preempts with signals, which end the poll early.
func (tg *taskGate) ready(timeout int) (ready, more bool) {
	if timeout == 0 {
		for {
			if ready, more, ok := pollRaw(tg.listener, 0); ok {
				return ready, more
			}
		}
	}
	if runtime.GOMAXPROCS(0) > 1 && rawWaiting.CompareAndSwap(false, true) {
		short := int(rawWait / time.Millisecond)
		if timeout >= 0 {
			short = min(short, timeout)
		}
		ready, more, ok := pollRaw(tg.listener, short)
		rawWaiting.Store(false)
		if ok && (ready || !more || short == timeout) {
			return ready, more
		}
		if ok && timeout > 0 {
			timeout -= short
		}
	}
	for {
		pfd := [1]unix.PollFd{{Fd: int32(tg.listener), Events: unix.POLLIN}}
		_, err := unix.Poll(pfd[:], timeout)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, false
		}
		return pollResult(pfd[0].Revents)
	}
}

// rawWaiting is held by the one gate loop in a raw wait (see ready).
var rawWaiting atomic.Bool

// rawWait bounds a raw wait.
const rawWait = 2 * time.Millisecond

// pollRaw is poll(2) on fd for at most ms milliseconds, as a raw system
// call (see ready); ok is false when a signal ended it.
func pollRaw(fd, ms int) (ready, more, ok bool) {
	pfd := [1]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	ts := unix.NsecToTimespec(int64(ms) * int64(time.Millisecond))
	_, _, errno := unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd[0])), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	switch errno {
	case 0:
		ready, more = pollResult(pfd[0].Revents)
		return ready, more, true
	case unix.EINTR:
		return false, true, false
	}
	return false, false, true
}

// pollResult reads poll(2)'s revents for the listener.
func pollResult(revents int16) (ready, more bool) {
	if revents&unix.POLLIN != 0 {
		return true, true
	}
	return false, revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) == 0
}

// receive reads one notification and answers it; false when the listener
// failed.
func (tg *taskGate) receive() bool {
	var req seccompNotif
	if err := ioctl(tg.listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&req)); err != nil {
		return errors.Is(err, unix.EINTR) || errors.Is(err, unix.ENOENT)
	}
	tg.handle(req)
	return true
}

// ioctl is a raw system call (see procName): the listener's ioctls do not
// block (a notification is received after poll said one waits).
func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	_, _, errno := unix.RawSyscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if errno != 0 {
		return errno
	}
	return nil
}

// valid reports whether the notification still stands for a waiting
// thread (the pid was not reused).
func (tg *taskGate) valid(id uint64) bool {
	return ioctl(tg.listener, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

func (tg *taskGate) respond(id uint64, errno unix.Errno) {
	resp := seccompResp{id: id}
	if errno == 0 {
		resp.flags = unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
	} else {
		resp.error = -int32(errno)
	}
	_ = ioctl(tg.listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
}

// handle decides one notification. Policy decisions are answered at once;
// "ask" is answered from its own goroutine so that other processes of the
// task go on meanwhile.
func (tg *taskGate) handle(req seccompNotif) {
	call, ok := lookupCall(req.data.arch, uint32(req.data.nr))
	if !ok {
		tg.respond(req.id, unix.EPERM)
		return
	}
	// The path and arguments first, then the status: read first thing
	// after the wake-up, the status cost about twice as much CPU time
	// (bench/execgate's profile), and read later it is closer to the
	// answer that rests on it (threads, tracer).
	ex, err := readExec(int(req.pid), call, req.data.args)
	st := readStatus(int(req.pid))
	if st.tgid == 0 {
		st.tgid = int(req.pid)
	}
	tg.bump(st.tgid)
	if ex != nil {
		ex.st = st
	}
	if !tg.valid(req.id) {
		ex.close()
		return
	}
	if err != nil {
		ex.close()
		tg.deny(req.id, ex, Verdict{Decision: Deny, Reason: "its arguments could not be read: " + err.Error()}, ByPolicy)
		return
	}
	if ex.passthrough {
		ex.close()
		tg.allow(req.id, ex, [2]uint64{}, true)
		return
	}
	pol := tg.g.Policy()
	tg.keyBuf = ex.appendCacheKey(tg.keyBuf[:0])
	key := ""
	if len(tg.keyBuf) > 0 {
		tg.mu.Lock()
		c, hit := tg.cache[string(tg.keyBuf)] // no copy of the key for a lookup
		tg.mu.Unlock()
		if hit && c.policy == pol && unchanged(c.deps) {
			ex.close()
			tg.answerCached(req.id, ex, c)
			return
		}
		key = string(tg.keyBuf)
	}
	v, final, deps := judge(pol, ex.prog, ex.file, ex.argv, ex.cwd, 0)
	ex.close()
	ex.final = final
	switch v.Decision {
	case Allow:
		tg.remember(key, cached{allow: true, verdict: v, final: final, deps: deps, policy: pol})
		tg.audit(ex, v, "allow", ByPolicy)
		tg.allow(req.id, ex, final, true)
	case Deny:
		tg.remember(key, cached{verdict: v, by: ByPolicy, deps: deps, policy: pol})
		tg.audit(ex, v, "deny", ByPolicy)
		tg.deny(req.id, ex, v, ByPolicy)
	default:
		tg.ask(waitingExec{id: req.id, ex: ex, verdict: v, final: final, deps: deps}, key)
	}
}

func (tg *taskGate) answerCached(id uint64, ex *execRequest, c cached) {
	if c.allow {
		tg.allow(id, ex, c.final, true)
	} else {
		tg.deny(id, ex, c.verdict, c.by)
	}
}

// ask answers an exec the policy asks about. While a prompt for an
// identical exec of the task (same cache key, same dependencies) is
// pending, the exec joins it and takes its answer; otherwise it prompts,
// from its own goroutine so that the task's other processes go on
// meanwhile.
func (tg *taskGate) ask(w waitingExec, key string) {
	pendingKey := ""
	if key != "" {
		pendingKey = key + depsKey(w.deps)
	}
	tg.mu.Lock()
	if key != "" {
		// Answered since handle looked?
		if c, hit := tg.cache[key]; hit && depsKey(c.deps) == depsKey(w.deps) {
			tg.mu.Unlock()
			tg.answerCached(w.id, w.ex, c)
			return
		}
		if p := tg.pending[pendingKey]; p != nil {
			p.waiting = append(p.waiting, w)
			n := len(p.waiting)
			tg.mu.Unlock()
			if tg.g.onJoin != nil {
				tg.g.onJoin(n)
			}
			return
		}
	}
	ctx, withdraw := context.WithCancelCause(tg.ctx)
	p := &sharedPrompt{key: key, pendingKey: pendingKey, withdraw: withdraw, waiting: []waitingExec{w}}
	if pendingKey != "" {
		tg.pending[pendingKey] = p
	}
	tg.prompts.Add(1)
	tg.mu.Unlock()
	go tg.prompt(ctx, p, w)
}

// prompt asks the user about first on behalf of the execs waiting for p
// and answers each of them. The prompt is withdrawn when none of them waits
// any more (watch) or the task ends; the approval timeout applies as for
// one exec.
func (tg *taskGate) prompt(ctx context.Context, p *sharedPrompt, first waitingExec) {
	defer tg.prompts.Done()
	ex, v := first.ex, first.verdict
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		tg.watch(ctx, p)
	}()
	a := Approval{TaskID: tg.task.ID(), Command: tg.command, Program: ex.prog.Path, Argv: ex.argv, Cwd: ex.cwd, Rule: v.RuleText(), Why: v.Words(ex.argv)}
	ok, by := tg.g.ask(ctx, tg.task, a, sessionKey(ex.prog.Path, ex.argv, ex.cwd))
	p.withdraw(nil)
	<-watched

	tg.mu.Lock()
	if p.pendingKey != "" && tg.pending[p.pendingKey] == p {
		delete(tg.pending, p.pendingKey)
	}
	if by != ByGone {
		tg.rememberLocked(p.key, cached{allow: ok, verdict: v, by: by, final: first.final, deps: first.deps})
	}
	waiting := p.waiting
	tg.mu.Unlock()

	for i, w := range waiting {
		decision := "deny"
		if ok {
			decision = "allow"
		}
		tg.auditEntry(w.ex, w.verdict, decision, by, i > 0)
		if !tg.valid(w.id) {
			continue
		}
		if ok {
			tg.allow(w.id, w.ex, w.final, false)
		} else {
			tg.deny(w.id, w.ex, w.verdict, by)
		}
	}
}

// watch withdraws p once no exec waits for it any more (their processes
// died), and returns when ctx ends.
func (tg *taskGate) watch(ctx context.Context, p *sharedPrompt) {
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		tg.mu.Lock()
		alive := false
		for _, w := range p.waiting {
			if tg.valid(w.id) {
				alive = true
				break
			}
		}
		if !alive {
			// An identical exec arriving from now on prompts anew.
			if p.pendingKey != "" && tg.pending[p.pendingKey] == p {
				delete(tg.pending, p.pendingKey)
			}
		}
		tg.mu.Unlock()
		if !alive {
			p.withdraw(errGone)
			return
		}
	}
}

func (tg *taskGate) remember(key string, c cached) {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	tg.rememberLocked(key, c)
}

func (tg *taskGate) rememberLocked(key string, c cached) {
	if key == "" {
		return
	}
	if len(tg.cache) > 4096 {
		clear(tg.cache)
	}
	tg.cache[key] = c
}

func (tg *taskGate) audit(ex *execRequest, v Verdict, decision, by string) {
	tg.auditEntry(ex, v, decision, by, false)
}

// auditEntry records a decision; shared: the exec took the answer to an
// identical exec's prompt.
func (tg *taskGate) auditEntry(ex *execRequest, v Verdict, decision, by string, shared bool) {
	if err := tg.g.audit.Write(AuditEntry{Task: tg.task.ID(), Program: ex.prog.Path, Argv: ex.argv, Cwd: ex.cwd, Decision: decision, Rule: v.RuleText(), DecidedBy: by, Shared: shared}); err != nil {
		tg.g.log.Warn("exec decisions are not audited", "err", err)
	}
}

// deny answers EPERM and leaves a line in the task's output; by says who
// decided (for a repeated denial, who decided the first time).
func (tg *taskGate) deny(id uint64, ex *execRequest, v Verdict, by string) {
	prog := ex.prog.Path
	if prog == "" {
		prog = ex.given
	}
	// The note goes first, so that it is in the output when the process
	// reacts to the failure.
	line := denialLine(prog, v, by)
	tg.task.Note(line)
	notify(tg.task, Event{Kind: EventDenied, Program: prog, Rule: v.RuleText(), Text: line})
	tg.respond(id, unix.EPERM)
}

// allow answers "continue" and checks the image the exec loaded. When the
// process can race the kernel's second read of the path (several threads,
// a shared address space, a tracer) it is stopped before the new image runs
// a single instruction and resumed only if the image is the one decided.
// Otherwise the check runs just after the exec.
//
// fromLoop says that the loop calls it (the check is then the loop's, see
// imageCheck); an answer given elsewhere (a prompt's) checks from a
// goroutine of its own.
//
// The image the process runs before the exec (prev) is looked at before the
// answer, where a check needs it: not for an exec that nothing can race
// and whose path named no executable (final is zero), which the kernel
// fails.
func (tg *taskGate) allow(id uint64, ex *execRequest, final [2]uint64, fromLoop bool) {
	st := ex.st
	tgid := st.tgid
	racy := st.threads > 1 || st.tracer != 0 || sharesMemory(ex.tid, st.ppid)
	// final is zero where the path named no executable when judged: the
	// kernel will fail the exec, unless another process of the task puts
	// a program there first. So that case is checked too: any image after
	// it is one nobody judged.
	prev, _ := exeIdentity(tgid)
	if !racy {
		tg.respond(id, 0)
		if final != prev {
			if fromLoop {
				tg.checks = append(tg.checks, imageCheck{ex: ex, tgid: tgid, gen: tg.gen(tgid), prev: prev, final: final, due: time.Now().Add(firstCheckDelay), delay: firstCheckDelay})
			} else {
				go tg.verifyAfter(ex, tgid, tg.gen(tgid), prev, final)
			}
		}
		return
	}
	_ = unix.Tgkill(tgid, ex.tid, unix.SIGSTOP)
	tg.respond(id, 0)
	waitStopped(tgid, 2*time.Second)
	now, err := exeIdentity(tgid)
	if err == nil && now != prev && now != final {
		tg.kill(ex, tgid)
		return
	}
	if err == nil && now == final && final != prev && len(ex.argv) > 0 && tg.argvChanged(ex, tgid) {
		tg.kill(ex, tgid)
		return
	}
	_ = unix.Kill(tgid, unix.SIGCONT)
}

// argvChanged reports whether the arguments the new image got differ from
// the ones decided, in a way that matters to the policy.
func (tg *taskGate) argvChanged(ex *execRequest, tgid int) bool {
	if ex.final != [2]uint64{ex.prog.Dev, ex.prog.Ino} {
		return false // a script or the loader: the image's argv differs anyway
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", tgid))
	if err != nil {
		return false
	}
	got := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
	if strings.Join(got, "\x00") == strings.Join(ex.argv, "\x00") {
		return false
	}
	pol := tg.g.Policy()
	return pol.Decide(ex.prog, got).Decision > pol.Decide(ex.prog, ex.argv).Decision
}

// verifyAfter is imageCheck from a goroutine of its own, for execs that a
// prompt's answer allowed.
func (tg *taskGate) verifyAfter(ex *execRequest, tgid int, gen uint64, prev, final [2]uint64) {
	c := imageCheck{ex: ex, tgid: tgid, gen: gen, prev: prev, final: final, delay: firstCheckDelay}
	for {
		time.Sleep(c.delay)
		if !tg.check(&c) {
			return
		}
	}
}

// kill ends the task after the image check failed.
func (tg *taskGate) kill(ex *execRequest, tgid int) {
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", tgid))
	_ = unix.Kill(tgid, unix.SIGKILL)
	if pgid, err := unix.Getpgid(tgid); err == nil && pgid > 1 {
		_ = unix.Kill(-pgid, unix.SIGKILL)
	}
	_ = unix.Kill(-tg.session, unix.SIGKILL)
	killSession(tg.session)
	line := fmt.Sprintf("whale: the exec of %s loaded %s instead (the path was changed while it was checked); the task was killed", ex.prog.Path, orUnknown(exe))
	tg.task.Note(line)
	notify(tg.task, Event{Kind: EventKilled, Program: ex.prog.Path, Text: line})
	tg.g.audit.Write(AuditEntry{Task: tg.task.ID(), Program: orUnknown(exe), Argv: ex.argv, Cwd: ex.cwd, Decision: "kill", Rule: "image check after exec", DecidedBy: ByVerify})
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown program"
	}
	return s
}

// killSession kills every process whose session is sid.
func killSession(sid int) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, err := unix.Getsid(pid); err == nil && s == sid {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
	}
}

// procStatus holds the fields of /proc/PID/status the gate needs.
type procStatus struct{ tgid, ppid, threads, tracer int }

// readStatus reads them for thread tid, once per exec: one read into a
// buffer on the stack, parsed without allocating.
func readStatus(tid int) procStatus {
	var st procStatus
	var buf [4096]byte
	var name procName
	name.setProc(tid, "status", -1)
	raw, err := readProcName(&name, buf[:])
	if err != nil {
		return st
	}
	// The four lines come in the file's first half (Threads last): the
	// parse ends there.
	for left := 4; len(raw) > 0 && left > 0; {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		var field *int
		switch {
		case bytes.HasPrefix(line, []byte("Tgid:")):
			field = &st.tgid
		case bytes.HasPrefix(line, []byte("PPid:")):
			field = &st.ppid
		case bytes.HasPrefix(line, []byte("Threads:")):
			field = &st.threads
		case bytes.HasPrefix(line, []byte("TracerPid:")):
			field = &st.tracer
		default:
			continue
		}
		left--
		_, v, _ := bytes.Cut(line, []byte(":"))
		*field = atoi(bytes.TrimSpace(v))
	}
	return st
}

// atoi parses a decimal number without allocating; 0 for anything else.
func atoi(b []byte) int {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' || n > 1<<40 {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// readProc reads a small /proc file into buf with raw system calls (see
// procName; the gate reads one for every exec, and os.ReadFile's stat and
// bookkeeping cost about a third again). A file longer than buf is cut.
func readProc(path string, buf []byte) ([]byte, error) {
	var name procName
	if !name.set(path) {
		return nil, unix.ENAMETOOLONG
	}
	return readProcName(&name, buf)
}

// readProcName is readProc of a path already in a procName.
func readProcName(name *procName, buf []byte) ([]byte, error) {
	r, _, errno := unix.RawSyscall6(unix.SYS_OPENAT, uintptr(atFDCWD), name.ptr(), unix.O_RDONLY|unix.O_CLOEXEC, 0, 0, 0)
	if errno != 0 {
		return nil, errno
	}
	fd := r
	defer unix.RawSyscall(unix.SYS_CLOSE, fd, 0, 0)
	n := 0
	for n < len(buf) {
		r, _, errno := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&buf[n])), uintptr(len(buf)-n))
		k := int(r)
		switch {
		case errno == unix.EINTR:
			continue
		case errno != 0:
			return nil, errno
		case k == 0:
			return buf[:n], nil
		case k < len(buf)-n:
			// These one-record files are generated whole by the first read
			// and handed out up to the size asked for: a shorter read was
			// the end (no second call).
			return buf[:n+k], nil
		}
		n += k
	}
	return buf[:n], nil
}

// readProcLink reads a /proc magic link (a process's cwd, a descriptor) as
// a raw system call (see procName). Such a link is read from the kernel's
// own record of the path, without asking the file system it names.
func readProcLink(path string) (string, error) {
	var name procName
	if !name.set(path) {
		return os.Readlink(path)
	}
	return readProcLinkName(&name)
}

// readProcLinkName is readProcLink of a path already in a procName; only
// the link's text is allocated.
func readProcLinkName(name *procName) (string, error) {
	var buf [512]byte
	r, _, errno := unix.RawSyscall6(unix.SYS_READLINKAT, uintptr(atFDCWD), name.ptr(), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
	switch {
	case errno != 0:
		return "", &os.PathError{Op: "readlink", Path: name.String(), Err: errno}
	case int(r) == len(buf):
		return os.Readlink(name.String()) // perhaps cut: the long way
	}
	return string(buf[:r]), nil
}

// procName is a /proc path as a NUL-terminated string on the stack, for
// the gate's raw system calls (RawSyscall, which the runtime does not hear
// of). Around every usual system call the runtime may hand the loop's
// processor to another thread and take it back, and the threads woken that
// way cost CPU time per exec. Only calls that cannot wait on anything
// outside the kernel's own records go raw: a /proc file generated from the
// process's state, a magic link's text, the listener's ioctls. The calls
// that reach the program's file system (opening the program, stat of
// /proc/PID/exe, reading the process's memory) and kcmp (it waits for an
// exec in progress) stay usual calls: a slow or stuck file system would
// hold the processor meanwhile.
type procName [64]byte

// set copies path in; false when it does not fit.
func (n *procName) set(path string) bool {
	if len(path) >= len(n) || strings.IndexByte(path, 0) >= 0 {
		return false
	}
	copy(n[:], path)
	n[len(path)] = 0
	return true
}

// setProc sets n to /proc/PID/NAME (/proc/self/NAME for a negative pid),
// followed by num in decimal when num is not negative (a descriptor under
// fd/), without allocating; false when it does not fit.
func (n *procName) setProc(pid int, name string, num int) bool {
	b := append(n[:0], "/proc/"...)
	if pid < 0 {
		b = append(b, "self"...)
	} else {
		b = strconv.AppendInt(b, int64(pid), 10)
	}
	b = append(b, '/')
	if len(b)+len(name)+21 > len(n) || strings.IndexByte(name, 0) >= 0 {
		return false
	}
	b = append(b, name...)
	if num >= 0 {
		b = strconv.AppendInt(b, int64(num), 10)
	}
	n[len(b)] = 0
	return true
}

// String is the path n holds.
func (n *procName) String() string {
	if i := bytes.IndexByte(n[:], 0); i >= 0 {
		return string(n[:i])
	}
	return string(n[:])
}

func (n *procName) ptr() uintptr { return uintptr(unsafe.Pointer(&n[0])) }

// atFDCWD is AT_FDCWD, for a raw system call's argument.
var atFDCWD = unix.AT_FDCWD

// sharesMemory reports whether tid shares its address space with its
// parent (vfork, CLONE_VM): the parent's other threads could then change
// the exec's arguments. When kcmp cannot tell, it answers true.
func sharesMemory(tid, ppid int) bool {
	if ppid <= 1 {
		return false
	}
	const kcmpVM = 1
	r, _, errno := unix.Syscall6(unix.SYS_KCMP, uintptr(tid), uintptr(ppid), kcmpVM, 0, 0, 0)
	if errno != 0 {
		return errno != unix.ESRCH
	}
	return r == 0
}

// waitStopped waits until the process is stopped, gone, or d passed.
func waitStopped(pid int, d time.Duration) {
	deadline := time.Now().Add(d)
	path := fmt.Sprintf("/proc/%d/stat", pid)
	delay := 20 * time.Microsecond
	for time.Now().Before(deadline) {
		raw, err := os.ReadFile(path)
		if err != nil {
			return
		}
		if i := bytes.LastIndexByte(raw, ')'); i >= 0 && i+2 < len(raw) {
			switch raw[i+2] {
			case 'T', 't', 'Z', 'X':
				return
			}
		}
		time.Sleep(delay)
		delay = min(delay*2, 5*time.Millisecond)
	}
}

func lookupCall(arch, nr uint32) (execCall, bool) {
	for _, c := range execCalls {
		if c.arch == arch && c.nr == nr {
			return c, true
		}
	}
	return execCall{}, false
}
