// Command release builds whale-ls's release files and checks them
// (`make release`, `make release-check`):
//
//	go run ./scripts/release build [-dist DIR] [-targets os/arch,…] [-vsix all|none|target,…]
//	go run ./scripts/release check [-dist DIR]
//	go run ./scripts/release twice [-targets …] [-vsix …]
//
// build writes into DIR (default dist/), for the commit checked out:
//
//   - whale-ls_VERSION_OS_ARCH.tar.gz (.zip for Windows) per target: the
//     binary, README.md and THIRD_PARTY_NOTICES.md (the license files of
//     every Go module linked in) in a folder of the same name;
//   - whale-ls_VERSION_TARGET.vsix per VS Code target, from
//     editors/vscode/scripts/package-targets.mjs with the version stamped;
//   - whale-ls_VERSION.cdx.json, a CycloneDX 1.5 SBOM of the Go modules
//     linked into the binaries (read from their build info);
//   - SHA256SUMS of all of them.
//
// The archives are reproducible: the same commit gives the same bytes
// (-trimpath, -buildid=, no cgo, the version and dates from git, entries
// sorted, owner 0, every mtime the commit's date). check verifies a
// folder: the checksums, each binary's version, commit, platform and build
// flags (`go version -m`), the archives' entries, the .vsix contents and
// the SBOM. twice builds twice into two fresh folders, checks the first
// and compares the archives and their checksums byte for byte.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

const module = "github.com/whale-ls/whale-ls"

// allTargets are the release platforms.
var allTargets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// vscodeTarget is the VS Code target of a Go platform.
var vscodeTarget = map[string]string{
	"linux/amd64": "linux-x64", "linux/arm64": "linux-arm64",
	"darwin/amd64": "darwin-x64", "darwin/arm64": "darwin-arm64",
	"windows/amd64": "win32-x64", "windows/arm64": "win32-arm64",
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "build":
		err = buildCommand(os.Args[2:])
	case "check":
		err = checkCommand(os.Args[2:])
	case "twice":
		err = twiceCommand(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: release build|check|twice [-dist DIR] [-targets os/arch,…] [-vsix all|none|target,…]")
	os.Exit(2)
}

// repoRoot is the module's folder (the current folder or a parent).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(data, []byte("module "+module+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run it inside the whale-ls module")
		}
		dir = parent
	}
}

// stamp is what a release build is of: the commit, its date, the version.
type stamp struct {
	Version string    // v1.2.3, or a Go pseudo-version
	Commit  string    // full hash
	Date    time.Time // the commit's date, UTC
	Dirty   bool
}

func git(root string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, ee.Stderr)
		}
		return "", fmt.Errorf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

