package challenge

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// Table is a CSV file read as strings: a header and rows.
type Table struct {
	Path   string // for messages
	Header []string
	Rows   [][]string
}

// ReadCSV reads a CSV with a header row. Blank lines are skipped (as pandas
// does); a row with fewer fields than the header gets empty ones for the
// rest (pandas reads NaN there, and "" is one of its missing values), a row
// with more is an error (pandas': "Expected n fields"). Errors name the
// file and the line. Only a regular file is opened (a FIFO or device is
// refused before open), and the size caps of ParseCSV apply.
func ReadCSV(path string) (*Table, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseCSV(f, filepath.Base(path))
}

// ParseCSV is ReadCSV over a reader; name is used in messages. The file
// must be UTF-8 (pandas reads it so, strictly). A file larger
// than MaxCSVBytes is rejected from its size before it is read (when r is an
// *os.File), a line longer than MaxLineBytes or a field longer than
// MaxFieldBytes as soon as it is met; error messages never repeat more than
// MaxEcho bytes of a field.
func ParseCSV(r io.Reader, name string) (*Table, error) {
	if err := checkSize(r, name, MaxCSVBytes); err != nil {
		return nil, err
	}
	// Read through the caps (so a stream with a huge line stops early), then
	// parse the bytes.
	data, err := imageio.ReadAllInto(make([]byte, 0, sizeHint(r)), &boundedReader{r: r, name: name, max: MaxCSVBytes, maxLine: MaxLineBytes})
	if err == nil {
		data = crLines(data)
	}
	if err == nil && !utf8.Valid(data) {
		// pandas decodes the file as UTF-8 (strictly) and fails.
		return nil, fmt.Errorf("%s: %w", name, notUTF8(data))
	}
	if err == nil {
		if t, ok := parsePlainCSV(data, name); ok {
			return t, nil
		}
	}
	// Quoted fields, a wrong field count, a cap or a read error:
	// encoding/csv over the same bytes says what is wrong, at the first
	// place it is wrong (and pads a short row).
	var rest io.Reader = strings.NewReader("")
	if err != nil {
		rest = errReader{err}
	}
	return parseCSVStream(io.MultiReader(bytes.NewReader(data), rest), name)
}

