package edits

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
)

// FilePlan is one file's part of a commit: the bytes the change was computed
// from and the bytes to write. Paths are slash-separated and relative to the
// root the plan is committed in.
type FilePlan struct {
	Path string
	// Existed says whether the file existed when it was read; Expected holds
	// its bytes then.
	Existed  bool
	Expected []byte
	// Delete removes the file; otherwise New is written (creating the file
	// and its folders when it did not exist).
	Delete bool
	New    []byte
}

// beforeRename, when set by a test, runs before each rename of a commit and
// can make it fail, to exercise the rollback.
var beforeRename func(target string) error

// stripeCount is the number of locks paths hash onto. Commits of unrelated
// files rarely wait on each other; commits of the same file always do.
const stripeCount = 64

// stripes serialise commits within this process. They are shared by every
// root because two roots may reach the same file.
var stripes [stripeCount]sync.Mutex

func stripeOf(key string) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % stripeCount)
}

// lockPaths takes the stripe locks of every root's paths in ascending order
// (so two commits cannot deadlock) and returns the function that releases
// them.
func lockPaths(commits []RootCommit) func() {
	seen := map[int]bool{}
	var idx []int
	for _, c := range commits {
		for _, p := range c.Plans {
			i := stripeOf(c.Root.Name() + "\x00" + path.Clean(p.Path))
			if !seen[i] {
				seen[i] = true
				idx = append(idx, i)
			}
		}
	}
	sort.Ints(idx)
	for _, i := range idx {
		stripes[i].Lock()
	}
	return func() {
		for k := len(idx) - 1; k >= 0; k-- {
			stripes[idx[k]].Unlock()
		}
	}
}

// ReadFile reads a file inside root for planning. A missing file is not an
// error: exists is false.
func ReadFile(root *os.Root, name string) (data []byte, exists bool, err error) {
	name, err = resolveLinks(root, name)
	if err != nil {
		return nil, false, err
	}
	data, err = root.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// resolveLinks follows symbolic links at the final element of name (the
// folders are followed by os.Root itself), so that a commit replaces the file
// a link points to and not the link. Links that leave the root fail when the
// resulting name is used.
func resolveLinks(root *os.Root, name string) (string, error) {
	name = path.Clean(name)
	for range 16 {
		fi, err := root.Lstat(name)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return name, nil
		}
		target, err := root.Readlink(name)
		if err != nil {
			return "", err
		}
		if path.IsAbs(target) {
			return "", fmt.Errorf("%s is a link to %s outside the workspace", name, target)
		}
		name = path.Clean(path.Join(path.Dir(name), target))
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", name)
}

// prepared is a plan whose new bytes sit in a temporary file next to the
// target, ready to be renamed over it.
type prepared struct {
	root   *os.Root
	plan   FilePlan
	target string
	temp   string // "" for deletions
	mode   fs.FileMode
	done   bool   // renamed (or, for a deletion, moved aside)
	aside  string // where a deleted file was moved until the commit ends
}

// RootCommit is the part of a commit that lands in one root.
type RootCommit struct {
	Root  *os.Root
	Plans []FilePlan
}

// Commit writes every plan or none; it is CommitAll for one root.
func Commit(root *os.Root, plans []FilePlan) error {
	return CommitAll([]RootCommit{{Root: root, Plans: plans}})
}

// CommitAll writes every plan of every root or none. Under the stripe locks
// of all paths it re-reads each file and compares it with the bytes the plan
// was computed from; any difference fails the whole commit with a
// write_conflict *Error before anything is written. Then it writes each new
// content to a temporary file next to its target (fsynced) and renames the
// temporaries over the targets, keeping the target's mode. If a rename
// fails, the files already renamed, in any root, are put back. Deletions are
// moved aside first and removed only at the end.
//
// Limits: a writer that does not take these locks can still change a file
// between the comparison and the rename; and a crash in the middle of a
// multi-file commit can leave some files new and some old.
func CommitAll(commits []RootCommit) error {
	for ci := range commits {
		plans := append([]FilePlan(nil), commits[ci].Plans...)
		for i, p := range plans {
			clean, err := cleanRel(p.Path)
			if err != nil {
				return err
			}
			plans[i].Path = clean
		}
		commits[ci].Plans = plans
	}
	unlock := lockPaths(commits)
	defer unlock()

	var preps []*prepared
	for _, c := range commits {
		for _, p := range c.Plans {
			pr, err := check(c.Root, p)
			if err != nil {
				return err
			}
			preps = append(preps, pr)
		}
	}

	cleanup := func() {
		for _, pr := range preps {
			if pr.temp != "" && !pr.done {
				pr.root.Remove(pr.temp)
			}
		}
	}
	for _, pr := range preps {
		if pr.plan.Delete {
			continue
		}
		if dir := path.Dir(pr.target); dir != "." {
			if err := pr.root.MkdirAll(dir, 0o755); err != nil {
				cleanup()
				return fmt.Errorf("create folder %s: %w", dir, err)
			}
		}
		temp, err := writeTemp(pr.root, pr.target, pr.plan.New, pr.mode)
		if err != nil {
			cleanup()
			return fmt.Errorf("write %s: %w", pr.plan.Path, err)
		}
		pr.temp = temp
	}
	for i, pr := range preps {
		var err error
		if beforeRename != nil {
			err = beforeRename(pr.target)
		}
		if err != nil {
		} else if pr.plan.Delete {
			pr.aside = tempName(pr.target, "deleted")
			err = pr.root.Rename(pr.target, pr.aside)
		} else {
			err = pr.root.Rename(pr.temp, pr.target)
		}
		if err != nil {
			rollback(preps[:i])
			cleanup()
			return fmt.Errorf("replace %s: %w; no file was changed", pr.plan.Path, err)
		}
		pr.done = true
	}
	for _, pr := range preps {
		if pr.aside != "" {
			pr.root.Remove(pr.aside)
		}
		syncDir(pr.root, path.Dir(pr.target))
	}
	return nil
}

// check re-reads a planned file under the locks and compares it with the
// bytes the plan was computed from.
func check(root *os.Root, p FilePlan) (*prepared, error) {
	target, err := resolveLinks(root, p.Path)
	if err != nil {
		return nil, err
	}
	pr := &prepared{root: root, plan: p, target: target, mode: 0o644}
	cur, err := root.ReadFile(target)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("re-read %s: %w", p.Path, err)
	}
	switch {
	case exists && !p.Existed:
		return nil, conflict(p.Path, "the file was created since it was read")
	case !exists && p.Existed:
		return nil, conflict(p.Path, "the file was deleted since it was read")
	case exists && !bytes.Equal(cur, p.Expected):
		return nil, conflict(p.Path, "the file changed since it was read")
	}
	if exists {
		fi, err := root.Stat(target)
		if err != nil {
			return nil, fmt.Errorf("stat %s: %w", p.Path, err)
		}
		pr.mode = fi.Mode().Perm()
	}
	return pr, nil
}

