package sandbox

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Refusal is a write or a connection the sandbox refused, as the task's
// output shows it.
type Refusal struct {
	// Path is the file whose write was refused; empty for a connection.
	Path string
	// Address is the address whose connection was refused, when the output
	// names one.
	Address string
}

var (
	deniedLine = regexp.MustCompile(`(?i)permission denied|operation not permitted|invalid cross-device link|read-only file system`)
	netLine    = regexp.MustCompile(`(?i)network is unreachable|cannot assign requested address|no route to host`)
	// the path just before the error, as shells and coreutils print it
	pathBefore = regexp.MustCompile(`([^\s:'"‘’` + "`" + `]+)['"’` + "`" + `]?: (?i:permission denied|operation not permitted|invalid cross-device link|read-only file system)`)
	// quoted or bare paths: '…', "…", ‘…’, `…', or a token starting with /
	quotedPath    = regexp.MustCompile("['\"‘`]((?:/|\\.\\.?/|~/)[^'\"’`\\n]*)['\"’`]")
	programPrefix = regexp.MustCompile(`^\S+: `)
	barePath      = regexp.MustCompile(`(?:^|[\s(=])((?:/|\.\.?/)[^\s:'"(),]+)`)
	address       = regexp.MustCompile(`\[?[0-9a-fA-F:.]*[0-9a-fA-F]\]?:[0-9]{1,5}\b|\b(?:[0-9]{1,3}\.){3}[0-9]{1,3}\b`)
)

// Explain finds, in a task's output, the writes and connections p refused:
// a "permission denied" (or EPERM, EXDEV) line naming a path outside p's
// writable folders whose folder this user could write to without the
// sandbox, or a "network is unreachable" line when the network is not on.
// dir resolves relative paths. It returns at most a few, first seen first.
func (p Policy) Explain(output, dir string) []Refusal {
	var found []Refusal
	seen := map[string]bool{}
	for line := range strings.SplitSeq(output, "\n") {
		if len(found) >= 3 {
			break
		}
		if p.Network != NetOn && netLine.MatchString(line) {
			addr := address.FindString(line)
			if !seen["net "+addr] {
				seen["net "+addr] = true
				found = append(found, Refusal{Address: addr})
			}
			continue
		}
		if p.Mode == Off || !deniedLine.MatchString(line) {
			continue
		}
		var cands []string
		for _, m := range pathBefore.FindAllStringSubmatch(line, -1) {
			cands = append(cands, m[1])
		}
		for _, m := range quotedPath.FindAllStringSubmatch(line, -1) {
			cands = append(cands, m[1])
		}
		// Not the program's own name before its message ("/bin/bash: …").
		rest := programPrefix.ReplaceAllString(line, "")
		for _, m := range barePath.FindAllStringSubmatch(rest, -1) {
			cands = append(cands, m[1])
		}
		for _, c := range cands {
			path := c
			if !filepath.IsAbs(path) {
				if dir == "" {
					continue
				}
				path = filepath.Join(dir, path)
			}
			path = realish(filepath.Clean(path))
			if seen[path] || p.allows(path) || !writableWithout(path) {
				continue
			}
			seen[path] = true
			found = append(found, Refusal{Path: path})
			break
		}
	}
	return found
}

// realish resolves the symlinks of the longest part of path that exists.
func realish(path string) string {
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		if p == filepath.Dir(p) {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// Hint is the sentence a task's result carries for its refusals: what was
// refused, where the task may write, and the way out.
func (p Policy) Hint(refused []Refusal) string {
	var writes, conns []string
	for _, r := range refused {
		if r.Path != "" {
			writes = append(writes, r.Path)
		} else if r.Address != "" {
			conns = append(conns, r.Address)
		} else {
			conns = append(conns, "an address")
		}
	}
	var b strings.Builder
	if len(writes) > 0 {
		var where []string
		for _, r := range p.Writable {
			where = append(where, r.Path)
		}
		fmt.Fprintf(&b, "The sandbox (%s) refused a write to %s; the task may write only in %s. Do not try to write there another way: ask the user to add the folder to shell.writableRoots, or to set shell.sandbox to off in their user settings.", p.Mode, strings.Join(writes, ", "), strings.Join(where, ", "))
	}
	if len(conns) > 0 {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		what := "only the task's own loopback (127.0.0.1, ::1) is reachable"
		if p.Network == NetOff {
			what = "no network address is reachable"
		}
		fmt.Fprintf(&b, "The sandbox (shell.network %s) refused a connection to %s; %s. Ask the user to set shell.network to on in their user settings if the task needs the network.", p.Network, strings.Join(conns, ", "), what)
	}
	return b.String()
}