// notUTF8 describes where data stops being UTF-8: the line and the byte.
func notUTF8(data []byte) error {
	i := 0
	for i < len(data) {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	line := 1 + bytes.Count(data[:i], []byte{'\n'})
	return fmt.Errorf("line %d: byte %#02x at offset %d is not UTF-8; save the file as UTF-8", line, data[min(i, len(data)-1)], i)
}

// crLines turns the lone carriage returns that end the lines of a file
// without a line feed (classic Mac) into line feeds: pandas' parser ends a
// line at either.
func crLines(data []byte) []byte {
	if bytes.IndexByte(data, '\r') < 0 || bytes.IndexByte(data, '\n') >= 0 {
		return data
	}
	return bytes.ReplaceAll(data, []byte{'\r'}, []byte{'\n'})
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// sizeHint is r's size plus one when r is a file (the read that sees the
// end), else a small start.
func sizeHint(r io.Reader) int {
	if s, ok := r.(sizer); ok {
		if st, err := s.Stat(); err == nil && st.Size() < MaxCSVBytes {
			return int(st.Size()) + 1
		}
	}
	return 512
}

// parsePlainCSV is the common case of ParseCSV: a file without a double
// quote, so every record is one line. It reads it as encoding/csv does
// (a "\r" before a newline or at the end is dropped, empty lines are
// skipped, the rest of a "\r" is data) with one string for the whole file
// and one slice for all fields. It reports false for anything it leaves to
// the full parser: quotes, a line or field over its cap, a record whose
// field count differs from the header's, an empty file.
func parsePlainCSV(data []byte, name string) (*Table, bool) {
	if bytes.IndexByte(data, '"') >= 0 {
		return nil, false
	}
	text := string(data)
	lines := strings.Count(text, "\n") + 1
	t := &Table{Path: name}
	var fields []string
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if len(line) > MaxLineBytes {
			return nil, false
		}
		line = strings.TrimSuffix(line, "\r")
		if line == "" || (strings.IndexByte(line, ',') < 0 && strings.TrimSpace(line) == "") {
			continue // empty, or one blank field: skipped (pandas does too)
		}
		if t.Header == nil {
			t.Header = strings.Split(line, ",")
			for i, h := range t.Header {
				if len(h) > MaxFieldBytes {
					return nil, false
				}
				t.Header[i] = strings.TrimPrefix(h, "\ufeff")
			}
			fields = make([]string, 0, lines*len(t.Header))
			t.Rows = make([][]string, 0, lines)
			continue
		}
		start := len(fields)
		for k := 1; k < len(t.Header); k++ {
			i := strings.IndexByte(line, ',')
			if i < 0 || i > MaxFieldBytes {
				return nil, false // too few fields, or a long one
			}
			fields = append(fields, line[:i])
			line = line[i+1:]
		}
		if len(line) > MaxFieldBytes || strings.IndexByte(line, ',') >= 0 {
			return nil, false // a long last field, or too many fields
		}
		fields = append(fields, line)
		t.Rows = append(t.Rows, fields[start:len(fields):len(fields)])
	}
	if t.Header == nil {
		return nil, false
	}
	return t, true
}

// parseCSVStream is ParseCSV's full parser (encoding/csv) with the size caps.
func parseCSVStream(r io.Reader, name string) (*Table, error) {
	r = &boundedReader{r: r, name: name, max: MaxCSVBytes, maxLine: MaxLineBytes}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	t := &Table{Path: name}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				return nil, err
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for i, v := range rec {
			if len(v) > MaxFieldBytes {
				line, col := cr.FieldPos(i)
				return nil, fmt.Errorf("%s: line %d, column %d: %w: a field of %d bytes, the limit is %d (starts %q)", name, line, col, ErrTooLarge, len(v), MaxFieldBytes, Clip(v[:min(len(v), 40)]))
			}
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if t.Header == nil {
			for i := range rec {
				rec[i] = strings.TrimPrefix(rec[i], "\ufeff")
			}
			t.Header = rec
			continue
		}
		if len(rec) > len(t.Header) {
			line, _ := cr.FieldPos(0)
			return nil, fmt.Errorf("%s: line %d has %d fields, header has %d", name, line, len(rec), len(t.Header))
		}
		for len(rec) < len(t.Header) {
			rec = append(rec, "") // a missing field: pandas reads NaN
		}
		t.Rows = append(t.Rows, rec)
	}
	if t.Header == nil {
		return nil, fmt.Errorf("%s: empty file, want a header row", name)
	}
	return t, nil
}

// Col returns the index of a column, or an error naming the columns present.
func (t *Table) Col(name string) (int, error) {
	for i, h := range t.Header {
		if h == name {
			return i, nil
		}
	}
	return -1, fmt.Errorf("%s: no column %q (columns: %s)", t.Path, name, Clip(strings.Join(t.Header, ", ")))
}

// Column returns every value of a column.
func (t *Table) Column(name string) ([]string, error) {
	i, err := t.Col(name)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(t.Rows))
	for r, row := range t.Rows {
		out[r] = row[i]
	}
	return out, nil
}

// pandasNA is pandas' default set of strings read_csv reads as missing
// (NaN), matched against the whole field as written: pandas 2's set, the
// reference's (pandas 1.5 lacks "None").
var pandasNA = map[string]bool{
	"": true, "#N/A": true, "#N/A N/A": true, "#NA": true, "-1.#IND": true, "-1.#QNAN": true,
	"-NaN": true, "-nan": true, "1.#IND": true, "1.#QNAN": true, "<NA>": true, "N/A": true,
	"NA": true, "NULL": true, "NaN": true, "None": true, "n/a": true, "nan": true, "null": true,
}

