package execboundary

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Decision is what the policy says about one exec. Larger is stricter.
type Decision int

// Decisions, from the most permissive to the strictest.
const (
	Allow Decision = iota
	Ask
	Deny
)

// String returns "allow", "ask" or "deny".
func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("decision(%d)", int(d))
}

// MarshalJSON writes the decision as its word.
func (d Decision) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads "allow", "ask" or "deny".
func (d *Decision) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("decision must be a string: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "allow":
		*d = Allow
	case "ask":
		*d = Ask
	case "deny":
		*d = Deny
	default:
		return fmt.Errorf("decision %q is not one of allow, ask, deny", s)
	}
	return nil
}

// Rule is one entry of execBoundary.rules.
type Rule struct {
	// Program is a name ("rm", globs allowed: "mkfs*") or an absolute path
	// ("/usr/bin/rm"). A name matches the basename of the resolved program,
	// of the path it was executed by, or of argv[0]; a path matches the
	// resolved program's real path. Deny and ask rules also match files with
	// the same identity (device and inode) or the same content (SHA-256) as
	// the named program, so hard links, symlinks and copies match too.
	Program string `json:"program"`
	// ArgsPrefix, when set, must match argv[1:] element by element from the
	// start; each element is a glob (* matches any text, ? one character,
	// [...] a class).
	ArgsPrefix []string `json:"argsPrefix,omitempty"`
	// ArgsAny, when set, requires at least one element of argv[1:] to match
	// one of these globs, wherever it stands ("-*r*" for a recursive rm).
	ArgsAny  []string `json:"argsAny,omitempty"`
	Decision Decision `json:"decision"`
	// Why says in plain words what the programs the rule matches do, for
	// the person asked ("deletes files recursively or by force"); it
	// completes a sentence whose subject is the command. Optional.
	Why string `json:"why,omitempty"`
}

// String renders the rule for notes, prompts and the audit log.
func (r Rule) String() string {
	var b strings.Builder
	b.WriteString(r.Program)
	for _, a := range r.ArgsPrefix {
		b.WriteString(" " + a)
	}
	if len(r.ArgsAny) > 0 {
		b.WriteString(" [any of: " + strings.Join(r.ArgsAny, ", ") + "]")
	}
	b.WriteString(" → " + r.Decision.String())
	return b.String()
}

// DefaultRules is the shipped rule set, used when the settings give no
// rules: ask before privilege changes, raw disk writes, power changes,
// publishing, and recursive or forced deletes.
func DefaultRules() []Rule {
	ask := func(program string, any ...string) Rule {
		return Rule{Program: program, ArgsAny: any, Decision: Ask}
	}
	return []Rule{
		ask("sudo"), ask("su"), ask("doas"), ask("pkexec"),
		ask("dd"), ask("mkfs*"),
		ask("shutdown"), ask("reboot"), ask("poweroff"), ask("halt"),
		ask("git", "push"),
		ask("npm", "publish"),
		ask("rm", "-*[rRf]*", "--recursive", "--force"),
	}
}

// defaultWhy is the Why of the default rules (kept out of DefaultRules so
// that the settings' default value stays as users copy it): what the
// programs they ask about do, for the person asked. A user's rule that
// equals a default rule gets its words too.
func defaultWhy(r Rule) string {
	if len(r.ArgsPrefix) > 0 {
		return ""
	}
	key := r.Program + " " + strings.Join(r.ArgsAny, " ")
	switch key {
	case "sudo ", "su ", "doas ", "pkexec ":
		return "runs a program as another user (such as root)"
	case "dd ", "mkfs* ":
		return "writes to disks directly or formats them"
	case "shutdown ", "reboot ", "poweroff ", "halt ":
		return "turns the machine off or restarts it"
	case "git push":
		return "publishes commits to another repository"
	case "npm publish":
		return "publishes a package"
	case "rm -*[rRf]* --recursive --force":
		return "deletes files recursively or without asking"
	}
	return ""
}

