package dentex

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"slices"
	"testing"
)

// Hand-worked: in an 8-slot table 9 takes slot 1; 1 collides there, cannot
// probe linearly (1 + 9 > 7) and jumps to (5·1 + 1 + 0) & 7 = 6.
// 700, 188, 3, 515 stay in the 8-slot table: 700 → slot 4; 188 → 4 taken,
// jumps to (5·4 + 1 + (188>>5 = 5)) & 7 = 2; 3 → 3; 515 → 3 taken, jumps to
// (5·3 + 1 + 16) & 7 = 0. Slot order: 515, 188, 3, 700.
func TestPySetOrderHand(t *testing.T) {
	if got := pySetOrder([]int64{9, 1}); !slices.Equal(got, []int64{9, 1}) {
		t.Errorf("set([9, 1]) order %v, want [9 1]", got)
	}
	if got := pySetOrder([]int64{700, 188, 3, 515}); !slices.Equal(got, []int64{515, 188, 3, 700}) {
		t.Errorf("set([700, 188, 3, 515]) order %v, want [515 188 3 700]", got)
	}
	if got := pySetOrder([]int64{5, 5, 2}); !slices.Equal(got, []int64{2, 5}) {
		t.Errorf("duplicates: %v", got)
	}
}

// TestPySetOrderCPython compares with the real interpreter (when present) on
// the reference's DENTEX split of 705 ids and on random lists.
func TestPySetOrderCPython(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	rng := rand.New(rand.NewPCG(4, 2))
	var cases [][]int64
	ids := make([]int64, 705)
	for i := range ids {
		ids[i] = int64(i)
	}
	_, test := splitIDs(ids)
	cases = append(cases, test, ids)
	for n := range []int{3, 40, 141, 500, 3000} {
		c := make([]int64, []int{3, 40, 141, 500, 3000}[n])
		for i := range c {
			switch rng.IntN(4) {
			case 0:
				c[i] = rng.Int64N(1 << 40)
			case 1:
				c[i] = -rng.Int64N(1000) - 1
			default:
				c[i] = rng.Int64N(5000)
			}
		}
		cases = append(cases, c)
	}
	in, _ := json.Marshal(cases)
	cmd := exec.Command(py, "-c", "import json,sys\nprint(json.dumps([list(set(c)) for c in json.load(sys.stdin)]))")
	cmd.Stdin = bytesReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var want [][]int64
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if got := pySetOrder(c); !slices.Equal(got, want[i]) {
			t.Errorf("case %d (%d values): order differs from CPython's", i, len(c))
		}
	}
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