// PandasNA reports whether pandas' read_csv reads the CSV field v as a
// missing value (NaN) by default.
func PandasNA(v string) bool {
	if len(v) > 8 {
		return false // longer than every NA string
	}
	if v != "" {
		switch v[0] {
		case '#', '-', '1', '<', 'N', 'n':
		default:
			return false // no NA string starts so
		}
	}
	return pandasNA[v]
}

// PandasNAKey is the id PandasIDs gives a missing value: it matches no id
// read from a file.
const PandasNAKey = "\x00NaN"

// PandasIDs normalises an id column the way pandas' default type inference
// does before the reference merges on it: fields pandas reads as missing
// become PandasNAKey; when every other value parses as an integer
// (surrounding blanks ignored, as pandas' number parser does) the column is
// numeric, so "0007" and " 7" are the id 7; any other column stays text,
// each value exactly as written (pandas keeps the blanks of a text field).
func PandasIDs(values []string) []string {
	out := make([]string, len(values))
	allInt := true
	for i, v := range values {
		if PandasNA(v) {
			out[i] = PandasNAKey
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			allInt = false
		}
		out[i] = strconv.FormatInt(n, 10)
	}
	if !allInt {
		for i, v := range values {
			if out[i] != PandasNAKey {
				out[i] = v
			}
		}
	}
	return out
}

// WriteFileAtomic writes data to path atomically and durably, creating
// parent folders; the file ends up mode 0644 (fsutil.WriteFile).
func WriteFileAtomic(path string, data []byte) error { return fsutil.WriteFile(path, data, 0o644) }

// WriteCSV writes a header and rows to path atomically.
func WriteCSV(path string, header []string, rows [][]string) error {
	var b strings.Builder
	w := csv.NewWriter(&b)
	if err := w.Write(header); err != nil {
		return err
	}
	if err := w.WriteAll(rows); err != nil {
		return err
	}
	return WriteFileAtomic(path, []byte(b.String()))
}

// ManifestName is the file Prepare's caller writes into the data folder.
const ManifestName = "manifest.json"

// Manifest lists the sha256 of every file under a prepared data folder.
type Manifest struct {
	Challenge string `json:"challenge"`
	InputHash string `json:"input_hash"`     // hash of what the preparation read (raw data listing, code version)
	Data      string `json:"data,omitempty"` // what the raw data was: "synthetic" (demo) or "fetched"
	// SynthSize is the synthetic data's size (REXMLE_SYNTH_CASES: "full" or
	// a case count); empty for the default size and for fetched data.
	SynthSize string            `json:"synth_size,omitempty"`
	Files     map[string]string `json:"files"` // slash path relative to the data folder → sha256
}

// HashTree returns the sha256 of every regular file under dir, keyed by slash
// path relative to dir, skipping the manifest itself.
func HashTree(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == ManifestName {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return fmt.Errorf("hash %s: %w", p, err)
		}
		out[rel] = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	return out, err
}

// WriteManifestData hashes dataDir and writes dataDir/manifest.json
// atomically, recording the kind of data prepared (Manifest.Data).
func WriteManifestData(dataDir, challengeID, inputHash, kind string) (*Manifest, error) {
	return WriteManifestSized(dataDir, challengeID, inputHash, kind, SynthSize{})
}

