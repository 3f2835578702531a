package challenge

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"unicode/utf8"
)

// InvalidSubmission is a problem with a submission: a missing or malformed
// file, a wrong shape, a bad value. It names the file (relative to the
// submission folder), the field or row where there is one, and what was
// expected.
type InvalidSubmission struct {
	File   string // path relative to the submission folder, e.g. "submission.csv"
	Field  string // column, row, key or header field; empty when the whole file is at fault
	Reason string
}

func (e *InvalidSubmission) Error() string {
	switch {
	case e.File != "" && e.Field != "":
		return fmt.Sprintf("invalid submission: %s: %s: %s", e.File, e.Field, e.Reason)
	case e.File != "":
		return fmt.Sprintf("invalid submission: %s: %s", e.File, e.Reason)
	default:
		return "invalid submission: " + e.Reason
	}
}

// Invalidf builds an *InvalidSubmission with a formatted reason. Submitted
// text never reaches a message whole: file, field and every string argument
// are clipped to MaxEcho bytes (see Clip).
func Invalidf(file, field, format string, args ...any) error {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = Clip(s)
		}
	}
	return &InvalidSubmission{File: Clip(file), Field: Clip(field), Reason: clipReason(fmt.Sprintf(format, args...))}
}

// maxReason bounds a whole reason, whatever was formatted into it (a long
// list of ids, an error carrying a field).
const maxReason = 4 * MaxEcho

func clipReason(s string) string {
	if len(s) <= maxReason {
		return s
	}
	cut := maxReason
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:cut], len(s))
}

// IsInvalid reports whether err is (or wraps) an *InvalidSubmission.
func IsInvalid(err error) bool {
	var inv *InvalidSubmission
	return errors.As(err, &inv)
}

// GraderError is a failure of the grader itself (a bug or a panic), as
// opposed to a problem with the submission.
type GraderError struct {
	Challenge string
	Panic     any
	Stack     string
}

func (e *GraderError) Error() string {
	return fmt.Sprintf("grader %s crashed: %v", e.Challenge, e.Panic)
}

// SafeGrade calls c.Grade and turns a panic into a *GraderError carrying the
// stack, so that one broken grader never stops a batch.
func SafeGrade(ctx context.Context, c Grader, submissionDir, privateDir string, mode Mode) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res = nil
			err = &GraderError{Challenge: c.ID(), Panic: p, Stack: string(debug.Stack())}
		}
	}()
	res, err = c.Grade(ctx, submissionDir, privateDir, mode)
	if wp := (*WorkerPanic)(nil); errors.As(err, &wp) {
		return nil, &GraderError{Challenge: c.ID(), Panic: wp.Value, Stack: wp.Stack}
	}
	if err == nil && res != nil && res.Mode == "" {
		res.Mode = mode
	}
	return res, err
}
