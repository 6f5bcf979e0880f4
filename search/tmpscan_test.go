package search

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

var corpus [][]byte

func loadCorpus(b *testing.B) {
	if corpus != nil {
		return
	}
	filepath.Walk(filepath.Join(runtime.GOROOT(), "src"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			d, _ := os.ReadFile(p)
			corpus = append(corpus, d)
		}
		return nil
	})
}

func BenchmarkTmpScanIndex(b *testing.B) {
	loadCorpus(b)
	lit := []byte("func main")
	for b.Loop() {
		n := 0
		for _, d := range corpus {
			for i := 0; ; {
				j := bytes.Index(d[i:], lit)
				if j < 0 {
					break
				}
				n++
				i += j + 1
			}
		}
	}
}

func BenchmarkTmpScanRare(b *testing.B) {
	loadCorpus(b)
	lit := []byte("func main")
	k := 5 // 'm'
	for b.Loop() {
		n := 0
		for _, d := range corpus {
			for i := k; i < len(d); {
				j := bytes.IndexByte(d[i:], lit[k])
				if j < 0 {
					break
				}
				p := i + j - k
				if p >= 0 && p+len(lit) <= len(d) && bytes.Equal(d[p:p+len(lit)], lit) {
					n++
				}
				i += j + 1
			}
		}
	}
}

func BenchmarkTmpScanMatcher(b *testing.B) {
	loadCorpus(b)
	m, _ := compilePattern("func main", false, false)
	for b.Loop() {
		for _, d := range corpus {
			m.scan(d, false, 0, 1000)
		}
	}
}
func BenchmarkTmpScanMatcherRegex(b *testing.B) {
	loadCorpus(b)
	m, _ := compilePattern(`\b[A-Z]{3,}_[A-Z]+\b`, false, false)
	for b.Loop() {
		for _, d := range corpus {
			m.scan(d, false, 0, 1000)
		}
	}
}
