package rankstage

import (
	"fmt"
	"strconv"
)

func strconvF(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

func toString(v any) string { return fmt.Sprint(v) }
