package changes

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The log (dir/log) is the journal's one growing file: blobs, entries and
// the commits and aborts of entries, appended as records. A record is
//
//	"whl\x01" | n (uint32, big endian) | CRC-32C of the n bytes | n bytes
//
// where the n bytes are a type byte and the payload. Records are appended
// with one write under the file lock, so a reader sees a record whole or, at
// the end of the log while it is being written or after a crash mid-write,
// not at all. The first record of a log is its header.
const (
	logName    = "log"
	logVersion = 1
	frameSize  = 12
	// maxRecord bounds a record's declared length, so that a damaged length
	// is not taken for a huge record.
	maxRecord = 1 << 30
	// largeBlob is the compressed size above which a blob is a file of its
	// own under blobs/ rather than a record of the log, so that compaction
	// does not copy it.
	largeBlob = 512 << 10
	// maxDeltaDepth bounds the chain of deltas a blob read follows.
	maxDeltaDepth = 16
)

var (
	frameMagic = []byte{'w', 'h', 'l', 1}
	crcTable   = crc32.MakeTable(crc32.Castagnoli)
)

// Record types.
const (
	recHeader    = 'H' // JSON logHeader
	recBlob      = 'B' // SHA-256 (32 bytes) | stored at, Unix ns (8) | compressed content
	recLarge     = 'L' // SHA-256 (32) | stored at (8) | compressed size (8); the content is blobs/<id[:2]>/<id[2:]>
	recDelta     = 'D' // SHA-256 (32) | stored at (8) | base SHA-256 (32) | prefix (8) | suffix (8) | compressed middle: the content is base[:prefix] + middle + base[len-suffix:]
	recBegin     = 'E' // JSON pendingFile: an entry begun, pending until its commit or abort record
	recPublished = 'P' // JSON pendingFile: a committed entry (compaction writes these)
	recCommit    = 'C' // an entry id: the entry is committed
	recAbort     = 'A' // an entry id: the entry is void
)

// logHeader is the first record of a log: what compaction must carry over
// from the records it drops.
type logHeader struct {
	Version int    `json:"version"`
	Dropped int    `json:"dropped"`        // entries dropped by the size bound, ever
	Last    string `json:"last,omitempty"` // the newest id given out
}

// appendFrame appends a record of type typ whose payload is parts, joined.
func appendFrame(buf []byte, typ byte, parts ...[]byte) []byte {
	n := 1
	for _, p := range parts {
		n += len(p)
	}
	start := len(buf)
	buf = append(buf, frameMagic...)
	buf = binary.BigEndian.AppendUint32(buf, uint32(n))
	buf = append(buf, 0, 0, 0, 0, typ)
	for _, p := range parts {
		buf = append(buf, p...)
	}
	binary.BigEndian.PutUint32(buf[start+8:], crc32.Checksum(buf[start+frameSize:], crcTable))
	return buf
}

// blobPrefix is the start of a blob or large-blob record's payload.
func blobPrefix(id string, stored int64) []byte {
	sum, _ := hex.DecodeString(id)
	return binary.BigEndian.AppendUint64(sum, uint64(stored))
}

// blobLoc is where the log keeps a blob.
type blobLoc struct {
	off    int64 // where its compressed bytes start in the log; -1: a file under blobs/
	size   int64 // its compressed size
	record int64 // the size of its record
	stored int64 // when it was stored (Unix ns)
	// base, for a delta, is the blob whose prefix and suffix bytes frame
	// the stored middle; depth counts the deltas down to a whole blob.
	base           string
	prefix, suffix int64
	depth          int
}

type entryState uint8

const (
	statePending entryState = iota
	stateCommitted
	stateAborted
)

type entryRec struct {
	pf     pendingFile
	state  entryState
	record int64 // the size of its records (begin, commit or abort)
}

// logView is what a Journal has read of the log, up to end.
type logView struct {
	info      fs.FileInfo // of the log file open as Journal.logf
	end       int64
	dropped   int
	last      string
	blobs     map[string]blobLoc
	blobOrder []string // in log order
	entries   map[string]*entryRec
	ids       []string // entries in log order, which is id order
	large     int64    // compressed size of the blobs under blobs/
	dead      int64    // bytes of records compaction would drop, as far as counted
}

func newLogView(info fs.FileInfo) *logView {
	return &logView{info: info, blobs: map[string]blobLoc{}, entries: map[string]*entryRec{}}
}