var semverTag = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)$`)

// readStamp reads the commit checked out and names its version the way
// the Go toolchain stamps a module built from git: the tag vX.Y.Z on the
// commit, else a pseudo-version after the last such tag
// (vX.Y.(Z+1)-0.DATE-COMMIT12, or v0.0.0-DATE-COMMIT12 without one), with
// +dirty when tracked files differ from the commit.
func readStamp(root string) (stamp, error) {
	var s stamp
	var err error
	if s.Commit, err = git(root, "rev-parse", "HEAD"); err != nil {
		return s, err
	}
	unix, err := git(root, "log", "-1", "--format=%ct", "HEAD")
	if err != nil {
		return s, err
	}
	secs, err := strconv.ParseInt(unix, 10, 64)
	if err != nil {
		return s, fmt.Errorf("the commit's date %q: %v", unix, err)
	}
	s.Date = time.Unix(secs, 0).UTC()
	status, err := git(root, "status", "--porcelain")
	if err != nil {
		return s, err
	}
	s.Dirty = status != ""
	tags, _ := git(root, "tag", "--points-at", "HEAD", "--list", "v*")
	for _, t := range strings.Fields(tags) {
		if semverTag.MatchString(t) {
			s.Version = t
		}
	}
	if s.Version == "" {
		pseudo := s.Date.Format("20060102150405") + "-" + s.Commit[:12]
		s.Version = "v0.0.0-" + pseudo
		if last, err := git(root, "describe", "--tags", "--abbrev=0", "--match", "v[0-9]*.[0-9]*.[0-9]*", "HEAD"); err == nil {
			if m := semverTag.FindStringSubmatch(last); m != nil {
				patch, _ := strconv.Atoi(m[3])
				s.Version = fmt.Sprintf("v%s.%s.%d-0.%s", m[1], m[2], patch+1, pseudo)
			}
		}
	}
	return s, nil
}

// vsixVersion is the extension's version: VS Code wants major.minor.patch
// and takes a pre-release part; build metadata is dropped.
func (s stamp) vsixVersion() string {
	v := strings.TrimPrefix(s.Version, "v")
	v, _, _ = strings.Cut(v, "+")
	return v
}

func (s stamp) ldflags() string {
	return fmt.Sprintf("-s -w -buildid= -X main.version=%s -X main.commit=%s -X main.date=%s", s.Version, s.Commit, s.Date.Format(time.RFC3339))
}

type options struct {
	dist    string
	targets []string
	vsix    []string // VS Code targets
}

func parseOptions(name string, args []string, defaultDist string) (options, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	dist := fs.String("dist", defaultDist, "the output folder")
	targets := fs.String("targets", strings.Join(allTargets, ","), "the platforms, os/arch separated by commas")
	vsix := fs.String("vsix", "all", `the VS Code packages: "all" (one per platform built), "none", or targets such as linux-x64,win32-arm64`)
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	o := options{dist: *dist}
	for _, t := range strings.Split(*targets, ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if _, ok := vscodeTarget[t]; !ok {
			return o, fmt.Errorf("unknown target %q: the targets are %s", t, strings.Join(allTargets, ", "))
		}
		o.targets = append(o.targets, t)
	}
	switch *vsix {
	case "none", "":
	case "all":
		for _, t := range o.targets {
			o.vsix = append(o.vsix, vscodeTarget[t])
		}
	default:
		o.vsix = strings.Split(*vsix, ",")
	}
	return o, nil
}

func buildCommand(args []string) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	o, err := parseOptions("build", args, filepath.Join(root, "dist"))
	if err != nil {
		return err
	}
	return build(root, o)
}

// archiveName is the base name of a target's archive (without extension).
func archiveName(version, target string) string {
	goos, goarch, _ := strings.Cut(target, "/")
	return fmt.Sprintf("whale-ls_%s_%s_%s", version, goos, goarch)
}

func build(root string, o options) error {
	s, err := readStamp(root)
	if err != nil {
		return err
	}
	fmt.Printf("release %s (commit %s, %s)\n", s.Version, s.Commit[:12], s.Date.Format(time.RFC3339))
	if s.Dirty {
		fmt.Println("  the work tree has changes that are not committed: the release is of the commit and leaves them out")
	}
	if err := os.RemoveAll(o.dist); err != nil {
		return err
	}
	if err := os.MkdirAll(o.dist, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "whale-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	// The release is built from a clone of the commit: what is not
	// committed stays out, and the Go toolchain finds a .git folder to
	// stamp the version from (in a git worktree .git is a file, which it
	// does not read).
	src := filepath.Join(work, "src")
	if _, err := git(root, "clone", "--quiet", "--shared", "--no-checkout", root, src); err != nil {
		return err
	}
	if _, err := git(src, "-c", "advice.detachedHead=false", "checkout", "--quiet", s.Commit); err != nil {
		return err
	}
	readme, err := os.ReadFile(filepath.Join(src, "README.md"))
	if err != nil {
		return err
	}
	var infos []*buildinfo.BuildInfo
	binaries := map[string]string{}
	for _, t := range o.targets {
		bin, err := buildBinary(src, work, s, t)
		if err != nil {
			return err
		}
		bi, err := buildinfo.ReadFile(bin)
		if err != nil {
			return fmt.Errorf("%s: %v", bin, err)
		}
		infos = append(infos, bi)
		binaries[t] = bin
	}
	notices, err := thirdPartyNotices(src, infos)
	if err != nil {
		return err
	}
	for _, t := range o.targets {
		name := archiveName(s.Version, t)
		files := []archiveFile{
			{name: filepath.Base(binaries[t]), mode: 0o755, path: binaries[t]},
			{name: "README.md", mode: 0o644, data: readme},
			{name: "THIRD_PARTY_NOTICES.md", mode: 0o644, data: notices},
		}
		out := filepath.Join(o.dist, name+".tar.gz")
		if strings.HasPrefix(t, "windows/") {
			out = filepath.Join(o.dist, name+".zip")
			err = writeZip(out, name, files, s.Date)
		} else {
			err = writeTarGz(out, name, files, s.Date)
		}
		if err != nil {
			return err
		}
		fmt.Println("  " + filepath.Base(out))
	}
	sbom, err := makeSBOM(s, o.targets, infos)
	if err != nil {
		return err
	}
	sbomName := fmt.Sprintf("whale-ls_%s.cdx.json", s.Version)
	if err := os.WriteFile(filepath.Join(o.dist, sbomName), sbom, 0o644); err != nil {
		return err
	}
	fmt.Println("  " + sbomName)
	if len(o.vsix) > 0 {
		if err := buildVSIX(root, src, o, s); err != nil {
			return err
		}
	}
	if err := writeSums(o.dist); err != nil {
		return err
	}
	fmt.Println("  SHA256SUMS")
	return nil
}

// buildEnv is the environment of every release `go build`: no cgo, the
// target, modules as go.sum pins them, VCS stamping on.
func buildEnv(goos, goarch string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOFLAGS", "CGO_ENABLED", "GOOS", "GOARCH", "GOAMD64", "GOARM64", "GOEXPERIMENT":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOFLAGS=-mod=readonly -buildvcs=true")
}

func buildBinary(root, work string, s stamp, target string) (string, error) {
	goos, goarch, _ := strings.Cut(target, "/")
	exe := "whale-ls"
	if goos == "windows" {
		exe += ".exe"
	}
	out := filepath.Join(work, goos+"_"+goarch, exe)
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", s.ldflags(), "-o", out, "./cmd/whale-ls")
	cmd.Dir = root
	cmd.Env = buildEnv(goos, goarch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build for %s: %v", target, err)
	}
	return out, nil
}

// --- archives ---

type archiveFile struct {
	name string
	mode int64
	path string // read from here, or
	data []byte
}

func (f archiveFile) bytes() ([]byte, error) {
	if f.path != "" {
		return os.ReadFile(f.path)
	}
	return f.data, nil
}

func sortedFiles(files []archiveFile) []archiveFile {
	out := append([]archiveFile(nil), files...)
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// writeTarGz writes files under the folder dir: entries sorted, owned by
// 0:0 with no names, every mtime the commit's; the gzip header has no name
// and no time.
func writeTarGz(out, dir string, files []archiveFile, mtime time.Time) error {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	hdr := func(name string, mode int64, typ byte, size int64) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: mode, Size: size, ModTime: mtime, Format: tar.FormatPAX}
	}
	if err := tw.WriteHeader(hdr(dir+"/", 0o755, tar.TypeDir, 0)); err != nil {
		return err
	}
	for _, f := range sortedFiles(files) {
		data, err := f.bytes()
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(hdr(dir+"/"+f.name, f.mode, tar.TypeReg, int64(len(data)))); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// writeZip writes files under the folder dir, sorted, every mtime the
// commit's.
func writeZip(out, dir string, files []archiveFile, mtime time.Time) error {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	dh := &zip.FileHeader{Name: dir + "/", Method: zip.Store, Modified: mtime}
	dh.SetMode(fs.ModeDir | 0o755)
	if _, err := zw.CreateHeader(dh); err != nil {
		return err
	}
	for _, f := range sortedFiles(files) {
		data, err := f.bytes()
		if err != nil {
			return err
		}
		h := &zip.FileHeader{Name: dir + "/" + f.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(fs.FileMode(f.mode))
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// --- the VS Code packages ---

// buildVSIX runs editors/vscode/scripts/package-targets.mjs of the clone
// src for o's VS Code targets with the version stamped, and copies the
// packages into dist. The extension's node_modules come from the work
// tree when it has them, else from npm ci.
func buildVSIX(root, src string, o options, s stamp) error {
	ext := filepath.Join(src, "editors", "vscode")
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") == "true" {
			return errors.New("the .vsix packages need Node.js and npm")
		}
		fmt.Println("  no npm: the .vsix packages are skipped (install Node.js 20+ with npm to build them)")
		return nil
	}
	if have := filepath.Join(root, "editors", "vscode", "node_modules"); fileExists(filepath.Join(have, "@vscode", "vsce")) {
		if err := os.Symlink(have, filepath.Join(ext, "node_modules")); err != nil {
			return err
		}
	} else {
		ci := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
		ci.Dir, ci.Stdout, ci.Stderr = ext, os.Stderr, os.Stderr
		if err := ci.Run(); err != nil {
			return fmt.Errorf("npm ci in editors/vscode: %v", err)
		}
	}
	cmd := exec.Command("node", append([]string{"scripts/package-targets.mjs", "--check"}, o.vsix...)...)
	cmd.Dir = ext
	cmd.Env = append(buildEnv(runtime.GOOS, runtime.GOARCH), "WHALE_VERSION="+s.vsixVersion(), "WHALE_LDFLAGS="+s.ldflags())
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("package-targets.mjs: %v", err)
	}
	for _, t := range o.vsix {
		src := filepath.Join(ext, "dist", "whale-ls-"+t+".vsix")
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("whale-ls_%s_%s.vsix", s.Version, t)
		if err := os.WriteFile(filepath.Join(o.dist, name), data, 0o644); err != nil {
			return err
		}
		fmt.Println("  " + name)
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// --- notices and SBOM ---

// modules is the union of the modules linked into the binaries, with the
// targets each is in.
type linkedModule struct {
	Path, Version, Sum string
	Targets            []string
}

func linkedModules(infos []*buildinfo.BuildInfo) []*linkedModule {
	byKey := map[string]*linkedModule{}
	for _, bi := range infos {
		target := ""
		for _, s := range bi.Settings {
			if s.Key == "GOOS" {
				target = s.Value + target
			}
			if s.Key == "GOARCH" {
				target += "/" + s.Value
			}
		}
		for _, d := range bi.Deps {
			if d.Replace != nil {
				d = d.Replace
			}
			key := d.Path + "@" + d.Version
			m := byKey[key]
			if m == nil {
				m = &linkedModule{Path: d.Path, Version: d.Version, Sum: d.Sum}
				byKey[key] = m
			}
			m.Targets = append(m.Targets, target)
		}
	}
	var out []*linkedModule
	for _, m := range byKey {
		sort.Strings(m.Targets)
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

var licenseFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice|patents)(\..*)?$`)