// WriteManifestSized is WriteManifestData recording the synthetic data's
// size too (nothing at the default size: such a manifest is byte-identical
// to WriteManifestData's).
func WriteManifestSized(dataDir, challengeID, inputHash, kind string, size SynthSize) (*Manifest, error) {
	files, err := HashTree(dataDir)
	if err != nil {
		return nil, fmt.Errorf("manifest of %s: %w", dataDir, err)
	}
	m := &Manifest{Challenge: challengeID, InputHash: inputHash, Data: kind, Files: files}
	if !size.IsDefault() {
		m.SynthSize = size.String()
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return m, WriteFileAtomic(filepath.Join(dataDir, ManifestName), append(b, '\n'))
}

// Size is the recorded synthetic data size ("default" when none is recorded).
func (m *Manifest) Size() string {
	if m.SynthSize == "" {
		return SynthSize{}.String()
	}
	return m.SynthSize
}

// ReadManifest reads dataDir/manifest.json.
func ReadManifest(dataDir string) (*Manifest, error) {
	b, err := ReadFileMax(filepath.Join(dataDir, ManifestName), MaxJSONBytes)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dataDir, ManifestName), err)
	}
	return &m, nil
}

// SortedKeys returns a map's keys in order; handy for deterministic output.
func SortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// ReadColumns reads the named columns of a CSV file, in the order given; an
// error names the file and the missing column.
func ReadColumns(path string, names ...string) ([][]string, error) {
	tab, err := ReadCSV(path)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(names))
	for i, n := range names {
		if out[i], err = tab.Column(n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// WriteColumns writes equal-length columns under header to path atomically.
func WriteColumns(path string, header []string, cols ...[]string) error {
	if len(cols) != len(header) {
		return fmt.Errorf("write %s: %d columns for %d header names", path, len(cols), len(header))
	}
	n := 0
	if len(cols) > 0 {
		n = len(cols[0])
	}
	rows := make([][]string, n)
	for r := range rows {
		rows[r] = make([]string, len(cols))
		for c, col := range cols {
			if len(col) != n {
				return fmt.Errorf("write %s: column %q has %d values, want %d", path, header[c], len(col), n)
			}
			rows[r][c] = col[r]
		}
	}
	return WriteCSV(path, header, rows)
}

// MergePair is one row of pandas' inner merge of the test rows with a
// submission: a test row and a submission row with the same key.
type MergePair struct{ Test, Row int }

// InnerMerge pairs the test rows with the submission rows of the same key
// as pandas' answers.merge(submission, on=id) does: each test row in
// order, with every submission row of its key in their order. The
// reference graders then only ask for as many pairs as test rows, so a
// repeated id can make up for a missing one; any other count is an
// *InvalidSubmission of file's field naming the missing and the repeated
// ids (testIDs are the ids as written, for messages). repeated describes
// the test ids paired more than once (for a note).
func InnerMerge(file, field string, testKeys, testIDs, subKeys []string) (pairs []MergePair, repeated []string, err error) {
	first := make(map[string]int, len(subKeys))
	next := make([]int, len(subKeys)) // the next row of the same key, −1 after the last
	for i := len(subKeys) - 1; i >= 0; i-- {
		if f, ok := first[subKeys[i]]; ok {
			next[i] = f
		} else {
			next[i] = -1
		}
		first[subKeys[i]] = i
	}
	pairs = make([]MergePair, 0, len(testKeys))
	var missing []string
	for i, key := range testKeys {
		n := 0
		k, ok := first[key]
		for ok && k >= 0 {
			pairs = append(pairs, MergePair{i, k})
			n++
			k = next[k]
		}
		switch {
		case n == 0:
			missing = append(missing, testIDs[i])
		case n > 1:
			repeated = append(repeated, fmt.Sprintf("%s (%d rows)", testIDs[i], n))
		}
	}
	if len(pairs) == len(testKeys) {
		return pairs, repeated, nil
	}
	msg := fmt.Sprintf("the test cases and the submission's rows make %d pairs, want one per test case (%d)", len(pairs), len(testKeys))
	if len(missing) > 0 {
		msg += fmt.Sprintf("; missing predictions for %d test cases (first: %s)", len(missing), strings.Join(missing[:min(5, len(missing))], ", "))
	}
	if len(repeated) > 0 {
		msg += fmt.Sprintf("; duplicate %s: %s", field, strings.Join(repeated[:min(5, len(repeated))], ", "))
	}
	return nil, nil, Invalidf(file, field, "%s", msg)
}
