package stages

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/magefile/mage/mg"
)

// How the stages speak: a progress line on stderr while a stage works, then
// one summary line per stage on stdout (say), and details (slog INFO, the
// per-item lines of a non-terminal progress) only with `mage -v`
// (verbose). Exit codes, as the README's table says:
const (
	ExitOK          = 0   // everything done or up to date
	ExitFailed      = 1   // some item (a challenge, run, submission, section) failed
	ExitBadSettings = 2   // the settings or the configuration cannot be used; nothing was done
	ExitInterrupted = 130 // interrupted (Ctrl-C); finished work is kept, a rerun resumes
)

// ExitError is an error with the process exit status mage gives it (mage
// exits with ExitStatus() of a target's error).
type ExitError struct {
	Err  error
	Code int
}

func (e *ExitError) Error() string   { return e.Err.Error() }
func (e *ExitError) Unwrap() error   { return e.Err }
func (e *ExitError) ExitStatus() int { return e.Code }

// badSettings marks err as a settings or configuration error (exit 2).
func badSettings(err error) error {
	if err == nil {
		return nil
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return err
	}
	return &ExitError{Err: err, Code: ExitBadSettings}
}

// SettingsError marks an error of reading the settings (an unknown REXMLE_*
// name, a bad value) as a settings error: exit status 2, nothing done.
func SettingsError(err error) error { return badSettings(err) }

// interrupted is the error of a stage stopped by Ctrl-C: it says what was
// kept and how to resume (rerun the target ctx was started for), never
// "N failed". kept < 0: the stage has said what it kept.
func interrupted(ctx context.Context, stage string, kept int) error {
	msg := fmt.Sprintf("%s: interrupted; rerun `mage %s` to resume", stage, targetOf(ctx, stage))
	if kept >= 0 {
		msg += fmt.Sprintf(" (%d finished kept)", kept)
	}
	return &ExitError{Err: errors.New(msg), Code: ExitInterrupted}
}

// verbose reports whether details are wanted (`mage -v`).
func verbose() bool { return mg.Verbose() }

// say prints one summary line of a stage on stdout.
func say(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// newLogger is the stages' logger: INFO and above on stderr with `mage -v`,
// warnings and errors only otherwise.
func newLogger() *slog.Logger {
	level := slog.LevelWarn
	if verbose() {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// detail logs a detail line (shown with -v only).
func detail(msg string, args ...any) { newLogger().Info(msg, args...) }
