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
		{"echo \"$(vim notes)\"", true, false}, // the split took $(…) in quotes for text
		{"cat <<EOF\nless\nEOF", false, false}, // and here-document lines for commands
		{"ssh host 'uptime", true, false},      // does not parse: split
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
		{"cat a | wc", true},         // the tokenizer refused every pipeline; both sides only read
		{"wc >/dev/\x00null", false}, // a NUL byte: the parser would drop it and see /dev/null
		{"cat a > b", false},
		{"cat a &", false},
		{"ls `rm x`", false},
		{"FOO=1 ls", false},
		{"./ls", false},
		{"/bin/ls", false},
		{"rm -rf build", false},
		{"cp a b", false},
		{"ls 'unterminated", false},
		{"ls \\; rm x", true}, // one ls of the files ";", "rm" and "x": the ; is escaped
		{"go version", true},
		{"go env -w GOFLAGS=x", false},
		{"uniq in.txt out.txt", false},
		{"", false},
		// Lists, pipelines, groups: every part must read only.
		{"git status && git diff --stat", true},
		{"ls | grep x", true},
		{"ls -la; pwd\nwc -l a.go", true},
		{"test -f go.mod || echo none", true},
		{"(cd sub && ls)", false}, // cd is not on the list
		{"( ls; cat a ) | sort", true},
		{"{ ls; cat a; } | head", true},
		{"! grep -q x a", true},
		{"ls && rm x", false},
		{"ls | xargs rm", false},
		{"ls | sh", false},
		{"cat a |& grep x", true},
		{"ls & ls", false},
		// Redirections: reading, descriptors and /dev/null are fine.
		{"ls 2>&1", true},
		{"ls nowhere 2>/dev/null", true},
		{"grep -r x . >/dev/null 2>&1", true},
		{"cat a >&2", true},
		{"wc -l < main.go", true},
		{"ls 2>errors.txt", false},
		{"ls >> log", false},
		{"ls &> out", false},
		{"{ ls; } > out", false},
		{"(ls) 2>err", false},
		{"ls >&out", false}, // bash: stdout and stderr to the file out
		{"cat <> a", false},
		{"ls {fd}>&1", false},
		{"cat < /dev/tcp/example.com/80", false},
		{"ls > \"$F\"", false},
		// Here-documents and here-strings: fixed text only.
		{"cat <<'EOF'\n$(rm -rf x)\nEOF", true},
		{"cat <<EOF\nplain text\nEOF", true},
		{"cat <<EOF\n$(rm -rf x)\nEOF", false},
		{"cat <<EOF\n$HOME\nEOF", false},
		{"grep x <<< 'a x b'", true},
		{"grep x <<< \"$(id)\"", false},
		// Quotes and expansions.
		{"echo '$(rm -rf x)' \"a;b\" 'it''s'", true},
		{"grep -n \"a \\\"b\\\" c\" f", true},
		{"grep 'a|b' f", true},
		{"echo \"hi!\"", true},
		{"echo $(ls)", false},
		{"cat \"$(git ls-files)\"", false},
		{"ls ${X:=y}", false},
		{"ls <(rm x)", false},
		{"ls ~", false},
		{"ls {a,b}", false},
		{"echo $'\\x41'", false},
		{"ls @(a|b)", false},       // an extglob; zsh reads *(e:…:) as code
		{"ls *(e:'rm x':)", false}, // the same with a glob
		{"=ls", false},             // zsh: the path of ls
		{"ls # ; rm -rf x", true},  // a comment
		{"ls \\\nfoo", true},       // a continued line
		{"$CMD a", false},
		{"eval ls", false},
		{"\"ls\" -la", true},
		{"l's' -la", true},
		// Constructs beyond lists and pipelines.
		{"if true; then ls; fi", false},
		{"for f in a; do cat $f; done", false},
		{"f() { ls; }; f", false},
		{"time ls", false},
		{"[[ -f a ]] && cat a", false},
		{"export A=1; ls", false},
		{"file -C -m magic", false},
		{"file *", false}, // a file named -C would compile
		{"file main.go", true},
		{"hostname -Fname", false},
		{"hostname", true},
		{"ls (", false},        // a parse error
		{"find '\xf2'", false}, // not UTF-8: the parser refuses it
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
