package tasks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// readmeSection is the README section that holds the table.
const readmeSection = "### What a result costs the model"

// TestReadmeTable runs the task set (whale's real tools, the peers'
// formats) and checks every byte count of the README's table against it.
// Tokens are not counted here, so that the test needs no tokenizer data:
// the same bytes make the same tokens. The shell row may differ by a few
// bytes, as its text holds how long the command took, and whale's shell
// result is not compared where the sandbox cannot apply (its first result
// then says so instead). The table was made with one Go version's source;
// under another the test skips.
func TestReadmeTable(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	table, goVersion := readmeTable(t, string(raw))
	if runtime.GOOS == "windows" {
		t.Skip("the steps run `go test` through sh")
	}
	if v := strings.TrimPrefix(runtime.Version(), "go"); v != goVersion {
		t.Skipf("the README's table was measured on Go %s's source, this is Go %s", goVersion, v)
	}
	work := t.TempDir()
	bin := filepath.Join(work, "whale-ls")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/whale-ls/whale-ls/cmd/whale-ls").CombinedOutput(); err != nil {
		t.Fatalf("build whale-ls: %v\n%s", err, out)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Run(context.Background(), Options{Whale: bin, GoSrc: filepath.Join(strings.TrimSpace(string(goroot)), "src"), Work: work, Cache: KeptCache()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(table) {
		t.Fatalf("the README's table has %d rows, the task set %d", len(table), len(rows))
	}
	for i, r := range rows {
		got := []int{len(r.Whale)}
		for _, p := range Peers {
			got = append(got, len(r.Peers[p]))
		}
		want := table[i]
		if want.task != r.Task {
			t.Errorf("row %d is %q in the README, %q in the task set", i+1, want.task, r.Task)
			continue
		}
		slack := 0
		if strings.Contains(r.Task, "go test") {
			slack = 8
			if !strings.HasPrefix(r.Whale, "[sandbox workspace-write:") {
				// The table was made where the sandbox applies; where it
				// cannot, the first result says so in other words.
				t.Logf("whale's shell result starts %q, not with the sandbox line: its size is not compared", strings.SplitN(r.Whale, "\n", 2)[0])
				got[0] = want.bytes[0]
			}
		}
		for j, n := range got {
			if d := n - want.bytes[j]; d < -slack || d > slack {
				t.Errorf("%s, %s: %d bytes, the README says %d: run `go run ./bench/tokens` and copy its table into the README", r.Task, column(j), n, want.bytes[j])
			}
		}
	}
}

func column(j int) string {
	if j == 0 {
		return "whale"
	}
	return Peers[j-1]
}

type readmeRow struct {
	task  string
	bytes []int
}

var (
	cellRE      = regexp.MustCompile(`^(\d+) / \d+$`)
	goVersionRE = regexp.MustCompile(`Go (\d+\.\d+\.\d+)`)
)

// readmeTable parses the table of readmeSection and the Go version its
// text names.
func readmeTable(t *testing.T, readme string) ([]readmeRow, string) {
	t.Helper()
	_, section, ok := strings.Cut(readme, readmeSection+"\n")
	if !ok {
		t.Fatalf("README has no section %q", readmeSection)
	}
	if i := strings.Index(section, "\n#"); i >= 0 {
		section = section[:i]
	}
	m := goVersionRE.FindStringSubmatch(section)
	if m == nil {
		t.Fatalf("README section %q names no Go version (\"Go 1.N.M\")", readmeSection)
	}
	header := Header()
	_, body, ok := strings.Cut(section, header+"\n")
	if !ok {
		t.Fatalf("README section %q has no table headed\n%s", readmeSection, header)
	}
	var rows []readmeRow
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != len(Peers)+3 {
			t.Fatalf("README table row %q has %d cells, want %d", line, len(cells), len(Peers)+3)
		}
		r := readmeRow{task: cells[0]}
		for _, c := range cells[1 : len(Peers)+2] {
			m := cellRE.FindStringSubmatch(c)
			if m == nil {
				t.Fatalf("README table cell %q is not \"bytes / tokens\"", c)
			}
			n, _ := strconv.Atoi(m[1])
			r.bytes = append(r.bytes, n)
		}
		rows = append(rows, r)
	}
	return rows, m[1]
}