// Words names, in plain words for the person asked, the exec of argv that
// the rule matched: the program, the arguments that made the rule match,
// and what such a command does when the rule says (Why), e.g. "`rm` with
// `-rf` deletes files recursively or without asking". Without a Why it
// says what the rule does: "your execBoundary.rules ask about `git` with
// `commit`". Globs and rule syntax are never shown.
func (r Rule) Words(argv []string) string {
	name := r.Program
	if len(argv) > 0 && argv[0] != "" {
		name = filepath.Base(argv[0])
	}
	var args []string
	if len(argv) > 1 {
		args = argv[1:]
	}
	var shown []string
	for i := range r.ArgsPrefix {
		if i < len(args) {
			shown = append(shown, args[i])
		}
	}
	if len(r.ArgsAny) > 0 {
	find:
		for _, a := range args[min(len(r.ArgsPrefix), len(args)):] {
			for _, g := range r.ArgsAny {
				if re, err := globRegexp(g); err == nil && re.MatchString(a) {
					shown = append(shown, a)
					break find
				}
			}
		}
	}
	subject := "`" + name + "`"
	if len(shown) > 0 {
		subject += " with `" + strings.Join(shown, " ") + "`"
	}
	why := r.Why
	if why == "" {
		why = defaultWhy(r)
	}
	if why != "" {
		return subject + " " + why
	}
	verb := "allow"
	switch r.Decision {
	case Ask:
		verb = "ask about"
	case Deny:
		verb = "refuse"
	}
	return "your execBoundary.rules " + verb + " " + subject
}

// ParseRules decodes execBoundary.rules. Empty input (no setting) yields
// DefaultRules; an empty array yields no rules (everything allowed).
func ParseRules(raw json.RawMessage) ([]Rule, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return DefaultRules(), nil
	}
	var rules []Rule
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rules); err != nil {
		return nil, fmt.Errorf("execBoundary.rules must be an array of {program, argsPrefix?, argsAny?, decision}: %w", err)
	}
	for i, r := range rules {
		if strings.TrimSpace(r.Program) == "" {
			return nil, fmt.Errorf("execBoundary.rules[%d] has no program", i)
		}
		if strings.Contains(r.Program, "/") && !filepath.IsAbs(r.Program) {
			return nil, fmt.Errorf("execBoundary.rules[%d].program %q must be a name or an absolute path", i, r.Program)
		}
		for _, g := range append(append([]string(nil), r.ArgsPrefix...), r.ArgsAny...) {
			if _, err := globRegexp(g); err != nil {
				return nil, fmt.Errorf("execBoundary.rules[%d]: %w", i, err)
			}
		}
	}
	return rules, nil
}

// Program is an executable as the gate resolved it.
type Program struct {
	// Path is the real path of the file the kernel loads ("/usr/bin/rm");
	// for a memfd or a deleted file it is what the kernel calls it
	// ("/memfd:x (deleted)").
	Path string
	// Given is the path as passed to execve ("rm", "./x", "/bin/rm").
	Given string
	// Dev and Ino identify the file; zero when unknown.
	Dev, Ino uint64
	// Size and ModNs (mtime) key the content-hash cache.
	Size, ModNs, ChangeNs int64
	// open reopens the file for hashing; nil when it cannot be read.
	open func() (*os.File, error)
}

// Anonymous reports whether the program has no name on disk: a memfd or a
// deleted file.
func (p Program) Anonymous() bool {
	return strings.HasPrefix(p.Path, "/memfd:") || strings.HasSuffix(p.Path, " (deleted)") || !strings.HasPrefix(p.Path, "/")
}

// ProgramFromPath describes an executable file of this process's view by
// path, for tests and tools that judge a program outside a gate.
func ProgramFromPath(given string) (Program, error) {
	real, err := filepath.EvalSymlinks(given)
	if err != nil {
		return Program{}, err
	}
	real, _ = filepath.Abs(real)
	fi, err := os.Stat(real)
	if err != nil {
		return Program{}, err
	}
	p := Program{Path: real, Given: given, Size: fi.Size(), ModNs: fi.ModTime().UnixNano()}
	if dev, ino, changeNs, ok := statIdentity(fi); ok {
		p.Dev, p.Ino, p.ChangeNs = dev, ino, changeNs
	}
	p.open = func() (*os.File, error) { return os.Open(real) }
	return p, nil
}

// Verdict is the policy's answer for one exec.
type Verdict struct {
	Decision Decision
	// Rule is the strictest matching rule; nil when none matched.
	Rule *Rule
	// Reason explains a decision that no rule made (an anonymous program).
	Reason string
}

// RuleText names the rule for notes and the audit log.
func (v Verdict) RuleText() string {
	switch {
	case v.Rule != nil:
		return v.Rule.String()
	case v.Reason != "":
		return v.Reason
	}
	return "no rule"
}

// Words says in plain words why the policy decided as it did about argv
// (Rule.Words, or the reason no rule gave), "" when nothing matched.
func (v Verdict) Words(argv []string) string {
	switch {
	case v.Rule != nil:
		return v.Rule.Words(argv)
	case v.Reason != "":
		return v.Reason
	}
	return ""
}

