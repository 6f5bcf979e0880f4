package terminal

import "unicode/utf8"

// ring is a fixed-capacity byte buffer that keeps the newest bytes. Offsets
// are absolute: the first byte ever written has offset 0, so a reader can
// tell how much it missed when the oldest bytes were overwritten.
type ring struct {
	buf   []byte
	end   int64 // absolute offset one past the newest byte
	limit int
}

func newRing(limit int) *ring {
	if limit < 1024 {
		limit = 1024
	}
	return &ring{limit: limit}
}

// start is the absolute offset of the oldest byte still held.
func (r *ring) start() int64 {
	if r.end < int64(len(r.buf)) {
		return 0
	}
	return r.end - int64(len(r.buf))
}

// write appends p, overwriting the oldest bytes once the limit is reached.
// The buffer grows lazily up to the limit so that short tasks stay small.
func (r *ring) write(p []byte) {
	if len(p) == 0 {
		return
	}
	if len(r.buf) < r.limit {
		room := r.limit - len(r.buf)
		n := min(room, len(p))
		r.buf = append(r.buf, p[:n]...)
		r.end += int64(n)
		p = p[n:]
		if len(p) == 0 {
			return
		}
	}
	// Full: the buffer is circular; position of absolute offset o is o % limit.
	if len(p) > r.limit {
		r.end += int64(len(p) - r.limit)
		p = p[len(p)-r.limit:]
	}
	pos := int(r.end % int64(r.limit))
	n := copy(r.buf[pos:], p)
	copy(r.buf, p[n:])
	r.end += int64(len(p))
}

// since returns the bytes from absolute offset from (clamped to what is still
// held) to the end, starting at a UTF-8 character boundary, and how many bytes
// before it were lost to overwriting.
func (r *ring) since(from int64) (out []byte, lost int64) {
	st := r.start()
	if from < st {
		lost = st - from
		from = st
	}
	if from >= r.end {
		return nil, lost
	}
	n := int(r.end - from)
	out = make([]byte, n)
	if len(r.buf) < r.limit {
		copy(out, r.buf[from:])
	} else {
		pos := int(from % int64(r.limit))
		c := copy(out, r.buf[pos:])
		copy(out[c:], r.buf[:n-c])
	}
	// Skip a partial character left at the front by overwriting.
	k := 0
	for k < len(out) && k < utf8.UTFMax && !utf8.RuneStart(out[k]) {
		k++
	}
	return out[k:], lost + int64(k)
}