// thirdPartyNotices collects the license files of every module linked in,
// from the module cache.
func thirdPartyNotices(root string, infos []*buildinfo.BuildInfo) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# Third-party notices\n\nwhale-ls links in the Go modules below (and the Go standard library, under Go's BSD-style license).\nEach one's license files follow, as its module holds them.\n")
	for _, m := range linkedModules(infos) {
		cmd := exec.Command("go", "mod", "download", "-json", m.Path+"@"+m.Version)
		cmd.Dir = root
		cmd.Env = buildEnv(runtime.GOOS, runtime.GOARCH)
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go mod download %s@%s: %v", m.Path, m.Version, err)
		}
		var info struct{ Dir string }
		if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
			return nil, fmt.Errorf("go mod download %s@%s: no folder (%v)", m.Path, m.Version, err)
		}
		entries, err := os.ReadDir(info.Dir)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "\n## %s %s\n", m.Path, m.Version)
		found := false
		for _, e := range entries {
			if e.IsDir() || !licenseFile.MatchString(e.Name()) {
				continue
			}
			data, err := os.ReadFile(filepath.Join(info.Dir, e.Name()))
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "\n### %s\n\n```\n%s\n```\n", e.Name(), strings.TrimRight(string(data), "\n"))
			found = true
		}
		if !found {
			b.WriteString("\n(The module has no license file at its root.)\n")
		}
	}
	return b.Bytes(), nil
}

