package topcowcommon

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rexmle/rexmle/metrics/topology"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/pyjson"
)

// maxSmallFile bounds the box and edge files a submission may name.
const maxSmallFile = 1 << 20

// readSmall reads a small submission file through OpenInside.
func readSmall(submissionDir, rel, field string) ([]byte, error) {
	f, err := challenge.OpenInside(submissionDir, rel, field)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSmallFile+1))
	if err != nil {
		return nil, challenge.Invalidf(rel, field, "cannot read: %v", err)
	}
	if len(b) > maxSmallFile {
		return nil, challenge.Invalidf(rel, field, "file is larger than %d bytes", maxSmallFile)
	}
	return b, nil
}

// pythonInt converts a decoded JSON value as Python's int() does: integers
// as they are, floats truncated toward zero, booleans to 0/1, strings of an
// optionally signed decimal integer (surrounding blanks and single
// underscores between digits allowed). Anything else fails.
func pythonInt(v any) (int, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case pyjson.Num:
		if x.IsInt {
			n, err := strconv.ParseInt(x.Lit, 10, 64)
			if err != nil || n > 1<<40 || n < -(1<<40) {
				return 0, fmt.Errorf("integer %s out of range", x.Lit)
			}
			return int(n), nil
		}
		if math.IsNaN(x.F) || math.IsInf(x.F, 0) {
			return 0, fmt.Errorf("%s cannot be converted to an integer", pyjson.Str(x))
		}
		if math.Abs(x.F) > 1<<40 {
			return 0, fmt.Errorf("number %s out of range", x.Lit)
		}
		return int(math.Trunc(x.F)), nil
	case string:
		// int(str): Unicode blanks stripped (not \x1c–\x1f, which int()
		// keeps though str.isspace() calls them blanks), a sign, decimal
		// digits of any script with single underscores between them.
		t := strings.TrimFunc(x, unicode.IsSpace)
		neg := false
		if strings.HasPrefix(t, "+") || strings.HasPrefix(t, "-") {
			neg = t[0] == '-'
			t = t[1:]
		}
		if t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
			return 0, fmt.Errorf("%q is not an integer", x)
		}
		n := 0
		for _, r := range t {
			if r == '_' {
				continue
			}
			if !unicode.IsDigit(r) {
				return 0, fmt.Errorf("%q is not an integer", x)
			}
			if n = n*10 + digitValue(r); n > 1<<40 {
				return 0, fmt.Errorf("%q is out of range", x)
			}
		}
		if neg {
			n = -n
		}
		return n, nil
	case nil:
		return 0, fmt.Errorf("null is not an integer")
	}
	return 0, fmt.Errorf("%v is not an integer", v)
}

// parseBoxJSON reads {"size": [3 values], "location": [3 values]} as the
// reference does: json.load (Python's reading: NaN and Infinity are
// numbers, trailing data fails, pyjson), then int() of each item it
// iterates out of "size" and "location" (a list's elements, a string's
// characters).
func parseBoxJSON(b []byte) (topology.Box, error) {
	v, err := pyjson.Load(b)
	if err != nil {
		return topology.Box{}, fmt.Errorf("not a JSON object: %v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return topology.Box{}, fmt.Errorf("not a JSON object but a %s", pyjson.TypeName(v))
	}
	var out topology.Box
	for _, key := range []string{"size", "location"} {
		raw, ok := obj[key]
		if !ok {
			return out, fmt.Errorf("missing key %q", key)
		}
		var list []any
		switch x := raw.(type) {
		case []any:
			list = x
		case string:
			for _, r := range x {
				list = append(list, string(r)) // iterating a str gives its characters
			}
		default:
			return out, fmt.Errorf("%q must be a list of 3 integers, not a %s", key, pyjson.TypeName(raw))
		}
		if len(list) != 3 {
			return out, fmt.Errorf("%q must be a list of 3 integers", key)
		}
		for i, v := range list {
			n, err := pythonInt(v)
			if err != nil {
				return out, fmt.Errorf("%s[%d]: %v", key, i, err)
			}
			if key == "size" {
				out.Size[i] = n
			} else {
				out.Location[i] = n
			}
		}
	}
	return out, nil
}

// readBoxFile reads a box from a .json or .txt file (suffix checked
// case-insensitively).
func readBoxFile(submissionDir, rel, field string) (topology.Box, error) {
	// pathlib drops a trailing slash ("b.json/" is b.json, suffix .json).
	name := strings.TrimRight(rel, "/")
	ext := strings.ToLower(name[strings.LastIndex(name, ".")+1:])
	if !strings.Contains(name, ".") || (ext != "json" && ext != "txt") {
		return topology.Box{}, challenge.Invalidf(rel, field, "box files must end in .json or .txt")
	}
	b, err := readSmall(submissionDir, name, field)
	if err != nil {
		return topology.Box{}, err
	}
	if !utf8.Valid(b) {
		// The reference opens the file as UTF-8 text and fails.
		return topology.Box{}, challenge.Invalidf(rel, field, "not UTF-8 text: save the box file as UTF-8")
	}
	var box topology.Box
	if ext == "json" {
		box, err = parseBoxJSON(b)
	} else {
		box, err = parseBoxText(string(b))
	}
	if err != nil {
		return box, challenge.Invalidf(rel, field, "%v", err)
	}
	return box, nil
}

// boxIoUs returns (boundary_iou, iou) of a GT and a predicted box: the
// reference grows both boxes outward by ceil(r·size) (r = 0.2, 0.5) and
// takes filled IoUs; the official metric uses inner shells (r = 0.5 gives
// the plain box IoU).
func boxIoUs(gt, pred topology.Box, mode challenge.Mode) (float64, float64) {
	if mode == challenge.Official {
		return topology.BoundaryBoxIoU(gt, pred, 0.2), topology.BoundaryBoxIoU(gt, pred, 0.5)
	}
	return topology.GrownBoxIoU(gt, pred, 0.2), topology.GrownBoxIoU(gt, pred, 0.5)
}

func (c Challenge) gradeBoxes(ctx context.Context, submissionDir string, rows []gradeRow, mode challenge.Mode) (*challenge.Result, error) {
	res := &challenge.Result{Mode: mode}
	var bi, io []float64
	for _, r := range rows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		gb, err := readFileBytes(r.answer)
		if err != nil {
			return nil, err
		}
		gt, err := parseBoxJSON(gb)
		if err != nil {
			return nil, fmt.Errorf("answer %s: %w", r.answer, err)
		}
		_, rel, err := c.predictionPath(submissionDir, r.Row)
		if err != nil {
			return nil, err
		}
		pred, err := readBoxFile(submissionDir, rel, fmt.Sprintf("%s (row %d)", c.pathColumn(), r.Line))
		if err != nil {
			return nil, err
		}
		b, i := boxIoUs(gt, pred, mode)
		bi, io = append(bi, b), append(io, i)
		res.Cases = append(res.Cases, challenge.Case{ID: r.caseID, Values: map[string]float64{"boundary_iou": b, "iou": i}})
	}
	res.Set("boundary_iou", mean(bi))
	res.Set("iou", mean(io))
	return res, nil
}
