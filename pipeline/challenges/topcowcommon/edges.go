package topcowcommon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/metrics/stats"
	"github.com/rexmle/rexmle/metrics/topology"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

func readFileBytes(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	return b, nil
}

// decodeJSON decodes exactly one JSON value (numbers kept as json.Number).
func decodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("extra data after the JSON value")
	}
	return nil
}

// edgeValue is one parsed edge value: its Python str() rendering and its
// Python int() conversion (ok false when int() would fail).
type edgeValue struct {
	str   string
	asInt int
	intOK bool
}

// pyFloatStr renders a float as Python's repr/str does.
func pyFloatStr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	a := math.Abs(f)
	if a != 0 && (a < 1e-4 || a >= 1e16) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		digits := strings.TrimLeft(exp[1:], "0")
		if len(digits) < 2 {
			digits = strings.Repeat("0", 2-len(digits)) + digits
		}
		return mant + "e" + string(sign) + digits
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// jsonEdgeValue checks a JSON edge value (must equal 0 or 1 under Python
// equality: integers, floats or booleans) and renders it.
func jsonEdgeValue(v any) (edgeValue, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return edgeValue{"True", 1, true}, nil
		}
		return edgeValue{"False", 0, true}, nil
	case json.Number:
		s := string(x)
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || (f != 0 && f != 1) {
			return edgeValue{}, fmt.Errorf("value %s is not 0 or 1", s)
		}
		if strings.ContainsAny(s, ".eE") {
			return edgeValue{pyFloatStr(f), int(f), true}, nil
		}
		return edgeValue{strconv.Itoa(int(f)), int(f), true}, nil
	}
	return edgeValue{}, fmt.Errorf("value %v is not 0 or 1", v)
}

// edgeList is a parsed edge file: anterior and posterior values in the
// fixed orders of topology.AnteriorEdgeNames / PosteriorEdgeNames.
type edgeList struct{ ant, pos [4]edgeValue }

// parseEdgesJSON validates the strict JSON edge format.
func parseEdgesJSON(b []byte) (edgeList, error) {
	var top map[string]any
	var out edgeList
	if err := decodeJSON(b, &top); err != nil {
		return out, fmt.Errorf("not a JSON object: %v", err)
	}
	if len(top) != 2 || top["anterior"] == nil || top["posterior"] == nil {
		return out, fmt.Errorf("top level must have exactly the keys \"anterior\" and \"posterior\" (has %s)", keyList(top))
	}
	for _, part := range []struct {
		key   string
		names [4]string
		dst   *[4]edgeValue
	}{{"anterior", topology.AnteriorEdgeNames, &out.ant}, {"posterior", topology.PosteriorEdgeNames, &out.pos}} {
		m, ok := top[part.key].(map[string]any)
		if !ok {
			return out, fmt.Errorf("%q must be an object", part.key)
		}
		if len(m) != 4 {
			return out, fmt.Errorf("%q must have exactly the keys %s (has %s)", part.key, strings.Join(part.names[:], ", "), keyList(m))
		}
		for i, n := range part.names {
			v, ok := m[n]
			if !ok {
				return out, fmt.Errorf("%q must have exactly the keys %s (has %s)", part.key, strings.Join(part.names[:], ", "), keyList(m))
			}
			ev, err := jsonEdgeValue(v)
			if err != nil {
				return out, fmt.Errorf("%s.%s: %v", part.key, n, err)
			}
			part.dst[i] = ev
		}
	}
	return out, nil
}

func keyList(m map[string]any) string {
	ks := challenge.SortedKeys(m)
	return strings.Join(ks, ", ")
}

// yamlScalar interprets a plain YAML 1.1 scalar as PyYAML's safe_load
// does for the types that matter here (bool, int, float, null, string).
func yamlScalar(raw string) edgeValue {
	s := raw
	if len(s) >= 2 && ((s[0] == '"' && s[len(s)-1] == '"') || (s[0] == '\'' && s[len(s)-1] == '\'')) {
		str := s[1 : len(s)-1]
		n, err := strconv.Atoi(strings.TrimSpace(str))
		return edgeValue{str, n, err == nil}
	}
	switch s {
	case "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return edgeValue{"True", 1, true}
	case "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return edgeValue{"False", 0, true}
	case "", "~", "null", "Null", "NULL":
		return edgeValue{"None", 0, false}
	}
	t := strings.ReplaceAll(s, "_", "")
	sign, body := 1, t
	if strings.HasPrefix(body, "+") || strings.HasPrefix(body, "-") {
		if body[0] == '-' {
			sign = -1
		}
		body = body[1:]
	}
	base := 10
	switch {
	case strings.HasPrefix(body, "0x"):
		base, body = 16, body[2:]
	case strings.HasPrefix(body, "0b"):
		base, body = 2, body[2:]
	case len(body) > 1 && body[0] == '0' && !strings.ContainsAny(body, ".eE"):
		base, body = 8, body[1:]
	}
	if n, err := strconv.ParseInt(body, base, 64); err == nil && body != "" {
		return edgeValue{strconv.FormatInt(int64(sign)*n, 10), sign * int(n), true}
	}
	if strings.Contains(t, ".") {
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			return edgeValue{pyFloatStr(f), int(math.Trunc(f)), !math.IsInf(f, 0)}
		}
	}
	switch strings.ToLower(s) {
	case ".inf", "+.inf":
		return edgeValue{"inf", 0, false}
	case "-.inf":
		return edgeValue{"-inf", 0, false}
	case ".nan":
		return edgeValue{"nan", 0, false}
	}
	return edgeValue{s, 0, false}
}

