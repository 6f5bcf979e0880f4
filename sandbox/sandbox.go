package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Mode is shell.sandbox: where a task may write.
type Mode string

// The modes of shell.sandbox.
const (
	// Off confines no writes.
	Off Mode = "off"
	// WorkspaceWrite allows writes in the workspace, the temp folders, the
	// toolchains' caches and shell.writableRoots.
	WorkspaceWrite Mode = "workspace-write"
	// ReadOnly allows writes in the temp folders and shell.writableRoots.
	ReadOnly Mode = "read-only"
)

// Network is shell.network: what a task may reach.
type Network string

// The values of shell.network.
const (
	// NetOn leaves the network alone.
	NetOn Network = "on"
	// NetLoopback runs the task in a network namespace with only its own
	// loopback interface.
	NetLoopback Network = "loopback"
	// NetOff runs the task in a network namespace with no interface up.
	NetOff Network = "off"
)

// Defaults of shell.sandbox and shell.network: confined writes protect the
// user's files without breaking what a build does; the network stays on
// because package managers and tests need it.
const (
	DefaultMode    = WorkspaceWrite
	DefaultNetwork = NetOn
)

// Root is one folder a confined task may write in.
type Root struct {
	Path string `json:"path"`
	// Why names the folder for people: "workspace", "temp folder",
	// "Go build cache", "shell.writableRoots".
	Why string `json:"why"`
	// Cache marks a toolchain's cache: what a task changes there is not
	// journaled, so it is watched instead (WatchCaches).
	Cache bool `json:"cache,omitempty"`
}

// Policy is what one task is confined to. Its JSON form is what the helper
// receives.
type Policy struct {
	Mode    Mode    `json:"mode"`
	Network Network `json:"network"`
	// Writable are the folders writes are allowed in (Mode not Off).
	Writable []Root `json:"writable,omitempty"`
	// Skipped are shell.writableRoots entries that do not exist.
	Skipped []string `json:"-"`
	// HostNet is the server's network namespace (the inode of
	// /proc/self/ns/net), so that the helper can check that it left it.
	HostNet uint64 `json:"hostNet,omitempty"`
	// HostMnt is the server's mount namespace: the helper changes mounts
	// only in a namespace of the task's own, never in this one.
	HostMnt uint64 `json:"hostMnt,omitempty"`
	// ReadOnly are paths inside Writable that stay read-only: the files
	// git runs code from (.git/hooks, .git/config), so that a task cannot
	// plant code the user's next git command would run outside the
	// sandbox.
	ReadOnly []string `json:"readOnly,omitempty"`
	// ModuleCaches are Go module caches among Writable whose modules, as
	// they are when the task starts, stay read-only to it: a task adds new
	// modules (a download) but cannot change one the user's later builds
	// outside the sandbox use, which Go does not check again once the
	// module is extracted.
	ModuleCaches []string `json:"moduleCaches,omitempty"`
	// Hidden are folders the task does not see at all (an empty read-only
	// folder in their place): whale's runtime folder, with its lock files
	// and sockets, so that a task can neither hold whale's locks nor reach
	// its servers.
	Hidden []string `json:"hidden,omitempty"`
}

// Options are what Plan builds a Policy from.
type Options struct {
	// Mode and Network are the settings' values; empty means the default.
	Mode, Network string
	// Workspace are the workspace folders (real paths).
	Workspace []string
	// Extra is shell.writableRoots: absolute paths or ~/….
	Extra []string
	// Env is the task's environment, where temp and cache folders are
	// looked up; nil means this process's.
	Env []string
	// Temp, when not nil, replaces the temp folders (/tmp, /var/tmp,
	// /dev/shm and $TMPDIR); tests use it to have a folder outside them.
	Temp []string
	// NoCaches leaves out the toolchains' caches (tests).
	NoCaches bool
	// DryRun creates no missing cache folder and lists it anyway (for
	// `whale-ls settings`).
	DryRun bool
	// GitWritable lets tasks write the workspace's .git/hooks and
	// .git/config (shell.gitWritable).
	GitWritable bool
	// Hide are folders to hide from the task (Policy.Hidden).
	Hide []string
}

// gitProtected are the paths, relative to a workspace folder, that git
// runs code from or reads what to run from.
var gitProtected = []string{".git/hooks", ".git/config"}

// Caches are the toolchains' caches among the folders p lets a task write.
func (p Policy) Caches() []Root {
	var out []Root
	for _, r := range p.Writable {
		if r.Cache {
			out = append(out, r)
		}
	}
	return out
}

