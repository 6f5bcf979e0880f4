package terminal

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"
)

// ptySupported: PTY tasks run on a pseudoconsole (ConPTY, see
// pty_windows.go).
const ptySupported = true

// ptyUnsupportedNote is the line a PTY request leaves in the output where
// Windows has no ConPTY (before Windows 10 1809).
const ptyUnsupportedNote = "this task runs over pipes: this Windows has no pseudoconsole (ConPTY, Windows 10 1809 and later), so programs that need a terminal may behave differently or refuse to run"

// supervisorUseful is false: a Job object holds a task's tree on Windows.
const supervisorUseful = false

// childExitSignals is empty: Windows has no SIGCHLD and no zombies.
var childExitSignals = []os.Signal{}

// defaultShell is pwsh when it is on PATH, else powershell.exe.
func defaultShell() string {
	if p, err := exec.LookPath("pwsh"); err == nil {
		return p
	}
	return "powershell.exe"
}

// shellKind names how a shell takes its command on Windows.
func shellKind(shell string) string {
	base := strings.ToLower(strings.TrimSuffix(strings.ToLower(filepath.Base(shell)), ".exe"))
	switch base {
	case "cmd":
		return "cmd"
	case "pwsh", "powershell":
		return "powershell"
	}
	return "posix"
}

// shellCommand runs command with the shell's own convention: PowerShell
// with -EncodedCommand (UTF-16LE in base64, so no quoting rule of the
// Windows command line touches it), cmd.exe with a raw command line
// `/d /s /c "COMMAND"` (cmd.exe does not follow the MSVC quoting rules), and
// any other shell (bash.exe, sh.exe) with -c.
func shellCommand(shell, command string) *exec.Cmd {
	switch shellKind(shell) {
	case "powershell":
		u := utf16.Encode([]rune(command))
		b := make([]byte, 2*len(u))
		for i, c := range u {
			b[2*i], b[2*i+1] = byte(c), byte(c>>8)
		}
		return exec.Command(shell, "-NoLogo", "-NoProfile", "-EncodedCommand", base64.StdEncoding.EncodeToString(b))
	case "cmd":
		cmd := exec.Command(shell)
		cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: syscall.EscapeArg(shell) + ` /d /s /c "` + command + `"`}
		cmd.Args = append(cmd.Args, "/d", "/s", "/c", command)
		return cmd
	}
	return exec.Command(shell, "-c", command)
}

// newProcAttr starts the shell suspended in a new process group, so that
// afterStart can put it into the task's Job object before it runs anything.
func newProcAttr(prev *syscall.SysProcAttr) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{}
	if prev != nil {
		*attr = *prev
	}
	attr.CreationFlags |= windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP
	attr.HideWindow = true
	return attr
}

func setPlatformAttrs(*syscall.SysProcAttr, bool) {}

// afterStart puts the suspended shell into a new Job object with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE and resumes it. Every process it starts
// is in the job too, so the tree dies when the task is killed
// (TerminateJobObject) and when the server dies (the kernel closes the only
// handle to the job).
func afterStart(cmd *exec.Cmd) error {
	pid := cmd.Process.Pid
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("create the task's job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(sizeofExtendedLimit)); err != nil {
		_ = windows.CloseHandle(job)
		return fmt.Errorf("make the task's job object kill on close: %w", err)
	}
	ph, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		_ = windows.CloseHandle(job)
		return fmt.Errorf("open the task's shell process: %w", err)
	}
	err = windows.AssignProcessToJobObject(job, ph)
	_ = windows.CloseHandle(ph)
	if err != nil {
		_ = windows.CloseHandle(job)
		return fmt.Errorf("put the task's shell into its job object: %w", err)
	}
	jobs.add(pid, job)
	if err := resumeProcess(uint32(pid)); err != nil {
		return fmt.Errorf("resume the task's shell: %w", err)
	}
	return nil
}

// resumeProcess resumes every thread of a process started suspended.
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	var te windows.ThreadEntry32
	te.Size = uint32(sizeofThreadEntry)
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, oerr := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if oerr != nil {
			continue
		}
		if _, rerr := windows.ResumeThread(th); rerr == nil {
			resumed++
		}
		_ = windows.CloseHandle(th)
	}
	if resumed == 0 {
		return errors.New("no thread of the process could be resumed")
	}
	return nil
}

// interruptGroup sends CTRL_BREAK to the task's process group (ctrl-c in
// pipe mode); console programs treat it as an interrupt.
func interruptGroup(pid int) {
	_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pid))
}

// reportedStatus is the exit code itself: there is no supervisor on
// Windows, so nothing reports one.
func reportedStatus(n int) (int, string) { return n, "" }
