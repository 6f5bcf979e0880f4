package workspace

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// stateHome is $XDG_STATE_HOME, or ~/.local/state.
func stateHome() (string, error) {
	if x := os.Getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return x, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state folder: XDG_STATE_HOME is not set and %w", err)
	}
	return filepath.Join(home, ".local", "state"), nil
}

// StateDir is the folder where whale-ls keeps what outlives a session for
// the workspace whose roots have these real paths (the todo list, the
// journal of changes): $XDG_STATE_HOME/whale-ls/<ID>, or under
// ~/.local/state. It is not created here.
func StateDir(roots []string) (string, error) {
	home, err := stateHome()
	if err != nil {
		return "", err
	}
	id, err := ID(roots)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "whale-ls", id), nil
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