// makeSBOM writes a CycloneDX 1.5 SBOM of the Go modules linked into the
// binaries. Its serial number and timestamp come from the commit, so that
// it is reproducible too.
func makeSBOM(s stamp, targets []string, infos []*buildinfo.BuildInfo) ([]byte, error) {
	type property struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	type component struct {
		Type       string     `json:"type"`
		BOMRef     string     `json:"bom-ref"`
		Name       string     `json:"name"`
		Version    string     `json:"version"`
		PURL       string     `json:"purl"`
		Properties []property `json:"properties,omitempty"`
	}
	type dependency struct {
		Ref       string   `json:"ref"`
		DependsOn []string `json:"dependsOn"`
	}
	purl := func(path, version string) string {
		return "pkg:golang/" + path + "@" + version
	}
	sum := sha256.Sum256([]byte(s.Commit + " " + s.Version))
	serial := hex.EncodeToString(sum[:16])
	serial = fmt.Sprintf("urn:uuid:%s-%s-5%s-8%s-%s", serial[0:8], serial[8:12], serial[13:16], serial[17:20], serial[20:32])
	mainRef := purl(module, s.Version)
	main := component{Type: "application", BOMRef: mainRef, Name: "whale-ls", Version: s.Version, PURL: mainRef,
		Properties: []property{{"whale-ls:commit", s.Commit}, {"whale-ls:targets", strings.Join(targets, " ")}}}
	var comps []component
	var refs []string
	goVersion := ""
	for _, bi := range infos {
		goVersion = bi.GoVersion
	}
	for _, m := range linkedModules(infos) {
		ref := purl(m.Path, m.Version)
		c := component{Type: "library", BOMRef: ref, Name: m.Path, Version: m.Version, PURL: ref,
			Properties: []property{{"go:targets", strings.Join(m.Targets, " ")}}}
		if m.Sum != "" {
			c.Properties = append(c.Properties, property{"go:sum", m.Sum})
		}
		comps = append(comps, c)
		refs = append(refs, ref)
	}
	bom := map[string]any{
		"bomFormat":    "CycloneDX",
		"specVersion":  "1.5",
		"serialNumber": serial,
		"version":      1,
		"metadata": map[string]any{
			"timestamp": s.Date.Format(time.RFC3339),
			"tools": map[string]any{"components": []component{{Type: "application", BOMRef: "whale-ls-release", Name: "whale-ls scripts/release",
				Version: s.Version, PURL: purl(module, s.Version) + "#scripts/release"}}},
			"component":  main,
			"properties": []property{{"go:version", goVersion}},
		},
		"components":   comps,
		"dependencies": []dependency{{Ref: mainRef, DependsOn: refs}},
	}
	data, err := json.MarshalIndent(bom, "", "  ")
	return append(data, '\n'), err
}