// stricter returns the stricter of two verdicts (the first on a tie).
func stricter(a, b Verdict) Verdict {
	if b.Decision > a.Decision {
		return b
	}
	return a
}

// Policy is a compiled rule set. It is safe for concurrent use.
type Policy struct {
	rules    []compiledRule
	hashSize map[int64]bool // sizes of every deny/ask target, to skip hashing
	hashes   *hashCache
}

type compiledRule struct {
	Rule
	name       string // name glob, or "" for a path rule
	nameRe     *regexp.Regexp
	realPath   string // for a path rule: the named path's real path
	prefix     []*regexp.Regexp
	anyOf      []*regexp.Regexp
	identities map[[2]uint64]bool // deny/ask: dev+ino of the named program(s)
	digests    map[[32]byte]bool  // deny/ask: their content hashes
}

// searchDirs are the folders a name rule's program is looked for in, for
// identity and hash matching, besides the server's PATH.
var searchDirs = []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}

// maxHashSize bounds the files the policy hashes.
const maxHashSize = 256 << 20

// NewPolicy compiles rules. For deny and ask rules it finds the named
// programs (the absolute path, or every file of that name in PATH and the
// usual system folders) and records their identity and content hash.
func NewPolicy(rules []Rule) (*Policy, error) {
	p := &Policy{hashSize: map[int64]bool{}, hashes: newHashCache()}
	dirs := append(filepath.SplitList(os.Getenv("PATH")), searchDirs...)
	for i, r := range rules {
		c := compiledRule{Rule: r, identities: map[[2]uint64]bool{}, digests: map[[32]byte]bool{}}
		var targets []string
		if filepath.IsAbs(r.Program) {
			c.realPath = filepath.Clean(r.Program)
			if rp, err := filepath.EvalSymlinks(r.Program); err == nil {
				c.realPath = rp
			}
			targets = []string{r.Program}
		} else {
			c.name = r.Program
			re, err := globRegexp(r.Program)
			if err != nil {
				return nil, fmt.Errorf("rule %d: %w", i, err)
			}
			c.nameRe = re
			if r.Decision > Allow {
				targets = findNamed(dirs, r.Program)
			}
		}
		for _, g := range r.ArgsPrefix {
			re, err := globRegexp(g)
			if err != nil {
				return nil, fmt.Errorf("rule %d: %w", i, err)
			}
			c.prefix = append(c.prefix, re)
		}
		for _, g := range r.ArgsAny {
			re, err := globRegexp(g)
			if err != nil {
				return nil, fmt.Errorf("rule %d: %w", i, err)
			}
			c.anyOf = append(c.anyOf, re)
		}
		if r.Decision > Allow {
			for _, t := range targets {
				p.addTarget(&c, t)
			}
		}
		p.rules = append(p.rules, c)
	}
	return p, nil
}

// findNamed returns the files called name (a glob) in dirs.
func findNamed(dirs []string, name string) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(d, name))
		for _, m := range matches {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// addTarget records the identity and hash of a named program. A symlink to
// a file of another name (a multi-call binary such as busybox or systemctl
// installed as "shutdown") is skipped: its identity is shared with every
// other program it provides, so it is matched by name only.
func (p *Policy) addTarget(c *compiledRule, path string) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return
	}
	if c.name != "" && !c.nameRe.MatchString(filepath.Base(real)) {
		return
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	dev, ino, changeNs, ok := statIdentity(fi)
	if ok {
		c.identities[[2]uint64{dev, ino}] = true
	}
	if fi.Size() > maxHashSize {
		return
	}
	prog := Program{Path: real, Dev: dev, Ino: ino, Size: fi.Size(), ModNs: fi.ModTime().UnixNano(), ChangeNs: changeNs}
	prog.open = func() (*os.File, error) { return os.Open(real) }
	if sum, ok := p.hashes.sum(prog); ok {
		c.digests[sum] = true
		p.hashSize[fi.Size()] = true
	}
}

