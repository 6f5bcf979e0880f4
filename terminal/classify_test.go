package terminal

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		cmd                      string
		interactive, longRunning bool
	}{
		{"go test ./...", false, false},
		{"sudo apt-get install -y jq", true, false},
		{"ssh host uptime", true, false},
		{"git push origin main", true, false},
		{"git status", false, false},
		{"git commit -m 'fix'", false, false},
		{"git commit", true, false},
		{"python3", true, false},
		{"python3 -q", true, false},
		{"python3 script.py", false, false},
		{"python3 -c 'print(1)'", false, false},
		{"node", true, false},
		{"node server.js", false, false},
		{"cd web && npm run dev", false, true},
		{"npm start", false, true},
		{"npm test", false, false},
		{"yarn dev", false, true},
		{"npx vite", false, true},
		{"vite build", false, false},
		{"python -m http.server 8000", false, true},
		{"tail -f log.txt", false, true},
		{"tail -n 20 log.txt", false, false},
		{"watch -n1 date", false, true},
		{"docker compose up", false, true},
		{"docker compose up -d", false, false},
		{"docker exec -it web sh", true, false},
		{"FOO=1 env BAR=2 nohup less README", true, false},
		{"timeout 5 psql -h db", true, false},
		{"echo 'sudo is just text'", false, false},
		{"ls | less", true, false},
		{"go run ./cmd/server", false, true},
		{"go run ./tools/gen", false, false},
		{"mysql -u root -p", true, false},
	} {
		got := Classify(tc.cmd)
		if got.Interactive != tc.interactive || got.LongRunning != tc.longRunning {
			t.Errorf("Classify(%q) = %+v, want interactive=%v longRunning=%v", tc.cmd, got, tc.interactive, tc.longRunning)
		}
	}
}

func TestIsReadOnlyCommand(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want bool
	}{
		{"ls -la", true},
		{"ls *.go", true},
		{"cat README.md", true},
		{"head -n 20 'a file.txt'", true},
		{"wc -l main.go", true},
		{"git status", true},
		{"git log --oneline -5", true},
		{"git diff HEAD~1", true},
		{"git -C sub show HEAD", true},
		{"git branch", true},
		{"git branch new-feature", false},
		{"git branch -D old", false},
		{"git push", false},
		{"git -c core.pager=sh log", false},
		{"git diff --output=out.txt", false},
		{"find . -name '*.go'", true},
		{"find . -name '*.tmp' -delete", false},
		{"find . -exec rm {} ;", false},
		{"find *", false},
		{"grep -rn TODO .", true},
		{"rg --pre ./script foo", false},
		{"sort -o out.txt in.txt", false},
		{"sort in.txt", true},
		{"date", true},
		{"date -s '2020-01-01'", false},
		{"env", true},
		{"env rm -rf x", false},
		{"echo $HOME", false},
		{"echo \"$(rm -rf x)\"", false},
		{"cat a; rm b", false},
		{"cat a | wc", false},
		{"cat a > b", false},
		{"cat a &", false},
		{"ls `rm x`", false},
		{"FOO=1 ls", false},
		{"./ls", false},
		{"/bin/ls", false},
		{"rm -rf build", false},
		{"cp a b", false},
		{"ls 'unterminated", false},
		{"ls \\; rm x", false},
		{"go version", true},
		{"go env -w GOFLAGS=x", false},
		{"uniq in.txt out.txt", false},
		{"", false},
	} {
		if got := IsReadOnlyCommand(tc.cmd); got != tc.want {
			t.Errorf("IsReadOnlyCommand(%q) = %v, want %v", tc.cmd, got, tc.want)
		}
	}
}

func TestLongRunningRulesNameEachProgramOnce(t *testing.T) {
	seen := map[string]int{}
	for i, r := range longRunningRules {
		for _, p := range strings.Fields(r.progs) {
			if j, ok := seen[p]; ok {
				t.Errorf("longRunningRules rows %d and %d both name %q; the later one hides the earlier", j, i, p)
			}
			seen[p] = i
		}
	}
	for p := range packageRunners {
		if _, ok := seen[p]; ok {
			t.Errorf("package runner %q also has a longRunningRules row, which isLongRunning never reads", p)
		}
	}
}