func conflict(name, why string) *Error {
	return newError(CodeWriteConflict, "%s: %s; read it again and redo the change on its current text (nothing was written)", name, why)
}

// rollback undoes the renames of a failed commit, as far as it can.
func rollback(done []*prepared) {
	for k := len(done) - 1; k >= 0; k-- {
		pr, root := done[k], done[k].root
		switch {
		case pr.plan.Delete:
			root.Rename(pr.aside, pr.target)
		case pr.plan.Existed:
			if temp, err := writeTemp(root, pr.target, pr.plan.Expected, pr.mode); err == nil {
				if root.Rename(temp, pr.target) != nil {
					root.Remove(temp)
				}
			}
		default:
			root.Remove(pr.target)
		}
	}
}

func tempName(target, kind string) string {
	var r [6]byte
	rand.Read(r[:])
	return path.Join(path.Dir(target), "."+path.Base(target)+".whale-"+kind+"-"+hex.EncodeToString(r[:]))
}

// writeTemp writes data to a new temporary file next to target, syncs it,
// gives it mode, and returns its name.
func writeTemp(root *os.Root, target string, data []byte, mode fs.FileMode) (string, error) {
	name := tempName(target, "tmp")
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		root.Remove(name)
		return "", err
	}
	if err := root.Chmod(name, mode); err != nil {
		root.Remove(name)
		return "", err
	}
	return name, nil
}

// syncDir makes a rename durable where the platform allows it.
func syncDir(root *os.Root, dir string) {
	if f, err := root.Open(dir); err == nil {
		f.Sync()
		f.Close()
	}
}

// cleanRel checks that name is a relative slash path that stays inside a
// root, and returns it cleaned.
func cleanRel(name string) (string, error) {
	if name == "" || path.IsAbs(name) || strings.Contains(name, `\`) {
		return "", newError(CodeInvalidInput, "path %q must be relative to the workspace root and use slashes", name)
	}
	c := path.Clean(name)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", newError(CodeInvalidInput, "path %q leaves the workspace root", name)
	}
	return c, nil
}
