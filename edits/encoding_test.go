package edits

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/text/encoding/simplifiedchinese"
)

func utf16Bytes(s string, big bool) []byte {
	out := []byte{0xFF, 0xFE}
	if big {
		out = []byte{0xFE, 0xFF}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if big {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

func gb(s string) []byte {
	b, err := simplifiedchinese.GB18030.NewEncoder().Bytes([]byte(s))
	if err != nil {
		panic(err)
	}
	return b
}

func TestDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		raw      []byte
		text     string
		describe string
	}{
		{"empty", nil, "", "UTF-8, none"},
		{"lf", []byte("a\nb\n"), "a\nb\n", "UTF-8, LF"},
		{"no final newline", []byte("a\nb"), "a\nb", "UTF-8, LF"},
		{"crlf", []byte("a\r\nb\r\n"), "a\nb\n", "UTF-8, CRLF"},
		{"cr", []byte("a\rb\r"), "a\nb\n", "UTF-8, CR"},
		{"mixed", []byte("a\r\nb\nc\rd"), "a\nb\nc\nd", "UTF-8, mixed line endings"},
		{"cr before crlf", []byte("a\r\r\nb"), "a\n\nb", "UTF-8, mixed line endings"},
		{"bom", []byte("\xEF\xBB\xBFx\r\n"), "x\n", "UTF-8 with BOM, CRLF"},
		{"utf16le", utf16Bytes("h\u00e9\r\n\U0001F600\r\n", false), "h\u00e9\n\U0001F600\n", "UTF-16 LE, CRLF"},
		{"utf16be", utf16Bytes("x\ny", true), "x\ny", "UTF-16 BE, LF"},
		{"gb18030", gb("你好\r\n世界\r\n"), "你好\n世界\n", "GB18030, CRLF"},
		{"form feed and escape", []byte("a\fb\x1b[0m\n"), "a\fb\x1b[0m\n", "UTF-8, LF"},
		{"latin-1", []byte("caf\xe9 au lait\n"), "café au lait\n", "ISO-8859-1, LF"},
		{"latin-1 crlf", []byte("gr\xfc\xdf dich \xa9\r\nok\r\n"), "grüß dich ©\nok\n", "ISO-8859-1, CRLF"},
		{"windows-1252", []byte("\x93caf\xe9\x94 \x80\x85\n"), "“café” €…\n", "Windows-1252, LF"},
		{"windows-1252 mixed", []byte("\x96 a\r\n\x97 b\nc"), "– a\n— b\nc", "Windows-1252, mixed line endings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Decode(tc.raw)
			if err != nil {
				t.Fatalf("Decode(%q) error: %v", tc.raw, err)
			}
			if d.Text != tc.text {
				t.Errorf("Decode(%q).Text = %q, want %q", tc.raw, d.Text, tc.text)
			}
			if got := d.Format.Describe(); got != tc.describe {
				t.Errorf("Describe() = %q, want %q", got, tc.describe)
			}
			if back := Encode(d.Format, d.Text, d.Text); !bytes.Equal(back, tc.raw) {
				t.Errorf("Encode(Decode(%q)) = %q", tc.raw, back)
			}
		})
	}
}

func TestDecodeRefusesBinary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		raw  []byte
	}{
		{"nul", []byte("ab\x00cd")},
		{"utf16 odd length", []byte{0xFF, 0xFE, 'a', 0, 'b'}},
		{"utf16 lone surrogate", []byte{0xFF, 0xFE, 0x00, 0xD8, 'a', 0}},
		{"utf16 with nul", []byte{0xFF, 0xFE, 0, 0, 'a', 0}},
		{"bom then invalid utf8", []byte("\xEF\xBB\xBF\xff\xfe")},
		{"windows-1252 undefined byte", []byte("caf\xe9 \x81\n")},
		{"mostly high bytes", []byte("\xe9\xe9\xe9\xe9\xe9 \xe9\xe9\xe9\n")},
		{"8-bit with a control byte", []byte("caf\xe9 \x02\n")},
		{"8-bit with DEL", []byte("caf\xe9 \x7f\n")},
		{"png header", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.raw)
			if CodeOf(err) != CodeBinaryFile {
				t.Errorf("Decode(%q) error = %v, want code %s", tc.raw, err, CodeBinaryFile)
			}
		})
	}
}