// stripComment removes a " #" comment outside quotes.
func stripComment(s string) string {
	inS, inD := false, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'':
			if !inD {
				inS = !inS
			}
		case '"':
			if !inS {
				inD = !inD
			}
		case '#':
			if !inS && !inD && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t') {
				return s[:i]
			}
		}
	}
	return s
}

func unquoteKey(k string) string {
	k = strings.TrimSpace(k)
	if len(k) >= 2 && (k[0] == '"' || k[0] == '\'') && k[len(k)-1] == k[0] {
		return k[1 : len(k)-1]
	}
	return k
}

// parseYAMLMapping parses the two-level block mapping the edge files use
// (top-level keys, each with an indented block of "key: scalar" lines, or a
// flow mapping {k: v, …}). It is not a general YAML parser: anything else
// is reported as an error.
func parseYAMLMapping(text string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	var cur map[string]string
	for n, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line = strings.TrimRight(stripComment(line), " \t")
		if strings.TrimSpace(line) == "" || strings.TrimSpace(line) == "---" || strings.TrimSpace(line) == "..." {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			return nil, fmt.Errorf("line %d: expected \"key: value\"", n+1)
		}
		k, v = unquoteKey(k), strings.TrimSpace(v)
		if indent == 0 {
			cur = map[string]string{}
			out[k] = cur
			if strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}") {
				for _, item := range strings.Split(v[1:len(v)-1], ",") {
					if strings.TrimSpace(item) == "" {
						continue
					}
					ik, iv, ok := strings.Cut(item, ":")
					if !ok {
						return nil, fmt.Errorf("line %d: bad flow mapping item %q", n+1, item)
					}
					cur[unquoteKey(ik)] = strings.TrimSpace(iv)
				}
				cur = nil
			} else if v != "" {
				out[k] = nil // a scalar, not a mapping
				cur = nil
			}
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("line %d: indented entry outside a mapping", n+1)
		}
		cur[k] = v
	}
	return out, nil
}

// parseEdgesYAML reads a YAML edge file: a mapping with mappings
// "anterior" and "posterior" holding at least the eight edge keys; extra
// keys are ignored and values are not checked.
func parseEdgesYAML(b []byte) (edgeList, error) {
	var out edgeList
	m, err := parseYAMLMapping(string(b))
	if err != nil {
		return out, err
	}
	for _, part := range []struct {
		key   string
		names [4]string
		dst   *[4]edgeValue
	}{{"anterior", topology.AnteriorEdgeNames, &out.ant}, {"posterior", topology.PosteriorEdgeNames, &out.pos}} {
		sub := m[part.key]
		if sub == nil {
			return out, fmt.Errorf("missing mapping %q", part.key)
		}
		for i, n := range part.names {
			v, ok := sub[n]
			if !ok {
				return out, fmt.Errorf("%s: missing key %q", part.key, n)
			}
			part.dst[i] = yamlScalar(v)
		}
	}
	return out, nil
}

// variants renders an edge list as its anterior and posterior classes;
// official converts each value with int() first.
func (e edgeList) variants(official bool) (string, string, error) {
	render := func(vs [4]edgeValue) ([]string, error) {
		out := make([]string, 4)
		for i, v := range vs {
			if official {
				if !v.intOK {
					return nil, fmt.Errorf("value %q cannot be converted with int()", v.str)
				}
				out[i] = strconv.Itoa(v.asInt)
			} else {
				out[i] = v.str
			}
		}
		return out, nil
	}
	a, err := render(e.ant)
	if err != nil {
		return "", "", err
	}
	p, err := render(e.pos)
	if err != nil {
		return "", "", err
	}
	return topology.VariantClass("Var_Ant", a), topology.VariantClass("Var_Pos", p), nil
}

