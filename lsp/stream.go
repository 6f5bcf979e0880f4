package lsp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// DefaultMaxMessageBytes is the largest message body the server accepts.
const DefaultMaxMessageBytes = 64 << 20

// maxHeaderBytes bounds one header line, so garbage without newlines cannot
// grow the reader without limit.
const maxHeaderBytes = 8 << 10

// frameStream is a jsonrpc2.Stream with LSP header framing that survives bad
// input: after a malformed header block (a line without a colon, a missing
// or non-numeric Content-Length) the length of what follows is unknown, so
// the reader skips ahead to the next "Content-Length:" — even in the middle
// of a line, where the skipped body ran into the next header — and goes on
// from there; an oversized body is discarded, and invalid JSON is answered
// with a parse error (id null) instead of ending the connection.
type frameStream struct {
	in *bufio.Reader
	// resync is set after a malformed header block: the next frame starts
	// at the next "Content-Length:" in the input. Read's goroutine only.
	resync  bool
	closer  io.Closer
	maxBody int
	log     *slog.Logger

	out io.Writer

	// ended is closed, once, when the input ends (EOF or a read error) or
	// a write fails: either way the client is gone. endErr says why.
	ended   chan struct{}
	endOnce sync.Once
	endErr  error
	// closed is closed, once, by Close. jsonrpc2 closes the stream when the
	// connection is shutting down and has nothing left in flight, i.e. after
	// the answers of the last calls were written.
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error

	writeMu sync.Mutex
	drained *sync.Cond // on writeMu: pending shrank or the writer stopped
	pending []byte     // frames not written yet
	spare   []byte     // the buffer of the last write, reused
	writing bool       // a goroutine is writing pending
	werr    error      // the first write error; later writes fail with it
}

func newFrameStream(r io.Reader, w io.Writer, c io.Closer, maxBody int, log *slog.Logger) *frameStream {
	if maxBody <= 0 {
		maxBody = DefaultMaxMessageBytes
	}
	s := &frameStream{in: bufio.NewReaderSize(r, 64<<10), out: w, closer: c, maxBody: maxBody, log: log, ended: make(chan struct{}), closed: make(chan struct{})}
	s.drained = sync.NewCond(&s.writeMu)
	return s
}

// Read returns the next well-formed message, skipping (and reporting) bad
// frames. It returns io.EOF at a clean end of input.
func (s *frameStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.readFrame()
		if err != nil {
			var bad *badFrame
			if errors.As(err, &bad) {
				s.resync = s.resync || bad.unsynced
				s.log.Warn("skipped a bad message", "reason", bad.reason, "resynchronizing", bad.unsynced)
				if bad.reply != nil {
					s.writeRaw(bad.reply)
				}
				continue
			}
			s.end(err)
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			s.log.Warn("skipped an invalid JSON-RPC message", "err", err, "bytes", len(body))
			s.writeRaw(errorReply(idOf(body), jsonrpc2.InvalidRequest, "invalid JSON-RPC message: "+err.Error()))
			continue
		}
		return msg, n, nil
	}
}

// badFrame is a frame that was consumed and must be skipped.
type badFrame struct {
	reason string
	reply  []byte
	// unsynced: the frame's end is unknown (its header block was
	// malformed), so the next frame is found by its Content-Length line.
	unsynced bool
}

func (b *badFrame) Error() string { return b.reason }

// readFrame reads one header block and its body.
func (s *frameStream) readFrame() ([]byte, int64, error) {
	length := -1
	var total int64
	sawHeader := false
	for {
		line, err := s.readLine()
		total += int64(len(line))
		if err != nil {
			if errors.Is(err, io.EOF) && (sawHeader || len(line) > 0) {
				return nil, 0, io.ErrUnexpectedEOF
			}
			return nil, 0, err
		}
		if s.resync {
			i := indexFold(line, "content-length:")
			if i < 0 {
				continue // the rest of a frame whose length was unknown
			}
			line, s.resync = line[i:], false
		}
		trimmed := strings.TrimRight(string(line), "\r\n")
		if trimmed == "" {
			if !sawHeader {
				continue // stray blank line between frames
			}
			break
		}
		sawHeader = true
		name, value, ok := strings.Cut(trimmed, ":")
		if !ok {
			return nil, 0, &badFrame{reason: fmt.Sprintf("header line without a colon: %.80q", trimmed), unsynced: true}
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n <= 0 {
				return nil, 0, &badFrame{reason: fmt.Sprintf("invalid Content-Length %.40q", value), unsynced: true}
			}
			length = n
		}
	}
	if length < 0 {
		return nil, 0, &badFrame{reason: "header block without Content-Length", unsynced: true}
	}
	if length > s.maxBody {
		if _, err := io.CopyN(io.Discard, s.in, int64(length)); err != nil {
			return nil, 0, io.ErrUnexpectedEOF
		}
		return nil, 0, &badFrame{
			reason: fmt.Sprintf("message of %d bytes is larger than the limit of %d bytes", length, s.maxBody),
			reply:  errorReply(nil, jsonrpc2.InvalidRequest, fmt.Sprintf("message of %d bytes exceeds the server's limit of %d bytes; send smaller requests", length, s.maxBody)),
		}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, 0, io.ErrUnexpectedEOF
	}
	if !jsonValid(body) {
		return nil, 0, &badFrame{reason: "body is not valid JSON", reply: errorReply(nil, jsonrpc2.ParseError, "message body is not valid JSON")}
	}
	return body, total + int64(length), nil
}

