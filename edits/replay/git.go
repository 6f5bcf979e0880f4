package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Repo is a local git clone the replay reads its history from, with the
// git program.
type Repo struct {
	Dir string
	git string
}

// OpenRepo finds git and checks that dir is inside a git work tree (it
// returns the top folder's Repo) or is a bare clone.
func OpenRepo(ctx context.Context, dir string) (*Repo, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("git is not installed: %w", err)
	}
	r := &Repo{Dir: dir, git: git}
	if bare, err := r.run(ctx, "rev-parse", "--is-bare-repository"); err == nil && strings.TrimSpace(string(bare)) == "true" {
		return r, nil // a bare clone: the history is all the replay reads
	}
	top, err := r.run(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not a git work tree or a bare clone: %w", dir, err)
	}
	r.Dir = strings.TrimSpace(string(top))
	return r, nil
}

// History says how much history a clone has: its commits without merges
// from HEAD, and whether it is shallow (a CI checkout often is).
func (r *Repo) History(ctx context.Context) (commits int, shallow bool, err error) {
	out, err := r.run(ctx, "rev-parse", "--is-shallow-repository")
	if err != nil {
		return 0, false, err
	}
	shallow = strings.TrimSpace(string(out)) == "true"
	out, err = r.run(ctx, "rev-list", "--count", "--no-merges", "HEAD")
	if err != nil {
		return 0, shallow, err
	}
	commits, err = strconv.Atoi(strings.TrimSpace(string(out)))
	return commits, shallow, err
}

// Commits returns the hashes of the commits from HEAD that have one parent,
// oldest first, at most max (0: all), the newest ones when cut.
func (r *Repo) Commits(ctx context.Context, max int) ([]string, error) {
	args := []string{"log", "--no-merges", "--format=%H %P"}
	if max > 0 {
		args = append(args, "-n", strconv.Itoa(max))
	}
	out, err := r.run(ctx, append(args, "HEAD")...)
	if err != nil {
		return nil, err
	}
	var hashes []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 { // one parent: the root commit has none
			hashes = append(hashes, f[0])
		}
	}
	for i, j := 0, len(hashes)-1; i < j; i, j = i+1, j-1 {
		hashes[i], hashes[j] = hashes[j], hashes[i]
	}
	return hashes, nil
}

// FileChange is one text file a commit changed: its path, its bytes before
// and after (Old is nil for a new file), and git's unified diff of it.
type FileChange struct {
	Commit string
	Path   string
	Old    []byte
	New    []byte
	Diff   string
}

// maxFileBytes bounds the files replayed: larger ones cost much and teach
// nothing the small ones do not.
const maxFileBytes = 200 << 10

// Changes returns the text files commit modified or added (renames count
// as a delete and an add; deleted files are left out), each with its diff
// against the first parent (three lines of context, git's function
// headings in the @@ lines).
func (r *Repo) Changes(ctx context.Context, commit string) ([]FileChange, error) {
	out, err := r.run(ctx, "diff-tree", "--no-commit-id", "-r", "--no-renames", "--diff-filter=AM", "--raw", "-z", commit+"^", commit)
	if err != nil {
		return nil, err
	}
	// Each entry is ":oldmode newmode oldsha newsha status" and a path.
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	var chs []FileChange
	for i := 0; i+1 < len(fields); i += 2 {
		meta, path := strings.Fields(fields[i]), fields[i+1]
		if len(meta) != 5 || meta[1] != "100644" && meta[1] != "100755" {
			continue // a submodule, a symbolic link
		}
		status := meta[4]
		ch := FileChange{Commit: commit, Path: path}
		if ch.New, err = r.run(ctx, "show", commit+":"+path); err != nil {
			return nil, err
		}
		if status == "M" {
			if ch.Old, err = r.run(ctx, "show", commit+"^:"+path); err != nil {
				return nil, err
			}
		}
		if !isReplayText(ch.Old) || !isReplayText(ch.New) {
			continue
		}
		d, err := r.run(ctx, "diff", "--no-color", "--no-ext-diff", "--no-renames", "-U3", commit+"^", commit, "--", path)
		if err != nil {
			return nil, err
		}
		ch.Diff = string(d)
		if !strings.Contains(ch.Diff, "\n@@ ") || strings.Contains(ch.Diff, "Binary files") {
			continue // no text change (only the mode), or a binary one
		}
		chs = append(chs, ch)
	}
	return chs, nil
}

// Files returns the paths of the text files at commit, for wrong-file
// cases.
func (r *Repo) Files(ctx context.Context, commit string) ([]string, error) {
	out, err := r.run(ctx, "ls-tree", "-r", "-z", "--name-only", commit)
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"), nil
}

// Show returns a file's bytes at commit.
func (r *Repo) Show(ctx context.Context, commit, path string) ([]byte, error) {
	return r.run(ctx, "show", commit+":"+path)
}

// isReplayText reports whether b is a text file the replay uses: UTF-8
// without NUL bytes, not too large (nil, a file that does not exist, is
// fine).
func isReplayText(b []byte) bool {
	return len(b) <= maxFileBytes && utf8.Valid(b) && bytes.IndexByte(b, 0) < 0
}

func (r *Repo) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, r.git, append([]string{"-c", "core.quotepath=off", "-c", "diff.noprefix=false", "-c", "core.autocrlf=false"}, args...)...)
	cmd.Dir = r.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return out, nil
}
