package workspace

import (
	"os"
	"path/filepath"
	"strings"
)

// worktreeMainCheckout returns the folder of the main checkout when dir is a
// linked git worktree (its .git is a file naming a gitdir under the main
// repository's .git/worktrees), and "" otherwise.
func worktreeMainCheckout(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, ".git"))
	if err != nil {
		return ""
	}
	line := strings.TrimSpace(string(b))
	gitdir, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return ""
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(dir, gitdir)
	}
	common := filepath.Join(gitdir, "..", "..") // <main>/.git/worktrees/<name> -> <main>/.git
	if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gitdir, cd)
		}
		common = cd
	}
	common = filepath.Clean(common)
	if filepath.Base(common) != ".git" {
		return ""
	}
	main := filepath.Dir(common)
	if fi, err := os.Stat(main); err != nil || !fi.IsDir() {
		return ""
	}
	if real, err := filepath.EvalSymlinks(main); err == nil {
		return real
	}
	return main
}
