//go:build linux

package search

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// inotifyWatcher is inotify used directly (not through fsnotify): the index
// needs to read the queue without blocking before it answers (so that no
// change already made is missed), to tell a full watch limit (ENOSPC) and a
// queue overflow (IN_Q_OVERFLOW) apart, and to watch a directory it holds
// open (through /proc/self/fd) rather than a path that could be swapped for
// a symlink.
type inotifyWatcher struct {
	fd, wake int
	max      int
	count    atomic.Int64
	buf      []byte
	once     sync.Once
}

const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_ATTRIB |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

func newWatcher(max int) (watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		if errors.Is(err, unix.EMFILE) {
			return nil, errors.New("the inotify instance limit is reached (fs.inotify.max_user_instances)")
		}
		return nil, fmt.Errorf("inotify is not available: %w", err)
	}
	wake, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	return &inotifyWatcher{fd: fd, wake: wake, max: max, buf: make([]byte, 64<<10)}, nil
}

func (w *inotifyWatcher) add(h dirHandle) (int32, error) {
	d, ok := h.(*fdDir)
	if !ok {
		return 0, errors.New("not a directory descriptor")
	}
	if w.max > 0 && w.count.Add(1) > int64(w.max) {
		w.count.Add(-1)
		return 0, errWatchLimit
	}
	wd, err := unix.InotifyAddWatch(w.fd, "/proc/self/fd/"+strconv.Itoa(d.fd), watchMask)
	if err != nil {
		if w.max > 0 {
			w.count.Add(-1)
		}
		if errors.Is(err, unix.ENOSPC) {
			return 0, errWatchLimit
		}
		return 0, fmt.Errorf("inotify_add_watch: %w", err)
	}
	return int32(wd), nil
}

func (w *inotifyWatcher) remove(wd int32) {
	if _, err := unix.InotifyRmWatch(w.fd, uint32(wd)); err == nil && w.max > 0 {
		w.count.Add(-1)
	}
}

func (w *inotifyWatcher) read(apply func(fsEvent)) (int, error) {
	var n int
	var err error
	for {
		n, err = unix.Read(w.fd, w.buf)
		if err != unix.EINTR {
			break
		}
	}
	if err == unix.EAGAIN {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	events := 0
	for off := 0; off+unix.SizeofInotifyEvent <= n; {
		raw := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
		name := ""
		if raw.Len > 0 {
			b := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(raw.Len)]
			name = strings.TrimRight(string(b), "\x00")
		}
		off += unix.SizeofInotifyEvent + int(raw.Len)
		events++
		if ev, ok := translate(raw.Wd, raw.Mask, name); ok {
			apply(ev)
		}
	}
	return events, nil
}

// translate turns an inotify event into the index's terms; ok is false for
// events the index does not need (a folder's attributes).
func translate(wd int32, mask uint32, name string) (fsEvent, bool) {
	ev := fsEvent{wd: wd, name: name, isDir: mask&unix.IN_ISDIR != 0}
	switch {
	case mask&unix.IN_Q_OVERFLOW != 0:
		ev.op = opOverflow
	case mask&unix.IN_IGNORED != 0:
		ev.op = opIgnored
	case mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_UNMOUNT) != 0:
		ev.op = opSelfGone
	case mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
		ev.op = opGone
	case mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
		ev.op = opChange
	case ev.isDir:
		return ev, false
	default: // IN_MODIFY, IN_ATTRIB of a file
		ev.op = opChange
	}
	return ev, true
}

func (w *inotifyWatcher) wait() bool {
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}, {Fd: int32(w.wake), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil || fds[1].Revents != 0 {
			return false
		}
		if fds[0].Revents != 0 {
			return true
		}
	}
}

func (w *inotifyWatcher) stop() {
	one := [8]byte{1}
	unix.Write(w.wake, one[:])
}

func (w *inotifyWatcher) close() {
	w.once.Do(func() {
		unix.Close(w.fd)
		unix.Close(w.wake)
	})
}

// watchLimitText is the kernel's watch limit, for the message that says it
// was reached.
func watchLimitText() string {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return "fs.inotify.max_user_watches unknown"
	}
	return "fs.inotify.max_user_watches = " + strings.TrimSpace(string(b))
}
