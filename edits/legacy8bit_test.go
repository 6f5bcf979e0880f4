package edits

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

func TestCheckEncodable(t *testing.T) {
	t.Parallel()
	latin1 := Format{Encoding: Latin1, Style: EndLF}
	cp1252 := Format{Encoding: Windows1252, Style: EndLF}
	for _, tc := range []struct {
		name     string
		f        Format
		old, new string
		missing  string // "" when the text is accepted
	}{
		{"ascii added", latin1, "café\n", "café noir\n", ""},
		{"character the file has", latin1, "café\n", "café\nthé\n", ""},
		{"character the file lacks", latin1, "café\n", "café\nnaïve\n", `"ï" U+00EF`},
		{"not in latin-1", latin1, "café\n", "café 5 €\n", `"€" U+20AC`},
		{"1252 character the file has", cp1252, "“a” €\n", "“b” €\n", ""},
		{"1252 character the file lacks", cp1252, "“a”\n", "‘a’\n", `"‘" U+2018, "’" U+2019`},
		{"each missing character named once", cp1252, "a\n", "ü ü ü\n", `("ü" U+00FC)`},
		{"long list cut", cp1252, "a\n", "àáâãäåæç\n", `… 3 more`},
		{"utf-8 takes everything", Format{Encoding: UTF8}, "a\n", "✓\n", ""},
		{"gb18030 takes everything", Format{Encoding: GB18030}, "a\n", "✓\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkEncodable(tc.f, "", tc.old, tc.new)
			if tc.missing == "" {
				if err != nil {
					t.Errorf("checkEncodable(%q -> %q) = %v, want nil", tc.old, tc.new, err)
				}
				return
			}
			if CodeOf(err) != CodeEditRejected || !strings.Contains(err.Error(), tc.missing) {
				t.Errorf("checkEncodable(%q -> %q) = %v, want code %s naming %s", tc.old, tc.new, err, CodeEditRejected, tc.missing)
			}
		})
	}
}

// TestLegacyGoldenFormats checks that the legacy8bit_* golden cases really
// exercise the encoding their name says, not GB18030, which Decode tries first.
func TestLegacyGoldenFormats(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/legacy8bit_*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no legacy8bit golden cases (%v)", err)
	}
	for _, file := range files {
		want := Latin1
		if strings.Contains(file, "cp1252") {
			want = Windows1252
		}
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if !strings.HasPrefix(f.Name, "escaped old/") {
				continue
			}
			d, err := Decode(unescapeGolden(t, f.Data))
			if err != nil || d.Format.Encoding != want {
				t.Errorf("%s: %s decodes as %q (%v), want %q", file, f.Name, d.Format.Encoding, err, want)
			}
		}
	}
}
