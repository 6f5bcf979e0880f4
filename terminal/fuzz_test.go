package terminal

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/whale-ls/whale-ls/execboundary"
)

// FuzzTextFilter checks that the model text does not depend on how the
// output was split into reads, and that it stays valid once made valid.
func FuzzTextFilter(f *testing.F) {
	f.Add([]byte("\x1b[1;31mred\x1b[0m\r\nget 10%\rget 99%\n\x1b]0;t\x07ok\bK"), uint8(3))
	f.Add([]byte("café €\xff\xfe\n"), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		whole := textFilter{out: newRing(1 << 20)}
		whole.write(in)
		parts := textFilter{out: newRing(1 << 20)}
		n := int(step%16) + 1
		for i := 0; i < len(in); i += n {
			parts.write(in[i:min(i+n, len(in))])
		}
		a, _ := whole.out.since(0)
		b, _ := parts.out.since(0)
		if string(a) != string(b) || string(whole.partial()) != string(parts.partial()) {
			t.Fatalf("split by %d: %q + %q, whole: %q + %q", n, b, parts.partial(), a, whole.partial())
		}
		if s := validText(append(a, whole.partial()...)); !utf8.ValidString(s) {
			t.Fatalf("invalid text %q", s)
		}
		_ = compactText(string(a), 16, 32)
	})
}

type collectSink struct {
	mu   sync.Mutex
	data strings.Builder
	bad  string
	done chan struct{}
}

func (c *collectSink) Open(TaskInfo) {}
func (c *collectSink) Output(_ string, _ int64, data string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !utf8.ValidString(data) {
		c.bad = data
	}
	c.data.WriteString(data)
}
func (c *collectSink) Exit(string, int, string) { close(c.done) }

// FuzzStreamChunks checks that the editor stream delivers valid UTF-8 chunks
// whose concatenation is the input, however the reads were split.
func FuzzStreamChunks(f *testing.F) {
	f.Add([]byte("café costs 5€\n"), uint8(1))
	f.Add([]byte("\xe2\x82\xac\xe2\x82"), uint8(2))
	f.Add([]byte("a\xffb\xc3"), uint8(3))
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		sink := &collectSink{done: make(chan struct{})}
		s := newStream(sink, TaskInfo{ID: "t1"})
		n := int(step%8) + 1
		for i := 0; i < len(in); i += n {
			s.write(in[i:min(i+n, len(in))])
		}
		s.finish(0, "")
		<-sink.done
		if sink.bad != "" {
			t.Fatalf("invalid chunk %q", sink.bad)
		}
		if got, want := sink.data.String(), validText(in); got != want {
			t.Fatalf("stream gave %q, want %q", got, want)
		}
	})
}

// FuzzIsReadOnlyCommand checks that no input makes the classifiers panic,
// and that a command judged read-only agrees with two other views of it:
// the exec boundary's list of the programs it names (only programs on the
// read-only list, nothing it cannot judge), and a plain scan of its text
// (outside quotes and comments no expansion, no background &, and > only
// into a descriptor or /dev/null).
func FuzzIsReadOnlyCommand(f *testing.F) {
	for _, s := range []string{"ls -la", "git log --oneline", "find . -name '*.go'", "echo \"a b\"", "cat 'x", "rm -rf /",
		"ls | grep x 2>&1", "cat a && wc -l < b >/dev/null", "cat <<'EOF'\n$x\nEOF", "{ ls; } > f", "ls # x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		_ = Classify(cmd)
		if !IsReadOnlyCommand(cmd) {
			return
		}
		cl := execboundary.ParseCommandLine(cmd)
		if cl.ParseError != "" || len(cl.Unjudged) > 0 {
			t.Fatalf("IsReadOnlyCommand(%q) = true, but the exec boundary cannot judge it: %q %+v", cmd, cl.ParseError, cl.Unjudged)
		}
		for _, p := range cl.Programs {
			if _, ok := readOnlyPrograms[p.Argv[0]]; !ok || p.Via != "" {
				t.Fatalf("IsReadOnlyCommand(%q) = true, but it runs %q (via %q)", cmd, p.Argv, p.Via)
			}
		}
		if strings.Contains(cmd, "<<") {
			return // here-document bodies are text the scan cannot tell apart
		}
		text := unquotedText(cmd)
		for _, op := range []string{"&&", "|&"} {
			text = strings.ReplaceAll(text, op, " ")
		}
		text = allowedRedirections.ReplaceAllString(text, " $1")
		if expansion.MatchString(text) || strings.ContainsAny(text, "`&>") || strings.Contains(text, "<(") {
			t.Fatalf("IsReadOnlyCommand(%q) = true with metacharacters in %q", cmd, text)
		}
	})
}

// expansion is a $ that starts one (a $ before anything else is a literal).
var expansion = regexp.MustCompile(`\$[A-Za-z0-9_{(@*#?$!'-]`)

// allowedRedirections are those IsReadOnlyCommand accepts, in the text.
var allowedRedirections = regexp.MustCompile(`[0-9]*[<>]&(?:[0-9]+|-)|(?:[0-9]*|&)>>?\|?[ \t]*/dev/null([ \t\n;&|()<>]|$)`)

// unquotedText is cmd without its quoted parts, escaped characters and
// comments; a $ or backquote inside double quotes is kept.
func unquotedText(cmd string) string {
	var b strings.Builder
	wordStart := true
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == '\\':
			i++
		case c == '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				return b.String() + cmd[i:]
			}
			i += j + 1
		case c == '"':
			for i++; i < len(cmd) && cmd[i] != '"'; i++ {
				switch cmd[i] {
				case '\\':
					i++
				case '$', '`':
					b.WriteByte(cmd[i])
				}
			}
		case c == '#' && wordStart:
			for i < len(cmd) && cmd[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		default:
			b.WriteByte(c)
		}
		wordStart = strings.IndexByte(" \t\n;&|()<>", c) >= 0
	}
	return b.String()
}

func TestFilterLongLinesIndependentOfReads(t *testing.T) {
	in := []byte(strings.Repeat("é", 6000) + "\rBB\n" + strings.Repeat("\tx", 5000) + "\n")
	whole := textFilter{out: newRing(1 << 20)}
	whole.write(in)
	for _, n := range []int{1, 7, 4096} {
		parts := textFilter{out: newRing(1 << 20)}
		for i := 0; i < len(in); i += n {
			parts.write(in[i:min(i+n, len(in))])
		}
		a, _ := whole.out.since(0)
		b, _ := parts.out.since(0)
		if string(a) != string(b) || !utf8.Valid(b) {
			t.Errorf("split by %d gives %d bytes, whole gives %d", n, len(b), len(a))
		}
	}
}
