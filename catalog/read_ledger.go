package catalog

import (
	"crypto/sha256"
	"sync"
)

// ReadLedger remembers, per absolute path, what a model knows of a file:
// the hash of the content it last read or wrote (so that an edit can say
// "the file changed since you read it"), the content of its last read_file
// (so that an edit whose target has since changed can say where), and the
// hash of what whale last wrote there (so that it can say who changed it).
// Kept read contents are bounded by readKeepLimit in total, the oldest
// dropped first.
type ReadLedger struct {
	mu    sync.Mutex
	files map[string]*ledgerEntry
	kept  int    // bytes of read content kept
	seq   uint64 // read counter, for dropping the oldest content
}

type ledgerEntry struct {
	known     [sha256.Size]byte // the content the model last read or wrote
	read      []byte            // the content of its last read; nil when not kept
	readSeq   uint64
	wrote     [sha256.Size]byte // what whale last wrote
	haveWrote bool
}

const (
	// readKeepLimit bounds the read contents the ledger keeps in total.
	readKeepLimit = 64 << 20
	// readKeepFile is the largest single read content it keeps.
	readKeepFile = 8 << 20
)

func (l *ReadLedger) entry(path string) *ledgerEntry {
	if l.files == nil {
		l.files = map[string]*ledgerEntry{}
	}
	e := l.files[path]
	if e == nil {
		e = &ledgerEntry{}
		l.files[path] = e
	}
	return e
}

// Record notes that the model has just read content from path (content is
// copied when kept).
func (l *ReadLedger) Record(path string, content []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entry(path)
	e.known = sha256.Sum256(content)
	l.dropRead(e)
	if len(content) <= readKeepFile {
		l.seq++
		e.read, e.readSeq = append([]byte(nil), content...), l.seq
		l.kept += len(content)
		l.trim()
	}
}

// RecordSum is Record for a caller that hashed the content while streaming
// it; the content itself is not kept.
func (l *ReadLedger) RecordSum(path string, sum [sha256.Size]byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entry(path)
	e.known = sum
	l.dropRead(e)
}

// Wrote notes that whale wrote content to path for the model: the model
// knows it now, but its last read stays what it read.
func (l *ReadLedger) Wrote(path string, content []byte, modelKnowsIt bool) {
	sum := sha256.Sum256(content)
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entry(path)
	e.wrote, e.haveWrote = sum, true
	if modelKnowsIt {
		e.known = sum
	}
}

// ChangedSinceRead reports whether the model read path before and current
// differs from what it read or wrote last. A path never read reports false.
func (l *ReadLedger) ChangedSinceRead(path string, current []byte) bool {
	sum := sha256.Sum256(current)
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.files[path]
	return e != nil && e.known != [sha256.Size]byte{} && e.known != sum
}

// LastRead returns the content of the model's last read of path, when the
// ledger kept it.
func (l *ReadLedger) LastRead(path string) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.files[path]; e != nil {
		return e.read
	}
	return nil
}

// WhaleWrote reports whether current is exactly what whale last wrote to
// path.
func (l *ReadLedger) WhaleWrote(path string, current []byte) bool {
	sum := sha256.Sum256(current)
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.files[path]
	return e != nil && e.haveWrote && e.wrote == sum
}

func (l *ReadLedger) dropRead(e *ledgerEntry) {
	l.kept -= len(e.read)
	e.read = nil
}

// trim drops the oldest kept read contents until the total fits.
func (l *ReadLedger) trim() {
	for l.kept > readKeepLimit {
		var oldest *ledgerEntry
		for _, e := range l.files {
			if e.read != nil && (oldest == nil || e.readSeq < oldest.readSeq) {
				oldest = e
			}
		}
		if oldest == nil {
			return
		}
		l.dropRead(oldest)
	}
}