// writeSums writes SHA256SUMS for every other file in dist.
func writeSums(dist string) error {
	entries, err := os.ReadDir(dist)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, e := range entries {
		if e.IsDir() || e.Name() == "SHA256SUMS" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dist, e.Name()))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), e.Name())
	}
	return os.WriteFile(filepath.Join(dist, "SHA256SUMS"), []byte(b.String()), 0o644)
}

// --- checks ---

func checkCommand(args []string) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	o, err := parseOptions("check", args, filepath.Join(root, "dist"))
	if err != nil {
		return err
	}
	s, err := readStamp(root)
	if err != nil {
		return err
	}
	return check(o.dist, s)
}

// check verifies a dist folder built from the commit s.
func check(dist string, s stamp) error {
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	// Every file is listed in SHA256SUMS with its hash, and every listed
	// file is there.
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		return err
	}
	if !bytes.Contains(sums, []byte("whale-ls_"+s.Version)) {
		return fmt.Errorf("%s holds no release of the commit checked out (%s, %s): run make release again", dist, s.Commit[:12], s.Version)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		hash, name, ok := strings.Cut(line, "  ")
		if !ok {
			report("SHA256SUMS: a line not of the form HASH  NAME: %q", line)
			continue
		}
		listed[name] = true
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			report("SHA256SUMS lists %s: %v", name, err)
			continue
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != hash {
			report("%s: its SHA-256 is not the one in SHA256SUMS", name)
		}
	}
	entries, err := os.ReadDir(dist)
	if err != nil {
		return err
	}
	archives, vsixes := 0, 0
	for _, e := range entries {
		name := e.Name()
		if name == "SHA256SUMS" {
			continue
		}
		if !listed[name] {
			report("%s is not in SHA256SUMS", name)
		}
		path := filepath.Join(dist, name)
		switch {
		case strings.HasSuffix(name, ".tar.gz"), strings.HasSuffix(name, ".zip"):
			archives++
			checkArchive(path, s, report)
		case strings.HasSuffix(name, ".vsix"):
			vsixes++
			checkVSIX(path, s, report)
		case strings.HasSuffix(name, ".cdx.json"):
			checkSBOM(path, s, report)
		default:
			report("%s: a file release does not make", name)
		}
	}
	if archives == 0 {
		report("no archive in %s", dist)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s:\n- %s", dist, strings.Join(problems, "\n- "))
	}
	fmt.Printf("checked %s: %d archives, %d .vsix, SBOM and SHA256SUMS of %s (%s)\n", dist, archives, vsixes, s.Version, s.Commit[:12])
	return nil
}