// apply adds the record of type typ and payload p, which starts at off and
// takes size bytes, to the view.
func (v *logView) apply(typ byte, p []byte, off, size int64) error {
	switch typ {
	case recHeader:
		var h logHeader
		if err := json.Unmarshal(p, &h); err != nil {
			return err
		}
		v.dropped = h.Dropped
		v.last = max(v.last, h.Last)
	case recBlob, recLarge, recDelta:
		if len(p) < 40 || typ == recLarge && len(p) != 48 || typ == recDelta && len(p) < 88 {
			return errors.New("short blob record")
		}
		id := hex.EncodeToString(p[:32])
		if _, ok := v.blobs[id]; ok {
			v.dead += size
			return nil
		}
		loc := blobLoc{off: off + frameSize + 1 + 40, size: int64(len(p) - 40), record: size, stored: int64(binary.BigEndian.Uint64(p[32:40]))}
		switch typ {
		case recLarge:
			loc.off, loc.size = -1, int64(binary.BigEndian.Uint64(p[40:48]))
			v.large += loc.size
		case recDelta:
			loc.base = hex.EncodeToString(p[40:72])
			loc.prefix, loc.suffix = int64(binary.BigEndian.Uint64(p[72:80])), int64(binary.BigEndian.Uint64(p[80:88]))
			loc.off, loc.size = off+frameSize+1+88, int64(len(p)-88)
			loc.depth = maxDeltaDepth // a missing base: no delta on top of it
			if b, ok := v.blobs[loc.base]; ok {
				loc.depth = b.depth + 1
			}
		}
		v.blobs[id] = loc
		v.blobOrder = append(v.blobOrder, id)
	case recBegin, recPublished:
		var pf pendingFile
		if err := json.Unmarshal(p, &pf); err != nil {
			return err
		}
		if !validID(pf.Entry.ID) {
			return fmt.Errorf("entry id %q", pf.Entry.ID)
		}
		v.addEntry(pf, typ == recPublished, size)
	case recCommit, recAbort:
		e := v.entries[string(p)]
		if e == nil || e.state != statePending {
			v.dead += size
			return nil
		}
		e.record += size
		if typ == recCommit {
			e.state = stateCommitted
			return nil
		}
		e.state = stateAborted
		v.dead += e.record
		for _, b := range e.pf.Added {
			if loc, ok := v.blobs[b]; ok && loc.off >= 0 {
				v.dead += loc.record
			}
		}
	default:
		v.dead += size // a record of a later version: kept, not understood
	}
	return nil
}

// addEntry adds an entry's begin or published record of size bytes.
func (v *logView) addEntry(pf pendingFile, committed bool, size int64) {
	id := pf.Entry.ID
	if _, ok := v.entries[id]; ok {
		v.dead += size
		return
	}
	e := &entryRec{pf: pf, record: size}
	if committed {
		e.state = stateCommitted
	}
	v.entries[id] = e
	v.ids = append(v.ids, id)
	v.last = max(v.last, id)
}

func (j *Journal) logPath() string { return filepath.Join(j.dir, logName) }

// catchUp brings j.view to the end of the log, reopening the log when it
// was replaced by a compaction. Called with j.mu held; locked says the file
// lock is held too: then a missing log is created and a torn record at its
// end (a writer died mid-write) is cut off, since no one else is writing.
func (j *Journal) catchUp(locked bool) error {
	fi, err := os.Stat(j.logPath())
	switch {
	case errors.Is(err, fs.ErrNotExist) && locked:
		return j.createLog()
	case err != nil && j.view != nil && !locked:
		return nil // keep what was read
	case err != nil:
		return fmt.Errorf("read change journal: %w", err)
	}
	if j.view == nil || !os.SameFile(fi, j.view.info) || fi.Size() < j.view.end {
		if err := j.reopen(); err != nil {
			return err
		}
		fi = j.view.info
	}
	if fi.Size() > j.view.end {
		if err := j.parse(fi.Size(), locked); err != nil {
			return err
		}
	}
	if locked && j.view.end == 0 {
		return j.appendLog(j.headerRecord(nil, 0), nil)
	}
	return nil
}

func (j *Journal) headerRecord(buf []byte, dropped int) []byte {
	h := logHeader{Version: logVersion, Dropped: dropped}
	if j.view != nil {
		h.Last = j.view.last
	}
	raw, _ := json.Marshal(h)
	return appendFrame(buf, recHeader, raw)
}

// createLog creates an empty log and writes its header. Called with the file
// lock held.
func (j *Journal) createLog() error {
	f, err := os.OpenFile(j.logPath(), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("create change journal log: %w", err)
	}
	f.Close()
	if j.o.Sync {
		if err := syncDir(j.dir); err != nil {
			return err
		}
	}
	return j.catchUp(true)
}

