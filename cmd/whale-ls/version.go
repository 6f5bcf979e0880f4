package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// Set at build time by `make release` (scripts/release) with
// -ldflags "-X main.version=… -X main.commit=… -X main.date=…".
var (
	version = ""
	commit  = ""
	date    = ""
)

// buildVersion is what `whale-ls version` reports.
type buildVersion struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Date     string `json:"date,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

// currentVersion reads the version stamped by the release build, else
// what the Go toolchain recorded: the module's version (a tag, or a
// pseudo-version from the commit, +dirty for a modified tree) and the
// commit and its date.
func currentVersion() buildVersion {
	v := buildVersion{Version: version, Commit: commit, Date: date, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		if v.Version == "" {
			v.Version = "devel"
		}
		return v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if v.Commit == "" {
				v.Commit = s.Value
			}
		case "vcs.time":
			if v.Date == "" {
				v.Date = s.Value
			}
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	if v.Version == "" {
		v.Version = bi.Main.Version
		if v.Version == "" || v.Version == "(devel)" {
			v.Version = "devel"
			if len(v.Commit) >= 12 {
				v.Version = "devel-" + v.Commit[:12]
			}
		}
	}
	return v
}

func versionString() string { return currentVersion().Version }

// versionCommand is `whale-ls version [--json]`.
func versionCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the version, commit, date, Go version and platform as JSON")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	v := currentVersion()
	if *asJSON {
		data, _ := json.MarshalIndent(v, "", "  ")
		fmt.Fprintln(stdout, string(data))
		return exitOK
	}
	line := "whale-ls " + v.Version
	var extra []string
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if v.Modified {
			c += ", modified"
		}
		extra = append(extra, "commit "+c)
	}
	if v.Date != "" {
		extra = append(extra, v.Date)
	}
	extra = append(extra, v.Go, v.OS+"/"+v.Arch)
	fmt.Fprintf(stdout, "%s (%s)\n", line, strings.Join(extra, ", "))
	return exitOK
}