var archiveRE = regexp.MustCompile(`^whale-ls_(.+)_(linux|darwin|windows)_(amd64|arm64)\.(tar\.gz|zip)$`)

func checkArchive(path string, s stamp, report func(string, ...any)) {
	name := filepath.Base(path)
	m := archiveRE.FindStringSubmatch(name)
	if m == nil {
		report("%s: not named whale-ls_VERSION_OS_ARCH.tar.gz/.zip", name)
		return
	}
	if m[1] != s.Version {
		report("%s: version %s, want %s", name, m[1], s.Version)
	}
	goos, goarch := m[2], m[3]
	if (goos == "windows") != (m[4] == "zip") {
		report("%s: Windows archives are .zip, the others .tar.gz", name)
	}
	dir := strings.TrimSuffix(strings.TrimSuffix(name, ".tar.gz"), ".zip")
	exe := "whale-ls"
	if goos == "windows" {
		exe += ".exe"
	}
	files, err := readArchive(path, s.Date, report)
	if err != nil {
		report("%s: %v", name, err)
		return
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	want := []string{dir + "/", dir + "/README.md", dir + "/THIRD_PARTY_NOTICES.md", dir + "/" + exe}
	sort.Strings(want)
	if strings.Join(names, " ") != strings.Join(want, " ") {
		report("%s holds %v, want %v", name, names, want)
		return
	}
	bin, err := os.CreateTemp("", "whale-ls-check-")
	if err != nil {
		report("%v", err)
		return
	}
	defer os.Remove(bin.Name())
	bin.Write(files[dir+"/"+exe])
	bin.Close()
	checkBinary(name+": "+exe, bin.Name(), s, goos, goarch, report)
	if goos == runtime.GOOS && goarch == runtime.GOARCH {
		// The host's own binary runs: `whale-ls version --json`.
		os.Chmod(bin.Name(), 0o755)
		out, err := exec.Command(bin.Name(), "version", "--json").Output()
		var v struct{ Version, Commit, Date string }
		if err == nil {
			err = json.Unmarshal(out, &v)
		}
		if err != nil || v.Version != s.Version || v.Commit != s.Commit || v.Date != s.Date.Format(time.RFC3339) {
			report("%s: `whale-ls version --json` says %s (%v), want version %s, commit %s, date %s", name, out, err, s.Version, s.Commit, s.Date.Format(time.RFC3339))
		}
	}
	if readme, err := git(".", "show", s.Commit+":README.md"); err != nil || strings.TrimSpace(string(files[dir+"/README.md"])) != readme {
		report("%s: README.md is not the commit's (%v)", name, err)
	}
	if !bytes.Contains(files[dir+"/THIRD_PARTY_NOTICES.md"], []byte("## github.com/modelcontextprotocol/go-sdk ")) {
		report("%s: THIRD_PARTY_NOTICES.md lacks the modules' licenses", name)
	}
}

// readArchive returns an archive's entries by name and checks what makes
// it reproducible: sorted entries, owner 0, the commit's date.
func readArchive(path string, mtime time.Time, report func(string, ...any)) (map[string][]byte, error) {
	name := filepath.Base(path)
	files := map[string][]byte{}
	var order []string
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		for _, f := range zr.File {
			if !f.Modified.Equal(mtime) {
				report("%s: %s has the date %s, want the commit's %s", name, f.Name, f.Modified, mtime)
			}
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return nil, err
			}
			files[f.Name] = data
			order = append(order, f.Name)
		}
	} else {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		gz, err := gzip.NewReader(fh)
		if err != nil {
			return nil, err
		}
		if !gz.ModTime.IsZero() || gz.Name != "" {
			report("%s: the gzip header has a name or a time", name)
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
				report("%s: %s is owned by %d:%d (%s:%s), want 0:0", name, h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
			}
			if !h.ModTime.Equal(mtime) {
				report("%s: %s has the date %s, want the commit's %s", name, h.Name, h.ModTime, mtime)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				return nil, err
			}
			files[h.Name] = data
			order = append(order, h.Name)
		}
	}
	if !sort.StringsAreSorted(order) {
		report("%s: the entries are not sorted: %v", name, order)
	}
	return files, nil
}

