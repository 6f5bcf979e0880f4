package catalog

import "testing"

// 8-bit files read_file decodes by guess (see TestReadFilePaging for the text).
const (
	latin1File = "/* Men\xfc du caf\xe9 */\r\nint x;\r\n"
	cp1252File = "He said \x93yes\x94 \x96 for 2 \x80.\n"
)

// TestReadFileEncodingData: data.encoding names the encoding read_file
// decoded a file from, the 8-bit guesses included.
func TestReadFileEncodingData(t *testing.T) {
	files := map[string]string{"latin1.c": latin1File, "cp1252.txt": cp1252File, "gbpair.txt": "f\xfcr", "plain.txt": "x\n"}
	want := map[string]string{"latin1.c": "iso-8859-1", "cp1252.txt": "windows-1252", "gbpair.txt": "gb18030", "plain.txt": ""}
	_, r, _ := testWorkspace(t, files, fileTools)
	for p, enc := range want {
		env := call(t, r, "read_file", map[string]any{"file_path": p})
		data, _ := env.Data.(map[string]any)
		if got, _ := data["encoding"].(string); !env.OK || got != enc {
			t.Errorf("read_file %s: ok %v, data.encoding = %q, want %q (%s)", p, env.OK, got, enc, env.Text)
		}
	}
}