// readEdgesFile reads a predicted edge file: .json (strict), .yml or
// .yaml (lenient; the official evaluation refuses .yaml).
func readEdgesFile(submissionDir, rel, field string, mode challenge.Mode) (edgeList, error) {
	i := strings.LastIndex(rel, ".")
	ext := ""
	if i >= 0 {
		ext = strings.ToLower(rel[i+1:])
	}
	if ext != "json" && ext != "yml" && !(ext == "yaml" && mode == challenge.Reference) {
		want := ".json, .yml or .yaml"
		if mode == challenge.Official {
			want = ".json or .yml"
		}
		return edgeList{}, challenge.Invalidf(rel, field, "edge files must end in %s", want)
	}
	b, err := readSmall(submissionDir, rel, field)
	if err != nil {
		return edgeList{}, err
	}
	var e edgeList
	if ext == "json" {
		e, err = parseEdgesJSON(b)
	} else {
		e, err = parseEdgesYAML(b)
	}
	if err != nil {
		return e, challenge.Invalidf(rel, field, "%v", err)
	}
	return e, nil
}

func (c Challenge) gradeEdges(ctx context.Context, submissionDir string, rows []gradeRow, mode challenge.Mode) (*challenge.Result, error) {
	res := &challenge.Result{Mode: mode}
	var ta, pa, tp, pp []string
	var antDist, posDist []float64
	for _, r := range rows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		gb, err := readFileBytes(r.answer)
		if err != nil {
			return nil, err
		}
		gt, err := parseEdgesYAML(gb)
		if err != nil {
			return nil, fmt.Errorf("answer %s: %w", r.answer, err)
		}
		gA, gP, err := gt.variants(false)
		if err != nil {
			return nil, fmt.Errorf("answer %s: %w", r.answer, err)
		}
		_, rel, err := c.predictionPath(submissionDir, r.Row)
		if err != nil {
			return nil, err
		}
		field := fmt.Sprintf("%s (row %d)", c.pathColumn(), r.Line)
		pred, err := readEdgesFile(submissionDir, rel, field, mode)
		if err != nil {
			return nil, err
		}
		pA, pP, err := pred.variants(mode == challenge.Official)
		if err != nil {
			return nil, challenge.Invalidf(rel, field, "%v", err)
		}
		ta, pa, tp, pp = append(ta, gA), append(pa, pA), append(tp, gP), append(pp, pP)
		cv := map[string]float64{"anterior_correct": b2f(gA == pA), "posterior_correct": b2f(gP == pP)}
		if mode == challenge.Official {
			da, dp := variantDistance(gA, pA), variantDistance(gP, pP)
			antDist, posDist = append(antDist, da), append(posDist, dp)
			cv["anterior_edge_distance"], cv["posterior_edge_distance"] = da, dp
		}
		detail := caseDetail{Acc: map[string]classOutcome{"anterior_acc": {gA, gA == pA}, "posterior_acc": {gP, gP == pP}}}
		res.Cases = append(res.Cases, challenge.Case{ID: r.caseID, Values: cv, Detail: encodeDetail(detail)})
	}
	ant, err := stats.BalancedAccuracy(ta, pa)
	if err != nil {
		return nil, err
	}
	pos, err := stats.BalancedAccuracy(tp, pp)
	if err != nil {
		return nil, err
	}
	res.Set("anterior_acc", ant)
	res.Set("posterior_acc", pos)
	// Unranked organiser outputs (official mode; NaN in reference mode).
	res.Set("anterior_edge_distance", meanOrNaN(antDist))
	res.Set("posterior_edge_distance", meanOrNaN(posDist))
	return res, nil
}

// variantDistance is the Euclidean distance between the 4-edge vectors of
// two variant classes "Var_<side>_a_b_c_d" (NaN when either does not end
// in four integers).
func variantDistance(a, b string) float64 {
	va, okA := variantVector(a)
	vb, okB := variantVector(b)
	if !okA || !okB {
		return math.NaN()
	}
	s := 0.0
	for i := range va {
		d := va[i] - vb[i]
		s += d * d
	}
	return math.Sqrt(s)
}

func variantVector(v string) ([4]float64, bool) {
	var out [4]float64
	parts := strings.Split(v, "_")
	if len(parts) < 4 {
		return out, false
	}
	for i, p := range parts[len(parts)-4:] {
		n, err := strconv.Atoi(p)
		if err != nil {
			return out, false
		}
		out[i] = float64(n)
	}
	return out, true
}

func meanOrNaN(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	return mean(v)
}
