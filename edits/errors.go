package edits

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Codes carried by Error. They are the same stable words the tool envelope
// uses, so a caller can pass them through unchanged.
const (
	CodeSearchNotFound  = "search_not_found"
	CodeSearchNotUnique = "search_not_unique"
	CodeNoChange        = "no_change"
	CodeWriteConflict   = "write_conflict"
	CodeBinaryFile      = "binary_file"
	CodeInvalidInput    = "invalid_input"
	CodeNotFound        = "not_found"
)

// Error is a failure a model can fix: a stable Code and a Message that ends in
// the next step to take. Step is the 1-based index of the failing step of a
// multi-step edit (0 when there is none); Lines are the 1-based line numbers
// of the candidates involved, when there are any.
type Error struct {
	Code    string
	Message string
	Step    int
	Lines   []int
	outside bool // a write_conflict caused by a writer that is not whale
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Is lets errors.Is(err, ErrOutsideChange) find conflicts caused by a
// writer that is not whale.
func (e *Error) Is(target error) bool { return target == ErrOutsideChange && e.outside }

func newError(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of err if it is or wraps an *Error, and "" otherwise.
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// formatLines renders line numbers as "4, 19, 40", eliding the middle of
// long lists.
func formatLines(lines []int) string {
	const show = 8
	var b strings.Builder
	for i, n := range lines {
		if i == show && len(lines) > show+1 {
			fmt.Fprintf(&b, ", … %d more", len(lines)-show)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}