// checkBinary reads a binary's build info (`go version -m`) and checks
// its version (the toolchain's stamp from git, and the -X values release
// sets, which -trimpath keeps out of the build info but which are in the
// binary), commit, platform and release build flags.
func checkBinary(what, path string, s stamp, goos, goarch string, report func(string, ...any)) {
	out, err := exec.Command("go", "version", "-m", path).Output()
	if err != nil {
		report("%s: go version -m: %v", what, err)
		return
	}
	info := string(out)
	var missing []string
	for _, want := range []string{
		"\tpath\t" + module + "/cmd/whale-ls\n",
		"\tmod\t" + module + "\t" + s.Version + "\t",
		"\tbuild\tGOOS=" + goos + "\n",
		"\tbuild\tGOARCH=" + goarch + "\n",
		"\tbuild\tCGO_ENABLED=0\n",
		"\tbuild\t-trimpath=true\n",
		"\tbuild\tvcs.revision=" + s.Commit + "\n",
		"\tbuild\tvcs.time=" + s.Date.Format(time.RFC3339) + "\n",
		"\tbuild\tvcs.modified=false\n",
	} {
		if !strings.Contains(info, want) {
			missing = append(missing, strings.TrimSpace(want))
		}
	}
	if len(missing) > 0 {
		report("%s: `go version -m` lacks %q; it says:\n%s", what, missing, info)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		report("%s: %v", what, err)
		return
	}
	for _, want := range []string{s.Version, s.Commit, s.Date.Format(time.RFC3339)} {
		if !bytes.Contains(data, []byte(want)) {
			report("%s: the binary does not hold %q (-X main.version, main.commit, main.date)", what, want)
		}
	}
}

func checkVSIX(path string, s stamp, report func(string, ...any)) {
	name := filepath.Base(path)
	m := regexp.MustCompile(`^whale-ls_(.+)_(linux|darwin|win32)-(x64|arm64)\.vsix$`).FindStringSubmatch(name)
	if m == nil {
		report("%s: not named whale-ls_VERSION_TARGET.vsix", name)
		return
	}
	target := m[2] + "-" + m[3]
	goos := map[string]string{"linux": "linux", "darwin": "darwin", "win32": "windows"}[m[2]]
	goarch := map[string]string{"x64": "amd64", "arm64": "arm64"}[m[3]]
	zr, err := zip.OpenReader(path)
	if err != nil {
		report("%s: %v", name, err)
		return
	}
	defer zr.Close()
	read := func(n string) []byte {
		for _, f := range zr.File {
			if f.Name == n {
				rc, err := f.Open()
				if err != nil {
					return nil
				}
				defer rc.Close()
				data, _ := io.ReadAll(rc)
				return data
			}
		}
		return nil
	}
	var pkg struct{ Version, Name string }
	if err := json.Unmarshal(read("extension/package.json"), &pkg); err != nil || pkg.Version != s.vsixVersion() {
		report("%s: extension/package.json has version %q (%v), want %s", name, pkg.Version, err, s.vsixVersion())
	}
	manifest := string(read("extension.vsixmanifest"))
	if !strings.Contains(manifest, `TargetPlatform="`+target+`"`) || !strings.Contains(manifest, `Version="`+s.vsixVersion()+`"`) {
		report("%s: the manifest does not name target %s and version %s", name, target, s.vsixVersion())
	}
	exe := "whale-ls"
	if goos == "windows" {
		exe += ".exe"
	}
	bin := read("extension/bin/" + exe)
	if bin == nil {
		report("%s: no extension/bin/%s", name, exe)
		return
	}
	if !bytes.Contains(read("extension/bin/target.json"), []byte(`"`+target+`"`)) {
		report("%s: extension/bin/target.json does not name %s", name, target)
	}
	tmp, err := os.CreateTemp("", "whale-vsix-bin-")
	if err != nil {
		report("%v", err)
		return
	}
	defer os.Remove(tmp.Name())
	tmp.Write(bin)
	tmp.Close()
	checkBinary(name+": "+exe, tmp.Name(), s, goos, goarch, report)
}