// Active reports whether p confines anything.
func (p Policy) Active() bool { return p.Mode != Off || p.Network != NetOn }

// ParseMode checks a shell.sandbox value; empty is the default.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return DefaultMode, nil
	case Off, WorkspaceWrite, ReadOnly:
		return m, nil
	}
	return "", fmt.Errorf("shell.sandbox %q is not one of off, workspace-write, read-only", s)
}

// ParseNetwork checks a shell.network value; empty is the default.
func ParseNetwork(s string) (Network, error) {
	switch n := Network(strings.ToLower(strings.TrimSpace(s))); n {
	case "":
		return DefaultNetwork, nil
	case NetOn, NetLoopback, NetOff:
		return n, nil
	}
	return "", fmt.Errorf("shell.network %q is not one of on, loopback, off", s)
}

// Plan builds the policy of a task from the settings. Cache folders of the
// toolchains found on PATH that do not exist yet are created (the toolchain
// would create them on first use, and a rule needs an existing folder).
func Plan(o Options) (Policy, error) {
	mode, err := ParseMode(o.Mode)
	if err != nil {
		return Policy{}, err
	}
	network, err := ParseNetwork(o.Network)
	if err != nil {
		return Policy{}, err
	}
	p := Policy{Mode: mode, Network: network, HostNet: hostNet(), HostMnt: hostMnt()}
	if mode == Off {
		return p, nil
	}
	for _, h := range o.Hide {
		if filepath.IsAbs(h) {
			p.Hidden = append(p.Hidden, filepath.Clean(h))
		}
	}
	env := envMap(o.Env)
	home := env["HOME"]
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	seen := map[string]bool{}
	add := func(path, why string, cache bool) {
		if path == "" || !filepath.IsAbs(path) {
			return
		}
		path = filepath.Clean(path)
		if seen[path] {
			return
		}
		if _, err := os.Stat(path); err != nil && !o.DryRun {
			return
		}
		seen[path] = true
		p.Writable = append(p.Writable, Root{Path: path, Why: why, Cache: cache})
	}
	if mode == WorkspaceWrite {
		for _, w := range o.Workspace {
			add(w, "workspace", false)
			for _, rel := range gitProtected {
				path := filepath.Join(w, rel)
				if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink == 0 && !o.GitWritable {
					p.ReadOnly = append(p.ReadOnly, path)
				}
			}
		}
	}
	temp := o.Temp
	if temp == nil {
		temp = []string{"/tmp", "/var/tmp", "/dev/shm", env["TMPDIR"]}
	}
	for _, t := range temp {
		add(t, "temp folder", false)
	}
	if mode == WorkspaceWrite && !o.NoCaches {
		for _, c := range toolCaches(env, home) {
			if _, err := os.Stat(c.Path); err != nil && !o.DryRun {
				// 0700 as the XDG base directories ask; a toolchain that
				// wants other modes sets them on what it creates inside.
				if os.MkdirAll(c.Path, 0o700) != nil {
					continue
				}
			}
			add(c.Path, c.Why, true)
			if c.Why == goModuleCache {
				p.ModuleCaches = append(p.ModuleCaches, c.Path)
			}
		}
	}
	for _, e := range o.Extra {
		path := e
		if rest, ok := strings.CutPrefix(e, "~/"); ok && home != "" {
			path = filepath.Join(home, rest)
		}
		if !filepath.IsAbs(path) {
			p.Skipped = append(p.Skipped, e+" (not an absolute path)")
			continue
		}
		if _, err := os.Stat(path); err != nil {
			p.Skipped = append(p.Skipped, e+" (does not exist)")
			continue
		}
		add(path, "shell.writableRoots", false)
	}
	return p, nil
}

// The reasons given for the caches whose entries WatchCaches tells apart.
const (
	goModuleCache = "Go module cache"
	goBuildCache  = "Go build cache"
	npmCache      = "npm cache"
)

// cacheRoot is a cache folder and what it is for people.
type cacheRoot struct{ Path, Why string }

