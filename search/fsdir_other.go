//go:build !linux

package search

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
)

// rootDir is the portable dirHandle: a sub-root per directory.
type rootDir struct{ r *os.Root }

func openRootDir(root *os.Root, rel string) (dirHandle, error) {
	r, err := root.OpenRoot(rel)
	if err != nil {
		return nil, err
	}
	return &rootDir{r: r}, nil
}

func (d *rootDir) close() { d.r.Close() }

func (d *rootDir) list() ([]dirent, error) {
	f, err := d.r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	out := make([]dirent, 0, len(entries))
	for _, e := range entries {
		k := kindOther
		switch t := e.Type(); {
		case t.IsRegular():
			k = kindFile
		case t.IsDir():
			k = kindDir
		case t&fs.ModeSymlink != 0:
			k = kindSymlink
		}
		out = append(out, dirent{name: e.Name(), kind: k})
	}
	return out, err
}

func (d *rootDir) openDir(name string) (dirHandle, error) {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, errNotRegular
	}
	r, err := d.r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &rootDir{r: r}, nil
}

func (d *rootDir) readFile(name string, buf []byte, skipBinary bool, limit int, _ int64) ([]byte, error) {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return buf[:0], err
	}
	if !fi.Mode().IsRegular() {
		return buf[:0], errNotRegular
	}
	f, err := d.r.Open(name)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	buf = buf[:0]
	probed := !skipBinary
	for {
		if len(buf) >= limit {
			return buf, errTooLarge
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if !probed && len(buf) >= binaryProbe {
			probed = true
			if bytes.IndexByte(buf[:binaryProbe], 0) >= 0 {
				return buf, errBinary
			}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

var errNotRegular = errors.New("not a regular file")

func (d *rootDir) stat(name string) (size, mtime int64, ok bool) {
	fi, err := d.r.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return 0, 0, false
	}
	return fi.Size(), fi.ModTime().UnixNano(), true
}
