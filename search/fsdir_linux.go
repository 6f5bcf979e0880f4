//go:build linux

package search

import (
	"bytes"
	"errors"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fdDir is a directory file descriptor. Children are opened with openat and
// O_NOFOLLOW, one component at a time, which is what os.Root does too, minus
// its per-call path walk from the root.
type fdDir struct{ fd int }

var direntBufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func openRootDir(root *os.Root, rel string) (dirHandle, error) {
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &os.PathError{Op: "open", Path: rel, Err: unix.ENOTDIR}
	}
	fd, err := unix.Openat(int(f.Fd()), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: rel, Err: err}
	}
	return &fdDir{fd: fd}, nil
}

func (d *fdDir) close() { unix.Close(d.fd) }

func (d *fdDir) list() ([]dirent, error) {
	bp := direntBufPool.Get().(*[]byte)
	defer direntBufPool.Put(bp)
	buf := *bp
	var out []dirent
	for {
		n, err := unix.Getdents(d.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		for off := 0; off < n; {
			// struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
			reclen := int(*(*uint16)(unsafe.Pointer(&buf[off+16])))
			typ := buf[off+18]
			ino := *(*uint64)(unsafe.Pointer(&buf[off]))
			nameBytes := buf[off+19 : off+reclen]
			off += reclen
			if ino == 0 {
				continue
			}
			if i := bytes.IndexByte(nameBytes, 0); i >= 0 {
				nameBytes = nameBytes[:i]
			}
			if len(nameBytes) == 0 || (nameBytes[0] == '.' && (len(nameBytes) == 1 || (len(nameBytes) == 2 && nameBytes[1] == '.'))) {
				continue
			}
			name := string(nameBytes)
			var kind entryKind
			switch typ {
			case unix.DT_REG:
				kind = kindFile
			case unix.DT_DIR:
				kind = kindDir
			case unix.DT_LNK:
				kind = kindSymlink
			case unix.DT_UNKNOWN:
				kind = d.statKind(name)
			default:
				kind = kindOther
			}
			out = append(out, dirent{name: name, kind: kind})
		}
	}
}

// statKind asks for the type of an entry whose listing did not say.
func (d *fdDir) statKind(name string) entryKind {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return kindOther
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return kindFile
	case unix.S_IFDIR:
		return kindDir
	case unix.S_IFLNK:
		return kindSymlink
	}
	return kindOther
}

func (d *fdDir) openDir(name string) (dirHandle, error) {
	for {
		fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &fdDir{fd: fd}, nil
	}
}

func (d *fdDir) readFile(name string, buf []byte, skipBinary bool, limit int, size int64) ([]byte, error) {
	var fd int
	var err error
	for {
		// O_NONBLOCK: a FIFO swapped in after the listing must not hang us.
		fd, err = unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return buf[:0], err
	}
	defer unix.Close(fd)
	buf = buf[:0]
	if size >= 0 && size < int64(limit) && int64(cap(buf)) <= size {
		buf = make([]byte, 0, size+1)
	}
	probed := !skipBinary
	for {
		if len(buf) >= limit {
			return buf, errTooLarge
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		want := cap(buf) - len(buf)
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			if err == unix.EAGAIN {
				return buf, errNotRegular
			}
			return buf, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		// A short read that ends at the known size is the end of the
		// file (a file that grew since fills the read instead).
		atEnd := n < want && int64(len(buf)) == size
		if !probed && (len(buf) >= binaryProbe) {
			probed = true
			if bytes.IndexByte(buf[:binaryProbe], 0) >= 0 {
				return buf, errBinary
			}
		}
		if atEnd {
			return buf, nil
		}
	}
}

var errNotRegular = errors.New("not a regular file")

func (d *fdDir) stat(name string) (size, mtime int64, ok bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return 0, 0, false
	}
	return st.Size, st.Mtim.Nano(), true
}