// Decide judges one program with its argv (argv[0] included).
func (p *Policy) Decide(prog Program, argv []string) Verdict {
	v := Verdict{Decision: Allow}
	if p == nil {
		return v
	}
	names := candidateNames(prog, argv)
	var digest *[32]byte
	digestDone := false
	for i := range p.rules {
		c := &p.rules[i]
		if c.Decision <= v.Decision && v.Rule != nil {
			continue
		}
		if !c.argsMatch(argv) {
			continue
		}
		matched := false
		if c.name != "" {
			for _, n := range names {
				if c.nameRe.MatchString(n) {
					matched = true
					break
				}
			}
		} else if prog.Path == c.realPath || filepath.Clean(prog.Given) == filepath.Clean(c.Program) {
			matched = true
		}
		if !matched && c.Decision > Allow {
			if prog.Ino != 0 && c.identities[[2]uint64{prog.Dev, prog.Ino}] {
				matched = true
			} else if len(c.digests) > 0 && p.hashSize[prog.Size] {
				if !digestDone {
					digestDone = true
					if sum, ok := p.hashes.sum(prog); ok {
						digest = &sum
					}
				}
				matched = digest != nil && c.digests[*digest]
			}
		}
		if matched {
			v = stricter(v, Verdict{Decision: c.Decision, Rule: &c.Rule})
			if v.Rule == nil {
				v.Rule = &c.Rule
			}
		}
	}
	return v
}

// HasArgRules reports whether any deny or ask rule looks at arguments, so
// that a change of argv could change a decision.
func (p *Policy) HasArgRules() bool {
	if p == nil {
		return false
	}
	for _, c := range p.rules {
		if c.Decision > Allow && (len(c.prefix) > 0 || len(c.anyOf) > 0) {
			return true
		}
	}
	return false
}

func (c *compiledRule) argsMatch(argv []string) bool {
	var args []string
	if len(argv) > 1 {
		args = argv[1:]
	}
	if len(c.prefix) > len(args) {
		return false
	}
	for i, re := range c.prefix {
		if !re.MatchString(args[i]) {
			return false
		}
	}
	if len(c.anyOf) > 0 {
		for _, a := range args {
			for _, re := range c.anyOf {
				if re.MatchString(a) {
					return true
				}
			}
		}
		return false
	}
	return true
}

// candidateNames are the names a program goes by: the resolved file's, the
// executed path's, and argv[0]'s (a multi-call binary such as busybox acts
// by argv[0]; "busybox rm" by argv[1]).
func candidateNames(prog Program, argv []string) []string {
	names := []string{filepath.Base(prog.Path)}
	if prog.Given != "" {
		names = append(names, filepath.Base(prog.Given))
	}
	if len(argv) > 0 && argv[0] != "" {
		a0 := filepath.Base(strings.TrimLeft(argv[0], "-"))
		names = append(names, a0)
		if isMultiCall(a0) || isMultiCall(filepath.Base(prog.Path)) {
			if len(argv) > 1 && !strings.HasPrefix(argv[1], "-") {
				names = append(names, filepath.Base(argv[1]))
			}
		}
	}
	return names
}

func isMultiCall(name string) bool {
	switch name {
	case "busybox", "toybox", "box64", "coreutils", "busybox.static", "toybox.static":
		return true
	}
	return false
}

// globRegexp compiles a glob where * matches any text (slashes included),
// ? one character and [...] a class.
func globRegexp(g string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch ch := g[i]; ch {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := strings.IndexByte(g[i+1:], ']')
			if j < 0 {
				return nil, fmt.Errorf("glob %q has an unclosed [", g)
			}
			class := g[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		case '\\':
			if i+1 < len(g) {
				i++
				b.WriteString(regexp.QuoteMeta(string(g[i])))
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(ch)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("glob %q: %w", g, err)
	}
	return re, nil
}

// hashCache remembers content hashes by file identity and times.
type hashCache struct {
	mu sync.Mutex
	m  map[hashKey][32]byte
}

type hashKey struct {
	dev, ino            uint64
	size, mod, changeNs int64
}

func newHashCache() *hashCache { return &hashCache{m: map[hashKey][32]byte{}} }

func (h *hashCache) sum(p Program) ([32]byte, bool) {
	key := hashKey{p.Dev, p.Ino, p.Size, p.ModNs, p.ChangeNs}
	cacheable := p.Ino != 0 && !p.Anonymous()
	if cacheable {
		h.mu.Lock()
		s, ok := h.m[key]
		h.mu.Unlock()
		if ok {
			return s, true
		}
	}
	if p.open == nil || p.Size > maxHashSize {
		return [32]byte{}, false
	}
	f, err := p.open()
	if err != nil {
		return [32]byte{}, false
	}
	defer f.Close()
	d := sha256.New()
	if _, err := io.Copy(d, io.LimitReader(f, maxHashSize+1)); err != nil {
		return [32]byte{}, false
	}
	var s [32]byte
	copy(s[:], d.Sum(nil))
	if cacheable {
		h.mu.Lock()
		if len(h.m) > 4096 {
			clear(h.m)
		}
		h.m[key] = s
		h.mu.Unlock()
	}
	return s, true
}
