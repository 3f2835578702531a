package scriptedllm

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Engineer answers as an ML engineer model would. A request that offers a
// tool (WantedTool) gets a call of it, with ToolArgs[name] over arguments
// filled in from the tool's JSON schema (FillSchema); any other request
// gets Plan followed by Code in a ```python block. Review, when set,
// answers requests that look like a review of an executed script (they
// contain "execution output" or "Execution output") and offer no tool.
type Engineer struct {
	Plan     string
	Code     string
	Review   string
	ToolArgs map[string]map[string]any
}

// Reply implements Script.
func (e Engineer) Reply(r *Request) Reply {
	if t, ok := r.WantedTool(); ok {
		args := FillSchema(t.Parameters)
		for k, v := range e.ToolArgs[t.Name] {
			args[k] = v
		}
		return Reply{ToolCalls: []ToolCall{{Name: t.Name, Arguments: args}}}
	}
	if e.Review != "" && strings.Contains(strings.ToLower(r.Text()), "execution output") {
		return Reply{Content: e.Review}
	}
	plan := e.Plan
	if plan == "" {
		plan = "Plan: use the public sample submission's format, fit the simplest model, write the submission and check its format with the validation service."
	}
	code := e.Code
	if code == "" {
		code = SubmissionCode
	}
	return Reply{Content: plan + "\n\n```python\n" + strings.TrimRight(code, "\n") + "\n```\n"}
}

// FillSchema returns arguments that satisfy a JSON schema of type object:
// every property (required or not) gets its "default" or first "enum"
// value when it has one, else false, 0.5, 1, "scripted", [] or a filled
// object by its type. A schema that is not an object gives {}.
func FillSchema(schema json.RawMessage) map[string]any {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil {
		return map[string]any{}
	}
	out, ok := fillValue(s, 0).(map[string]any)
	if !ok {
		return map[string]any{}
	}
	return out
}

func fillValue(s map[string]any, depth int) any {
	if d, ok := s["default"]; ok {
		return d
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	typ, _ := s["type"].(string)
	if ts, ok := s["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	if typ == "" {
		if _, ok := s["properties"]; ok {
			typ = "object"
		}
	}
	switch typ {
	case "object":
		out := map[string]any{}
		if depth > 8 {
			return out
		}
		props, _ := s["properties"].(map[string]any)
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if ps, ok := props[n].(map[string]any); ok {
				out[n] = fillValue(ps, depth+1)
			}
		}
		return out
	case "boolean":
		return false
	case "number":
		return 0.5
	case "integer":
		return 1
	case "array":
		return []any{}
	case "null":
		return nil
	}
	return "scripted"
}

