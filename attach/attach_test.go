package attach

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/whale-ls/whale-ls/toolbridge"
)

type echoService struct{}

func (echoService) Specs() []toolbridge.Spec {
	return []toolbridge.Spec{{Name: "echo", InputSchema: toolbridge.Object(nil, nil)}}
}

func (echoService) Dispatch(_ context.Context, c toolbridge.Call) toolbridge.Envelope {
	return toolbridge.Envelope{OK: true, Code: "ok", Text: c.Name + " " + string(c.Input)}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestListenAndDial(t *testing.T) {
	dir, root := t.TempDir(), t.TempDir()
	l, err := Listen([]string{root}, echoService{}, ListenOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	disc := filepath.Join(dir, Key(root)+".json")
	for _, p := range []string{disc, l.ln.Addr().String()} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %v, %v; want 0600", p, fi.Mode(), err)
		}
	}
	sub := filepath.Join(root, "sub", "dir")
	os.MkdirAll(sub, 0o755)
	c, err := Dial(ctx(t), sub, dir) // a subfolder finds its workspace's server
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	env, err := c.Call(ctx(t), "echo", json.RawMessage(`{"a":1}`))
	if err != nil || env.Text != `echo {"a":1}` {
		t.Fatalf("Call = %+v, %v", env, err)
	}
	l.ToolsChanged()
	select {
	case <-c.Changed():
	case <-time.After(10 * time.Second):
		t.Fatal("no tools-changed signal")
	}
	l.Close()
	if _, err := os.Stat(disc); !os.IsNotExist(err) {
		t.Errorf("discovery file left after Close: %v", err)
	}
	if _, err := Dial(ctx(t), root, dir); err == nil {
		t.Errorf("Dial after Close succeeded")
	}
}

// TestStatus: whale/status answers what ListenOptions.Status says, and an
// empty list of file indexes without it.
func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		status func() Status
		want   []string
	}{
		{func() Status { return Status{FileIndexes: []string{"file index of /x ready"}} }, []string{"file index of /x ready"}},
		{nil, []string{}},
	} {
		dir, root := t.TempDir(), t.TempDir()
		l, err := Listen([]string{root}, echoService{}, ListenOptions{Dir: dir, Status: tc.status})
		if err != nil {
			t.Fatal(err)
		}
		c, err := Dial(ctx(t), root, dir)
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Status(ctx(t))
		if err != nil || !slices.Equal(st.FileIndexes, tc.want) || st.FileIndexes == nil {
			t.Errorf("Status() = %#v, %v; want file indexes %q", st, err, tc.want)
		}
		c.Close()
		l.Close()
	}
}

// TestAnotherUserIsRefused simulates a peer of another user: the listener
// accepts only a user id that is not ours.
func TestAnotherUserIsRefused(t *testing.T) {
	dir, root := t.TempDir(), t.TempDir()
	other := os.Getuid() + 1
	l, err := Listen([]string{root}, echoService{}, ListenOptions{Dir: dir, AllowUID: &other})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = Dial(ctx(t), root, dir)
	if err == nil {
		t.Fatal("a peer with the wrong user id was served")
	}
	if !strings.Contains(err.Error(), "no whale-ls language server") {
		t.Logf("refusal: %v", err)
	}
}

func TestDirIsPrivate(t *testing.T) {
	base := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", base)
	os.MkdirAll(filepath.Join(base, "whale-ls"), 0o755)
	d, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
		t.Fatalf("attach folder mode %v, want 0700", fi.Mode().Perm())
	}
}