func checkSBOM(path string, s stamp, report func(string, ...any)) {
	name := filepath.Base(path)
	data, err := os.ReadFile(path)
	if err != nil {
		report("%s: %v", name, err)
		return
	}
	var bom struct {
		BOMFormat    string `json:"bomFormat"`
		SpecVersion  string `json:"specVersion"`
		SerialNumber string `json:"serialNumber"`
		Metadata     struct {
			Component struct{ Name, Version string }
		}
		Components []struct {
			Type, Name, Version, PURL string
		}
	}
	if err := json.Unmarshal(data, &bom); err != nil {
		report("%s: %v", name, err)
		return
	}
	if bom.BOMFormat != "CycloneDX" || bom.SpecVersion != "1.5" || !strings.HasPrefix(bom.SerialNumber, "urn:uuid:") {
		report("%s: not a CycloneDX 1.5 document", name)
	}
	if bom.Metadata.Component.Name != "whale-ls" || bom.Metadata.Component.Version != s.Version {
		report("%s: describes %s %s, want whale-ls %s", name, bom.Metadata.Component.Name, bom.Metadata.Component.Version, s.Version)
	}
	// Modules go.mod requires directly are there, at go.mod's version.
	gomodText, _ := git(".", "show", s.Commit+":go.mod")
	gomod := []byte(gomodText)
	have := map[string]string{}
	for _, c := range bom.Components {
		have[c.Name] = c.Version
		if c.PURL != "pkg:golang/"+c.Name+"@"+c.Version {
			report("%s: %s has the purl %s", name, c.Name, c.PURL)
		}
	}
	for _, req := range []string{"github.com/modelcontextprotocol/go-sdk", "mvdan.cc/sh/v3", "golang.org/x/sys"} {
		m := regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(req) + ` (\S+)`).FindSubmatch(gomod)
		if m == nil {
			continue
		}
		if have[req] != string(m[1]) {
			report("%s: %s is at %q, go.mod requires %s", name, req, have[req], m[1])
		}
	}
}

// --- twice ---

// twiceCommand builds the release twice into fresh folders, checks the
// first, and compares the archives, SBOM and their checksums byte for
// byte.
func twiceCommand(args []string) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	o, err := parseOptions("twice", args, "")
	if err != nil {
		return err
	}
	base, err := os.MkdirTemp("", "whale-release-twice-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(base)
	a, b := o, o
	a.dist, b.dist = filepath.Join(base, "a"), filepath.Join(base, "b")
	if err := build(root, a); err != nil {
		return err
	}
	// The second build gets the .vsix too only when asked: the archives
	// are what must be identical.
	b.vsix = nil
	if err := build(root, b); err != nil {
		return err
	}
	s, err := readStamp(root)
	if err != nil {
		return err
	}
	if err := check(a.dist, s); err != nil {
		return err
	}
	entries, err := os.ReadDir(b.dist)
	if err != nil {
		return err
	}
	compared := 0
	for _, e := range entries {
		if e.Name() == "SHA256SUMS" {
			continue
		}
		x, err1 := os.ReadFile(filepath.Join(a.dist, e.Name()))
		y, err2 := os.ReadFile(filepath.Join(b.dist, e.Name()))
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%s: %v %v", e.Name(), err1, err2)
		}
		if !bytes.Equal(x, y) {
			return fmt.Errorf("two builds of %s gave different %s", s.Commit[:12], e.Name())
		}
		compared++
	}
	// Their lines of SHA256SUMS agree too.
	sumsA, _ := os.ReadFile(filepath.Join(a.dist, "SHA256SUMS"))
	sumsB, _ := os.ReadFile(filepath.Join(b.dist, "SHA256SUMS"))
	for _, line := range strings.Split(strings.TrimSpace(string(sumsB)), "\n") {
		if !strings.Contains(string(sumsA), line+"\n") {
			return fmt.Errorf("SHA256SUMS differ between the two builds: %q", line)
		}
	}
	fmt.Printf("reproducible: two builds of %s gave identical %d files\n", s.Commit[:12], compared)
	return nil
}
