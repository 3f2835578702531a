package challenge

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

func TestForEachLowestError(t *testing.T) {
	errA, errB := errors.New("a"), errors.New("b")
	for trial := 0; trial < 20; trial++ {
		err := ForEach(context.Background(), 50, func(i int) error {
			switch i {
			case 7:
				return errA
			case 30:
				return errB
			}
			return nil
		})
		// Indices are handed out in order and every handed-out index finishes,
		// so the lowest failing index always wins, whatever the scheduling.
		if err != errA {
			t.Fatalf("trial %d: got %v, want the error of index 7", trial, err)
		}
	}
	seen := make([]bool, 100)
	if err := ForEach(context.Background(), 100, func(i int) error { seen[i] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	for i, s := range seen {
		if !s {
			t.Fatalf("index %d skipped", i)
		}
	}
	// A cancelled context stops the loop and is reported.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ran atomic.Int32
	if err := ForEach(ctx, 10, func(int) error { ran.Add(1); return nil }); !errors.Is(err, context.Canceled) || ran.Load() != 0 {
		t.Fatalf("cancelled: err %v, ran %d", err, ran.Load())
	}
}

// A panic in one case's worker goroutine (a grader bug on odd input) is that
// case's error, and SafeGrade reports it as the grader's crash with the
// stack, instead of the process ending from a goroutine nobody recovers.
func TestForEachPanicIsAnError(t *testing.T) {
	err := ForEach(context.Background(), 8, func(i int) error {
		if i == 5 {
			var s []int
			_ = s[i] // an index out of range: a runtime panic
		}
		return nil
	})
	var wp *WorkerPanic
	if !errors.As(err, &wp) || wp.Index != 5 || !strings.Contains(wp.Stack, "parallel_test.go") {
		t.Fatalf("ForEach with a panicking item: %v", err)
	}
	res, err := SafeGrade(context.Background(), panickingGrader{}, "sub", "priv", "reference")
	var ge *GraderError
	if res != nil || !errors.As(err, &ge) || ge.Challenge != "panics" || !strings.Contains(ge.Stack, "parallel_test.go") {
		t.Fatalf("SafeGrade with a worker panic: %v %v", res, err)
	}
}

// panickingGrader grades its cases with ForEach, and one of them panics.
type panickingGrader struct{ Grader }

func (panickingGrader) ID() string { return "panics" }

func (panickingGrader) Grade(ctx context.Context, _, _ string, _ Mode) (*Result, error) {
	return nil, ForEach(ctx, 4, func(i int) error {
		if i == 2 {
			panic("case 2 broke")
		}
		return nil
	})
}

// Beside's result comes back through wait, and a panic on its goroutine is
// raised again, with its context and stack, where wait is called.
func TestBesideReturnsAndRaisesPanics(t *testing.T) {
	if got := Beside("adding", func() int { return 2 + 3 })(); got != 5 {
		t.Fatalf("Beside result %d, want 5", got)
	}
	wait := Beside("reading answer a.mha", func() error { panic("corrupt") })
	defer func() {
		p := recover()
		if s, ok := p.(string); !ok || !strings.HasPrefix(s, "reading answer a.mha: corrupt\n") || !strings.Contains(s, "parallel_test.go") {
			t.Fatalf("recovered %v, want the panic with its context and stack", p)
		}
	}()
	wait()
	t.Fatal("wait returned after a panic")
}
