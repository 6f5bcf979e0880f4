package edits

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/whale-ls/whale-ls/atomicfile"
	"github.com/whale-ls/whale-ls/excerpt"
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

// RootCommit is the part of a commit that lands in one root.
type RootCommit struct {
	Root  *os.Root
	Plans []FilePlan
}

// ReadFile reads a file inside root for planning. A missing file is not an
// error: exists is false. Read under a Txn's locks, the bytes stay the ones
// every whale commit of the file starts from until the Txn ends.
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

// Txn is one commit of one or more files: Locks.Begin takes the locks of
// its files, the caller reads them (ReadFile, or an editor's buffer) and
// plans, Stage checks the plans and writes the new bytes beside their
// targets, the caller does the editor's part if there is one, and Commit
// puts every staged file in place or none. End releases the locks and
// throws away whatever was staged and not committed; it is safe to defer
// and to call twice.
//
// Because the locks are held from the read to the rename, commits of one
// file by whale — in this process or another — never overlap: each plans on
// the bytes the previous one left, and no update is lost.
type Txn struct {
	locks   *Locks
	held    heldLocks
	staged  []*stagedPlan
	settled bool // committed, or its staged files thrown away
	ended   bool
}

// stagedPlan is a plan whose new bytes sit in a file beside the target,
// ready to be put in place.
type stagedPlan struct {
	root   *os.Root
	plan   FilePlan
	target string
	mode   fs.FileMode
	data   *atomicfile.File // nil for deletions
	done   bool             // put in place (or, for a deletion, moved aside)
	aside  string           // where a deleted file waits until the commit ends
}

// Stage checks every plan against the file's current bytes, under the
// Txn's locks, and writes each new content to a file beside its target
// (synced to disk, with the target's mode). A difference fails with a
// write_conflict *Error before anything is written: since whale's own
// commits wait for the locks, it means that a program other than whale
// changed the file after it was read. Stage may be called once per Txn.
func (tx *Txn) Stage(commits []RootCommit) error {
	if tx.ended || tx.staged != nil {
		return errors.New("edits: Stage called twice or after End")
	}
	for _, c := range commits {
		for _, p := range c.Plans {
			clean, err := cleanRel(p.Path)
			if err != nil {
				tx.discard()
				return err
			}
			p.Path = clean
			sp, err := check(c.Root, p)
			if err != nil {
				tx.discard()
				return err
			}
			tx.staged = append(tx.staged, sp)
		}
	}
	for _, sp := range tx.staged {
		if sp.plan.Delete {
			continue
		}
		if dir := path.Dir(sp.target); dir != "." {
			if err := sp.root.MkdirAll(dir, 0o755); err != nil {
				tx.discard()
				return fmt.Errorf("create folder %s: %w", dir, err)
			}
		}
		data, err := stage(sp.root, sp.target, sp.plan.New, sp.mode)
		if err != nil {
			tx.discard()
			return fmt.Errorf("write %s: %w", sp.plan.Path, err)
		}
		sp.data = data
	}
	return nil
}

// Commit puts every staged file in place or none. Immediately before the
// first rename it compares each file once more with the bytes its plan was
// computed from, so that the window left to writers that are not whale (an
// editor saving, a build tool) is only the renames themselves; a difference
// fails with write_conflict and nothing is changed. If a rename fails, the
// files already replaced are put back. Deleted files are moved aside first
// and removed once every rename succeeded.
//
// Limits: a writer that does not take whale's locks can still change a file
// between the final comparison and the rename, and a crash in the middle of
// a commit of several files can leave some of them new and some old (each
// file on its own is always wholly old or wholly new).
func (tx *Txn) Commit() error {
	if tx.ended || tx.settled {
		return errors.New("edits: Commit called twice or after End")
	}
	defer tx.discard()
	for _, sp := range tx.staged {
		if _, err := check(sp.root, sp.plan); err != nil {
			return err
		}
	}
	for i, sp := range tx.staged {
		if err := tx.put(sp); err != nil {
			rollback(tx.staged[:i])
			return fmt.Errorf("replace %s: %w; no file was changed", sp.plan.Path, err)
		}
		sp.done = true
	}
	for _, sp := range tx.staged {
		if sp.aside != "" {
			sp.root.Remove(sp.aside)
		}
		atomicfile.SyncDir(sp.root, path.Dir(sp.target)) // best effort: every rename is done
	}
	return nil
}

