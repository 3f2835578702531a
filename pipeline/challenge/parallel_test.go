package challenge

import (
	"context"
	"errors"
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
