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
// input: a malformed header is skipped up to the next "Content-Length", an
// oversized body is discarded, and invalid JSON is answered with a parse
// error (id null) instead of ending the connection.
type frameStream struct {
	in      *bufio.Reader
	closer  io.Closer
	maxBody int
	log     *slog.Logger

	writeMu sync.Mutex
	out     io.Writer
	wbuf    []byte
}

func newFrameStream(r io.Reader, w io.Writer, c io.Closer, maxBody int, log *slog.Logger) *frameStream {
	if maxBody <= 0 {
		maxBody = DefaultMaxMessageBytes
	}
	return &frameStream{in: bufio.NewReaderSize(r, 64<<10), out: w, closer: c, maxBody: maxBody, log: log}
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
				s.log.Warn("skipped a bad message", "reason", bad.reason)
				if bad.reply != nil {
					s.writeRaw(bad.reply)
				}
				continue
			}
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
			if err == io.EOF && (sawHeader || len(line) > 0) {
				return nil, 0, io.ErrUnexpectedEOF
			}
			return nil, 0, err
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
			return nil, 0, &badFrame{reason: fmt.Sprintf("header line without a colon: %.80q", trimmed)}
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n <= 0 {
				return nil, 0, &badFrame{reason: fmt.Sprintf("invalid Content-Length %.40q", value)}
			}
			length = n
		}
	}
	if length < 0 {
		return nil, 0, &badFrame{reason: "header block without Content-Length"}
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
		if err == bufio.ErrBufferFull {
			if len(line) > maxHeaderBytes {
				for err == bufio.ErrBufferFull {
					_, err = s.in.ReadSlice('\n')
				}
				return nil, &badFrame{reason: "header line too long"}
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

// Write frames msg with a Content-Length header in one write. The message
// is encoded straight into the stream's buffer, behind room for the header.
func (s *frameStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	buf := jsonrpc2.AppendMessage(append(s.wbuf[:0], make([]byte, headerRoom)...), msg)
	return s.flushLocked(buf, len(buf)-headerRoom)
}

func (s *frameStream) writeRaw(body []byte) (int64, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	buf := append(append(s.wbuf[:0], make([]byte, headerRoom)...), body...)
	return s.flushLocked(buf, len(body))
}

// flushLocked writes the header into the room in front of the body of
// buf (n bytes long) and writes the frame. The caller holds writeMu.
func (s *frameStream) flushLocked(buf []byte, n int) (int64, error) {
	var hdr [headerRoom]byte
	h := append(hdr[:0], "Content-Length: "...)
	h = strconv.AppendInt(h, int64(n), 10)
	h = append(h, "\r\n\r\n"...)
	start := headerRoom - len(h)
	copy(buf[start:], h)
	written, err := s.out.Write(buf[start:])
	s.wbuf = buf[:0]
	if cap(s.wbuf) > 1<<20 {
		s.wbuf = nil // do not pin a large buffer after a large message
	}
	return int64(written), err
}

// Close closes the underlying connection.
func (s *frameStream) Close() error {
	if s.closer != nil {
		return s.closer.Close()
	}
	return nil
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