// put does one plan's rename: the staged content over its target, or, for
// a deletion, the target aside (to a name Commit removes once every rename
// succeeded). LockOptions.BeforeRename runs first and can fail it.
func (tx *Txn) put(sp *stagedPlan) error {
	if hook := tx.locks.opts.BeforeRename; hook != nil {
		if err := hook(sp.target); err != nil {
			return err
		}
	}
	if sp.plan.Delete {
		sp.aside = tempName(sp.target, "deleted")
		return sp.root.Rename(sp.target, sp.aside)
	}
	return sp.data.Commit()
}

// End throws away whatever was staged and not committed and releases the
// locks.
func (tx *Txn) End() {
	if tx.ended {
		return
	}
	tx.discard()
	tx.ended = true
	tx.held.release()
}

// discard removes the staged files that were not put in place.
func (tx *Txn) discard() {
	if tx.settled {
		return
	}
	tx.settled = true
	for _, sp := range tx.staged {
		if sp.data != nil && !sp.done {
			sp.data.Abort()
		}
	}
}

// check re-reads a planned file and compares it with the bytes the plan
// was computed from.
func check(root *os.Root, p FilePlan) (*stagedPlan, error) {
	target, err := resolveLinks(root, p.Path)
	if err != nil {
		return nil, err
	}
	sp := &stagedPlan{root: root, plan: p, target: target, mode: 0o644}
	cur, err := root.ReadFile(target)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("re-read %s: %w", p.Path, err)
	}
	switch {
	case exists && !p.Existed:
		return nil, conflict(p.Path, "was created")
	case !exists && p.Existed:
		return nil, conflict(p.Path, "was deleted")
	case exists && !bytes.Equal(cur, p.Expected):
		return nil, conflict(p.Path, "changed")
	}
	if exists {
		fi, err := root.Stat(target)
		if err != nil {
			return nil, fmt.Errorf("stat %s: %w", p.Path, err)
		}
		sp.mode = fi.Mode().Perm()
	}
	return sp, nil
}

// ErrOutsideChange matches (errors.Is) a write_conflict raised because a
// program other than whale changed a file while whale held its locks; a
// caller may read the file again and plan once more.
var ErrOutsideChange = errors.New("changed by another program during the commit")

func conflict(name, what string) error {
	e := newError(CodeWriteConflict, "%s %s on disk while the change was being written, by a program other than whale (an editor saving, a build or formatter); nothing was written — read it again and redo the change on its current text", name, what)
	e.outside = true
	return e
}

// rollback undoes the renames of a failed commit, as far as it can.
func rollback(done []*stagedPlan) {
	for k := len(done) - 1; k >= 0; k-- {
		sp, root := done[k], done[k].root
		switch {
		case sp.plan.Delete:
			root.Rename(sp.aside, sp.target)
		case sp.plan.Existed:
			if back, err := stage(root, sp.target, sp.plan.Expected, sp.mode); err == nil {
				back.Commit() // on failure it removes its temporary file
			}
		default:
			root.Remove(sp.target)
		}
	}
}

// tempName is a name beside target that no one else uses: a dot file with
// whale's marker, the kind and a random part.
func tempName(target, kind string) string {
	var r [6]byte
	rand.Read(r[:])
	return path.Join(path.Dir(target), "."+shortBase(target)+".whale-"+kind+"-"+hex.EncodeToString(r[:]))
}

// stagingName is the one name beside target under which its new content
// waits for the rename. It is fixed, not random: only the holder of the
// target's locks uses it, so a file left there by a whale process that was
// killed between naming and renaming is stale, and the next commit of the
// target replaces it.
func stagingName(target string) string {
	return path.Join(path.Dir(target), "."+shortBase(target)+".whale-tmp")
}

// shortBase is target's base name, or a hash of it when a dot file built on
// it would be longer than file systems allow.
func shortBase(target string) string {
	base := path.Base(target)
	if len(base) <= 200 {
		return base
	}
	return fmt.Sprintf("%s-%08x", base[:64], hashKey(base))
}

// stage writes data beside target with mode and syncs it, through
// atomicfile: an unnamed file where Linux has them, else (and, on Linux,
// for the moment of its rename) target's stagingName.
func stage(root *os.Root, target string, data []byte, mode fs.FileMode) (*atomicfile.File, error) {
	return atomicfile.Stage(root, target, path.Base(stagingName(target)), data, mode)
}

// cleanRel checks that name is a relative slash path that stays inside a
// root, and returns it cleaned.
func cleanRel(name string) (string, error) {
	if name == "" || path.IsAbs(name) || strings.Contains(name, `\`) {
		return "", newError(CodeInvalidInput, "path %s must be relative to the workspace root and use slashes", excerpt.Quote(name))
	}
	c := path.Clean(name)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", newError(CodeInvalidInput, "path %s leaves the workspace root", excerpt.Quote(name))
	}
	return c, nil
}