// readLine reads one header line, bounded by maxHeaderBytes; an overlong
// line is consumed and reported as a bad frame.
func (s *frameStream) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.in.ReadSlice('\n')
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(line) > maxHeaderBytes {
				for errors.Is(err, bufio.ErrBufferFull) {
					_, err = s.in.ReadSlice('\n')
				}
				return nil, &badFrame{reason: "header line too long", unsynced: true}
			}
			continue
		}
		if len(line) > maxHeaderBytes {
			return nil, &badFrame{reason: "header line too long"}
		}
		return line, err
	}
}

// headerRoom is the space reserved in front of a body for its header.
const headerRoom = len("Content-Length: \r\n\r\n") + 20

// maxPending bounds the frames queued behind a write in progress; a writer
// beyond it waits, so a client that stops reading slows the server's
// writers down (terminal streams then skip output) instead of growing
// memory.
const maxPending = 4 << 20

// Write frames msg with a Content-Length header. The message is encoded
// straight into the stream's pending buffer. Frames written while another
// goroutine is writing are queued and go out with its next write, so
// concurrent responses share system calls.
func (s *frameStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.enqueue(func(buf []byte) []byte { return jsonrpc2.AppendMessage(buf, msg) })
}

func (s *frameStream) writeRaw(body []byte) (int64, error) {
	return s.enqueue(func(buf []byte) []byte { return append(buf, body...) })
}

// enqueue appends one frame (header, then the body appendBody writes) to
// the pending bytes and, unless another goroutine is already writing,
// writes the pending bytes until none are left.
func (s *frameStream) enqueue(appendBody func([]byte) []byte) (int64, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	for s.writing && len(s.pending) > maxPending && s.werr == nil {
		s.drained.Wait()
	}
	if s.werr != nil {
		return 0, s.werr
	}
	start := len(s.pending)
	s.pending = appendBody(append(s.pending, make([]byte, headerRoom)...))
	n := len(s.pending) - start - headerRoom
	var hdr [headerRoom]byte
	h := append(hdr[:0], "Content-Length: "...)
	h = strconv.AppendInt(h, int64(n), 10)
	h = append(h, "\r\n\r\n"...)
	// Close the gap between the header and the body.
	copy(s.pending[start:], h)
	copy(s.pending[start+len(h):], s.pending[start+headerRoom:])
	s.pending = s.pending[:start+len(h)+n]
	frame := int64(len(h) + n)
	if s.writing {
		return frame, nil // the writer in progress sends it
	}
	s.writing = true
	for len(s.pending) > 0 && s.werr == nil {
		buf := s.pending
		s.pending = s.spare[:0]
		s.writeMu.Unlock()
		_, err := s.out.Write(buf)
		s.writeMu.Lock()
		if cap(buf) <= 1<<20 {
			s.spare = buf[:0] // keep one buffer, but not a large one
		}
		if err != nil {
			s.werr = err
			s.end(err)
		}
		s.drained.Broadcast()
	}
	s.writing = false
	s.drained.Broadcast()
	return frame, s.werr
}

// end records that the client is gone (the first cause wins).
func (s *frameStream) end(err error) {
	s.endOnce.Do(func() {
		s.endErr = err
		close(s.ended)
	})
}

// Close closes the underlying connection (once) and closes s.closed.
func (s *frameStream) Close() error {
	s.closeOnce.Do(func() {
		if s.closer != nil {
			s.closeErr = s.closer.Close()
		}
		close(s.closed)
	})
	return s.closeErr
}

// errorReply encodes a JSON-RPC error response; id nil encodes as null.
func errorReply(id []byte, code jsonrpc2.Code, msg string) []byte {
	if len(id) == 0 {
		id = []byte("null")
	}
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"error":{"code":`)
	b.WriteString(strconv.Itoa(int(code)))
	b.WriteString(`,"message":`)
	b.Write(quoteJSON(msg))
	b.WriteString(`}}`)
	return b.Bytes()
}

// indexFold is the index of the first case-insensitive match of the ASCII
// lower-case word in b, or -1.
func indexFold(b []byte, word string) int {
	for i := 0; i+len(word) <= len(b); i++ {
		if bytes.EqualFold(b[i:i+len(word)], []byte(word)) {
			return i
		}
	}
	return -1
}