// SubmissionCode is the Python the Engineer writes by default (standard
// library only, so that any agent image runs it). It finds the public data
// (the folder holding sample_submission.csv: ./input, ../input, /data or
// below the working folder), fits the simplest model the task allows and
// writes ./submission/ in the sample submission's layout:
//
//   - CSV values: the training mean of a column of the same name found in
//     another CSV of the public folder (e.g. LDCT-IQA's quality_score), else
//     the sample's value;
//   - a NIfTI mask a row names (ISLES'22): all background, with the shape
//     and geometry of the row's first test image;
//   - a JSON predictions file a row names (DENTEX): one box per image, the
//     mean training box with the most frequent labels, score 0.5;
//   - any other file a row names: copied from the public folder.
//
// Then it asks the validation service about the folder (the adapter's
// bridge advertised in .grading_port, else $REXMLE_VALIDATE_HTTP or
// $REXMLE_VALIDATE_URL, else http://127.0.0.1:5000), prints the answer and
// a "Validation metric" line.
const SubmissionCode = `import csv, glob, gzip, json, os, shutil, struct, urllib.request
from collections import Counter

def find_input():
    for d in ("./input", "../input", "/data", os.environ.get("REXMLE_DATA", "")):
        if d and os.path.isfile(os.path.join(d, "sample_submission.csv")):
            return d
    for root, dirs, files in os.walk("."):
        if "sample_submission.csv" in files:
            return root
    raise SystemExit("no sample_submission.csv found")

def validation_url():
    d = os.path.abspath(".")
    while True:
        p = os.path.join(d, ".grading_port")
        if os.path.isfile(p):
            return "http://127.0.0.1:%s" % open(p).read().strip()
        if os.path.dirname(d) == d:
            break
        d = os.path.dirname(d)
    return os.environ.get("REXMLE_VALIDATE_HTTP") or os.environ.get("REXMLE_VALIDATE_URL") or "http://127.0.0.1:5000"

def column_means(src, names):
    sums = {}
    for p in glob.glob(os.path.join(src, "**", "*.csv"), recursive=True):
        if os.path.basename(p) == "sample_submission.csv":
            continue
        with open(p, newline="") as f:
            for row in csv.DictReader(f):
                for k in names:
                    try:
                        v = float(row.get(k, ""))
                    except ValueError:
                        continue
                    s = sums.setdefault(k, [0.0, 0])
                    s[0] += v
                    s[1] += 1
    return {k: s[0] / s[1] for k, s in sums.items() if s[1]}

def empty_mask(src, case, dst):
    imgs = sorted(p for p in glob.glob(os.path.join(src, "test*", "**", case + "*.nii*"), recursive=True))
    if not imgs:
        raise SystemExit("no test image for " + case)
    raw = open(imgs[0], "rb").read()
    if imgs[0].endswith(".gz"):
        raw = gzip.decompress(raw)
    hdr = bytearray(raw[:348])
    dims = struct.unpack("<8h", hdr[40:56])
    n = 1
    for d in dims[1:dims[0] + 1]:
        n *= max(d, 1)
    hdr[70:74] = struct.pack("<hh", 2, 8)
    hdr[108:120] = struct.pack("<fff", 352.0, 1.0, 0.0)
    body = bytes(hdr) + bytes(4) + bytes(n)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, "wb") as f:
        f.write(gzip.compress(body) if dst.endswith(".gz") else body)

def box_model(src):
    boxes, labels = [], [Counter(), Counter(), Counter()]
    for p in glob.glob(os.path.join(src, "train*", "**", "*.json"), recursive=True) + glob.glob(os.path.join(src, "*.json")):
        try:
            anns = json.load(open(p)).get("annotations", [])
        except (ValueError, AttributeError):
            continue
        for a in anns:
            if isinstance(a, dict) and len(a.get("bbox", [])) == 4:
                boxes.append(a["bbox"])
                for i in range(3):
                    labels[i][a.get("category_id_%d" % (i + 1), 0)] += 1
    if not boxes:
        return [0, 0, 1, 1], [0, 0, 0]
    box = [sum(b[i] for b in boxes) / len(boxes) for i in range(4)]
    return box, [c.most_common(1)[0][0] if c else 0 for c in labels]

src = find_input()
out = os.path.abspath("./submission")
os.makedirs(out, exist_ok=True)
with open(os.path.join(src, "sample_submission.csv"), newline="") as f:
    rows = list(csv.reader(f))
header, body = rows[0], rows[1:]
means = column_means(src, header[1:])
box = None
for row in body:
    for i, cell in enumerate(row):
        name = header[i] if i < len(header) else ""
        cell = cell.strip()
        if name in means:
            row[i] = repr(round(means[name], 6))
        elif cell and not os.path.isabs(cell) and ".." not in cell.split("/") and "." in os.path.basename(cell) and not cell.replace(".", "").isdigit():
            dst = os.path.join(out, cell)
            if os.path.isfile(os.path.join(src, cell)):
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copyfile(os.path.join(src, cell), dst)
            elif cell.endswith((".nii.gz", ".nii")):
                empty_mask(src, row[0], dst)
            elif cell.endswith(".json"):
                if box is None:
                    box = box_model(src)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                pred = {"image_id": row[0], "bbox": box[0], "score": 0.5}
                for k in range(3):
                    pred["category_id_%d" % (k + 1)] = box[1][k]
                json.dump([pred], open(dst, "w"))
with open(os.path.join(out, "submission.csv"), "w", newline="") as f:
    csv.writer(f).writerows([header] + body)
print("wrote %d rows to %s" % (len(body), out))
try:
    req = urllib.request.Request(validation_url() + "/validate", json.dumps({"dir": out}).encode(), {"Content-Type": "application/json"})
    print("validation:", urllib.request.urlopen(req, timeout=300).read().decode())
except Exception as err:
    print("validation failed:", err)
print("Validation metric: 0.5")
`

// ForAgent returns the script the smoke gives agent id: an Engineer writing
// SubmissionCode, with the tool arguments the agent's own code reads where
// they are known (AIDE's submit_review: is_bug, has_csv_submission,
// summary, metric, lower_is_better). Agents whose protocol needs more (e.g.
// R&D-Agent's JSON answers) get the same Engineer; their helpers' tests
// build fuller scripts with this package's API.
func ForAgent(id string) Script {
	e := Engineer{Review: "The script ran without errors and wrote ./submission/submission.csv; validation metric 0.5."}
	switch id {
	case "aide":
		e.ToolArgs = map[string]map[string]any{"submit_review": {
			"is_bug": false, "has_csv_submission": true, "metric": 0.5, "lower_is_better": false,
			"summary": fmt.Sprintf("The script copied the sample submission and validated it (%s).", id)}}
	}
	return e
}
