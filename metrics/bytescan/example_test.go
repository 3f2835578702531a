package bytescan_test

import (
	"fmt"

	"github.com/rexmle/rexmle/metrics/bytescan"
)

// The first and last bytes of a row that differ from the background, e.g.
// the extent of the foreground in one row of a label map.
func ExampleFirstOther() {
	row := make([]byte, 40)
	row[13], row[29] = 2, 1
	fmt.Println(bytescan.FirstOther(row, 0), bytescan.LastOther(row, 0))
	// A row of background only: len(p) and −1.
	empty := make([]byte, 40)
	fmt.Println(bytescan.FirstOther(empty, 0), bytescan.LastOther(empty, 0))
	// Output:
	// 13 29
	// 40 -1
}