// reopen opens the log afresh and reads it from the start.
func (j *Journal) reopen() error {
	if j.logf != nil {
		j.logf.Close()
		j.logf, j.view = nil, nil
	}
	f, err := os.OpenFile(j.logPath(), os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("open change journal log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open change journal log: %w", err)
	}
	j.logf, j.view = f, newLogView(fi)
	return nil
}

// parse reads the records from j.view.end to size. A record that fails its
// checksum is skipped when a valid record follows it (damage), and ends the
// reading otherwise (a torn end, or a record being written).
func (j *Journal) parse(size int64, locked bool) error {
	v := j.view
	off := v.end
	r := bufio.NewReaderSize(io.NewSectionReader(j.logf, off, size-off), 64<<10)
	var buf []byte
	for off < size {
		typ, payload, n, ok := readFrame(r, &buf, size-off)
		if ok {
			if err := v.apply(typ, payload, off, n); err != nil {
				j.log.Warn("change journal: record unreadable, skipped", "offset", off, "err", err)
				v.dead += n
			}
			off += n
			continue
		}
		next, found := j.nextFrame(off+1, size)
		if !found {
			if locked {
				j.log.Warn("change journal: torn record at the end of the log cut off", "offset", off, "bytes", size-off)
				if err := j.logf.Truncate(off); err != nil {
					return fmt.Errorf("cut torn record off the change journal: %w", err)
				}
			}
			break
		}
		j.log.Warn("change journal: damaged record skipped", "offset", off, "bytes", next-off)
		v.dead += next - off
		off = next
		r.Reset(io.NewSectionReader(j.logf, off, size-off))
	}
	v.end = off
	return nil
}

// readFrame reads one record of at most remain bytes from r into *buf.
func readFrame(r io.Reader, buf *[]byte, remain int64) (typ byte, payload []byte, size int64, ok bool) {
	var hdr [frameSize]byte
	if remain < frameSize+1 {
		return 0, nil, 0, false
	}
	if _, err := io.ReadFull(r, hdr[:]); err != nil || !bytes.Equal(hdr[:4], frameMagic) {
		return 0, nil, 0, false
	}
	n := int64(binary.BigEndian.Uint32(hdr[4:8]))
	if n < 1 || n > maxRecord || frameSize+n > remain {
		return 0, nil, 0, false
	}
	if int64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	if _, err := io.ReadFull(r, b); err != nil || crc32.Checksum(b, crcTable) != binary.BigEndian.Uint32(hdr[8:12]) {
		return 0, nil, 0, false
	}
	return b[0], b[1:], frameSize + n, true
}

// nextFrame finds the first valid record that starts in [from, size).
func (j *Journal) nextFrame(from, size int64) (int64, bool) {
	if from >= size {
		return 0, false
	}
	rest := make([]byte, size-from)
	if _, err := j.logf.ReadAt(rest, from); err != nil {
		return 0, false
	}
	var buf []byte
	for i := 0; ; i++ {
		k := bytes.Index(rest[i:], frameMagic)
		if k < 0 {
			return 0, false
		}
		i += k
		if _, _, _, ok := readFrame(bytes.NewReader(rest[i:]), &buf, int64(len(rest)-i)); ok {
			return from + int64(i), true
		}
	}
}

// appendLog appends records (whole frames) to the log with one write and
// adds them to the view; begun, when not nil, is what the begin record among
// them holds (so that it is not decoded again). Called with the file lock
// held and the view caught up, so the write lands at j.view.end; a failed
// write is cut off again.
func (j *Journal) appendLog(records []byte, begun *pendingFile) error {
	off := j.view.end
	_, err := j.logf.Write(records)
	if err == nil && j.o.Sync {
		err = j.logf.Sync()
	}
	if err != nil {
		if terr := j.logf.Truncate(off); terr != nil {
			err = errors.Join(err, terr)
		}
		return fmt.Errorf("append to change journal: %w", err)
	}
	for p := int64(0); p < int64(len(records)); {
		n := frameSize + int64(binary.BigEndian.Uint32(records[p+4:]))
		if typ := records[p+frameSize]; typ == recBegin && begun != nil {
			j.view.addEntry(*begun, false, n)
		} else if err := j.view.apply(typ, records[p+frameSize+1:p+n], off+p, n); err != nil {
			j.log.Warn("change journal: record written unreadable", "offset", off+p, "err", err)
		}
		p += n
	}
	j.view.end = off + int64(len(records))
	return nil
}