// toolCaches lists the per-user caches of the toolchains found on PATH, and
// the user's cache folder.
func toolCaches(env map[string]string, home string) []cacheRoot {
	found := func(names ...string) bool {
		for _, n := range names {
			if lookPath(n, env["PATH"]) {
				return true
			}
		}
		return false
	}
	or := func(v, def string) string {
		if v != "" {
			return v
		}
		return def
	}
	var roots []cacheRoot
	cache := or(env["XDG_CACHE_HOME"], filepath.Join(home, ".cache"))
	if home != "" || env["XDG_CACHE_HOME"] != "" {
		roots = append(roots, cacheRoot{cache, "user cache folder (pip, yarn, pnpm and others)"})
	}
	if home == "" {
		return roots
	}
	if found("go") {
		roots = append(roots, cacheRoot{or(env["GOCACHE"], filepath.Join(cache, "go-build")), goBuildCache})
		gopath := filepath.Join(home, "go")
		if g := env["GOPATH"]; g != "" {
			gopath = filepath.SplitList(g)[0]
		}
		roots = append(roots, cacheRoot{or(env["GOMODCACHE"], filepath.Join(gopath, "pkg", "mod")), goModuleCache})
	}
	if found("npm", "npx") {
		roots = append(roots, cacheRoot{or(env["npm_config_cache"], or(env["NPM_CONFIG_CACHE"], filepath.Join(home, ".npm"))), npmCache})
	}
	if found("yarn") {
		roots = append(roots, cacheRoot{or(env["YARN_CACHE_FOLDER"], filepath.Join(cache, "yarn")), "yarn cache"})
		roots = append(roots, cacheRoot{filepath.Join(home, ".yarn"), "yarn folder"})
	}
	if found("pnpm") {
		roots = append(roots, cacheRoot{or(env["PNPM_HOME"], filepath.Join(home, ".local", "share", "pnpm")), "pnpm store"})
	}
	if found("pip", "pip3") {
		roots = append(roots, cacheRoot{or(env["PIP_CACHE_DIR"], filepath.Join(cache, "pip")), "pip cache"})
	}
	if found("cargo") {
		cargo := or(env["CARGO_HOME"], filepath.Join(home, ".cargo"))
		roots = append(roots, cacheRoot{filepath.Join(cargo, "registry"), "cargo registry"}, cacheRoot{filepath.Join(cargo, "git"), "cargo git checkouts"})
	}
	return roots
}

// lookPath reports whether name is an executable in one of path's folders
// (the task's PATH, not the server's, decides which toolchains are there).
func lookPath(name, path string) bool {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}

func envMap(env []string) map[string]string {
	if env == nil {
		env = os.Environ()
	}
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v // later entries override earlier ones, as exec does
		}
	}
	return m
}

// Spec is p in the form the helper's --confine flag takes.
func (p Policy) Spec() string {
	b, _ := json.Marshal(p)
	return string(b)
}

// ParseSpec reads a Spec.
func ParseSpec(spec string) (Policy, error) {
	var p Policy
	if err := json.Unmarshal([]byte(spec), &p); err != nil {
		return Policy{}, fmt.Errorf("read the sandbox policy: %w", err)
	}
	if _, err := ParseMode(string(p.Mode)); err != nil || p.Mode == "" {
		return Policy{}, errors.New("the sandbox policy has no valid mode")
	}
	if _, err := ParseNetwork(string(p.Network)); err != nil || p.Network == "" {
		return Policy{}, errors.New("the sandbox policy has no valid network setting")
	}
	return p, nil
}

// Describe is the sentence that tells the model (and `whale-ls settings`)
// what a task may do under p.
func (p Policy) Describe() string {
	var b strings.Builder
	switch p.Mode {
	case Off:
		b.WriteString("sandbox off: writes are not confined")
	default:
		fmt.Fprintf(&b, "sandbox %s: writes allowed only in ", p.Mode)
		var parts []string
		for _, r := range p.Writable {
			why := r.Why
			if why == "workspace" {
				why = "workspace, .git included"
			}
			parts = append(parts, fmt.Sprintf("%s (%s)", r.Path, why))
		}
		b.WriteString(strings.Join(parts, ", "))
	}
	switch p.Network {
	case NetOn:
		b.WriteString("; network on")
	case NetLoopback:
		b.WriteString("; network loopback (only servers this task starts on 127.0.0.1/::1 are reachable)")
	case NetOff:
		b.WriteString("; network off (Unix sockets still work)")
	}
	if len(p.Skipped) > 0 {
		b.WriteString("; shell.writableRoots skipped: " + strings.Join(p.Skipped, ", "))
	}
	return b.String()
}

// allows reports whether path lies in one of p's writable folders.
func (p Policy) allows(path string) bool {
	for _, r := range p.Writable {
		if path == r.Path || strings.HasPrefix(path, strings.TrimSuffix(r.Path, "/")+"/") {
			return true
		}
	}
	return false
}
