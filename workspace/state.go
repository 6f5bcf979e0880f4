package workspace

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"path/filepath"
	"sort"
	"strings"

	"github.com/whale-ls/whale-ls/internal/userdir"
)

// StateDir is the folder where whale-ls keeps what outlives a session for
// the workspace whose roots have these real paths (the todo list, the
// journal of changes): <ID> in userdir.State(). It is not created here.
func StateDir(roots []string) (string, error) {
	home, err := userdir.State()
	if err != nil {
		return "", err
	}
	id, err := ID(roots)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, id), nil
}

// ID names the state folder of the workspace whose roots have these real
// paths: the first root's base name and a hash of all of them.
func ID(roots []string) (string, error) {
	if len(roots) == 0 {
		return "", errors.New("no workspace folder is open")
	}
	reals := append([]string(nil), roots...)
	base := filepath.Base(reals[0])
	sort.Strings(reals)
	sum := sha256.Sum256([]byte(strings.Join(reals, "\n")))
	clean := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, base)
	if len(clean) > 40 {
		clean = clean[:40]
	}
	return clean + "-" + hex.EncodeToString(sum[:8]), nil
}