func TestEncodeEndings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		raw     string
		newText string
		want    string
	}{
		{"crlf new lines", "a\r\nb\r\n", "a\nx\nb\n", "a\r\nx\r\nb\r\n"},
		{"mixed keeps untouched", "a\r\nb\nc\r\n", "a\nb\nc\nd\n", "a\r\nb\nc\r\nd\r\n"},
		{"mixed replaced line takes its ending", "a\r\nb\nc\r\n", "a\nB\nc\n", "a\r\nB\nc\r\n"},
		{"mixed delete", "a\r\nb\nc\r\n", "a\nc\n", "a\r\nc\r\n"},
		{"single line file gets lf", "abc", "abc\ndef", "abc\ndef"},
		{"a CR line before an empty LF line gains the LF", "a\rb\n", "a\n\n", "a\r\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Decode([]byte(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(Encode(d.Format, d.Text, tc.newText)); got != tc.want {
				t.Errorf("Encode(%q -> %q) = %q, want %q", tc.raw, tc.newText, got, tc.want)
			}
			if back, err := Decode([]byte(tc.want)); err != nil || back.Text != tc.newText {
				t.Errorf("Decode(%q).Text = %q, %v; want the lines of %q", tc.want, back.Text, err, tc.newText)
			}
		})
	}
}

func TestNewFileFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want Ending
	}{
		{"a/run.bat", EndCRLF},
		{"RUN.CMD", EndCRLF},
		{"x.ps1", EndLF},
		{"main.go", EndLF},
		{"Makefile", EndLF},
	} {
		if got := NewFileFormat(tc.name).Style; got != tc.want {
			t.Errorf("NewFileFormat(%q).Style = %v, want %v", tc.name, got.Name(), tc.want.Name())
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	for _, s := range [][]byte{
		nil, []byte("a\r\nb\nc\rd"), []byte("\xEF\xBB\xBFx"), utf16Bytes("a\r\n\U0001F600", false),
		utf16Bytes("z\r", true), gb("中文\r\n"), []byte("\r\r\n\n\r"), []byte("caf\xe9"),
		[]byte("caf\xe9 \xa4\r\nb\n"), []byte("\x93q\x94 \x80\x85\x9f\r"), []byte("\xff \x8e\x9e\r\n"),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := Decode(raw)
		if err != nil {
			if CodeOf(err) != CodeBinaryFile {
				t.Fatalf("Decode error without code: %v", err)
			}
			return
		}
		if strings.Contains(d.Text, "\r") {
			t.Fatalf("Decode(%q).Text = %q still holds CR", raw, d.Text)
		}
		if back := Encode(d.Format, d.Text, d.Text); !bytes.Equal(back, raw) {
			t.Fatalf("Encode(Decode(%q)) = %q", raw, back)
		}
		if !isLegacy8Bit(d.Format.Encoding) {
			return
		}
		// An 8-bit guess: added ASCII is written as is after the file's
		// own bytes, and a character neither charmap has is refused.
		if err := checkEncodable(d.Format, "", d.Text, d.Text+"x"); err != nil {
			t.Fatalf("checkEncodable(%q + ASCII) = %v", raw, err)
		}
		if back := Encode(d.Format, d.Text, d.Text+"x"); !bytes.Equal(back, append(raw[:len(raw):len(raw)], 'x')) {
			t.Fatalf("Encode(Decode(%q) + \"x\") = %q", raw, back)
		}
		if err := checkEncodable(d.Format, "", d.Text, d.Text+"Ω"); CodeOf(err) != CodeEditRejected {
			t.Fatalf("checkEncodable(%q + Ω) = %v, want code %s", raw, err, CodeEditRejected)
		}
	})
}
