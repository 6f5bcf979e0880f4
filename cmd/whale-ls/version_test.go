package main

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

func TestVersionJSON(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"version", "--json"}, strings.NewReader(""), &out, &out); code != exitOK {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	var v buildVersion
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if v.Version == "" || v.Go != runtime.Version() || v.OS != runtime.GOOS || v.Arch != runtime.GOARCH {
		t.Errorf("version --json: %+v", v)
	}
}

// TestVersionStamped: the values a release build sets with -X win over
// the toolchain's.
func TestVersionStamped(t *testing.T) {
	defer func(v, c, d string) { version, commit, date = v, c, d }(version, commit, date)
	version, commit, date = "v1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-12-06T08:00:00Z"
	var out bytes.Buffer
	run([]string{"version"}, strings.NewReader(""), &out, &out)
	if want := "whale-ls v1.2.3 (commit 0123456789ab, 2026-12-06T08:00:00Z, " + runtime.Version(); !strings.HasPrefix(out.String(), want) {
		t.Errorf("version: %q, want it to start with %q", out.String(), want)
	}
	if got := currentVersion(); got.Version != version || got.Commit != commit || got.Date != date {
		t.Errorf("currentVersion: %+v", got)
	}
}
