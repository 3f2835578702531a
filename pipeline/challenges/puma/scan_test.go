package puma

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/jsonscan"
)

// pick returns one of the choices at random.
func pick(r *rand.Rand, choices ...string) string { return choices[r.IntN(len(choices))] }

// sp is random JSON white space (mostly none).
func sp(r *rand.Rand) string {
	if r.IntN(4) != 0 {
		return ""
	}
	return pick(r, " ", "\n", "\t", "\r\n  ", "  ")
}

func genNumber(r *rand.Rand) string {
	switch r.IntN(12) {
	case 0:
		return pick(r, "0", "-0", "0.0", "-0.0e0", "1e400", "-1e400", "1e-400", "4.9e-324", "1.7976931348623157e308")
	case 1:
		return pick(r, "01", "1.", ".5", "+1", "1e", "--1", "0x10", "NaN", "Infinity", "1_0") // invalid JSON
	case 2:
		return fmt.Sprintf("%d", r.IntN(2000)-10)
	case 3:
		return fmt.Sprintf("%gE%+d", r.Float64()*10, r.IntN(6)-3)
	case 4:
		return pick(r, `"1"`, "null", "true", "[1]", "{}")
	}
	return strconvG(r.Float64() * 1024)
}

func strconvG(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

func genName(r *rand.Rand) string {
	switch r.IntN(10) {
	case 0:
		return pick(r, "null", "1", "true", "false", "[]", `{"a":1}`, `["tumor"]`, "2.50")
	case 1:
		return pick(r, `"tum\u006fr"`, `"tumor\n"`, `"\ud83d\ude00"`, `"tu\"mor"`, `"\x"`, "\"a\x01b\"", "\"\xff\xfe\"", `"é"`, `"\/tumor"`)
	case 2:
		return pick(r, `" Tumor "`, `"TILs"`, `"til"`, `"Lymphocyte"`, `"tumour"`, `"others"`, `"nuclei_stroma"`, `"NUCLEI_PLASMA_CELL"`, `"nuclei_tumor"`, `"stroma"`, `""`)
	}
	return `"` + track2Classes[r.IntN(len(track2Classes))] + `"`
}

func genPoint(r *rand.Rand) string {
	switch r.IntN(25) {
	case 0:
		return pick(r, "[1]", "[]", `["1", 2]`, "null", "[1, null]", "5")
	case 1:
		return "[" + genNumber(r) + "," + sp(r) + genNumber(r) + "]"
	case 2:
		return "[" + strconvG(r.Float64()*1024) + ", " + strconvG(r.Float64()*1024) + ", " + pick(r, "0", `"z"`, "[1,[2]]", "null") + "]"
	}
	return "[" + sp(r) + strconvG(math.Round(r.Float64()*102400)/100) + "," + sp(r) + strconvG(math.Round(r.Float64()*102400)/100) + sp(r) + "]"
}

func genValue(r *rand.Rand, depth int) string {
	if depth > 3 {
		return genNumber(r)
	}
	switch r.IntN(6) {
	case 0:
		return genName(r)
	case 1:
		return "[" + genValue(r, depth+1) + "," + genValue(r, depth+1) + "]"
	case 2:
		return `{"k":` + genValue(r, depth+1) + `,"objectType":"cell"}`
	case 3:
		return pick(r, "true", "false", "null", "[]", "{}", `"\u00e9\n"`)
	}
	return genNumber(r)
}

func genItem(r *rand.Rand) string {
	if r.IntN(30) == 0 {
		return pick(r, "null", "1", `"x"`, "[]")
	}
	var members []string
	add := func(k, v string) { members = append(members, sp(r)+`"`+k+`"`+sp(r)+":"+sp(r)+v+sp(r)) }
	if r.IntN(8) != 0 {
		add(pick(r, "name", "name", "name", "class"), genName(r))
	}
	if r.IntN(10) == 0 {
		add(pick(r, "name", "class"), genName(r)) // both, or a duplicate
	}
	if r.IntN(3) != 0 {
		sc := strconvG(r.Float64())
		if r.IntN(6) == 0 {
			sc = genNumber(r)
		}
		add(pick(r, "score", "score", "confidence"), sc)
	}
	switch r.IntN(8) {
	case 0:
		add("centroid", genPoint(r))
	case 1:
	default:
		n := r.IntN(8)
		if r.IntN(10) == 0 {
			n = r.IntN(3)
		}
		pts := make([]string, n)
		for i := range pts {
			pts[i] = genPoint(r)
		}
		v := "[" + strings.Join(pts, ","+sp(r)) + "]"
		if r.IntN(40) == 0 {
			v = pick(r, "null", `"pts"`, "{}")
		}
		add("path_points", v)
		if r.IntN(15) == 0 {
			add("centroid", genPoint(r))
		}
		if r.IntN(30) == 0 {
			add("path_points", "[]") // duplicate: the last one wins
		}
	}
	if r.IntN(5) == 0 {
		add(pick(r, "id", "objectType", "Name", "nam\\u0065", "properties", "score2"), genValue(r, 1))
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	return "{" + strings.Join(members, ",") + "}"
}

// genNucleiDoc writes a random nuclei file: mostly the usual shape, with
// the legal oddities (nulls, duplicates, escapes, aliases, extra members,
// other types) and, now and then, a syntax error.
func genNucleiDoc(r *rand.Rand) string {
	var members []string
	few := r.IntN(2) == 0 // short lists: fewer oddities per file
	list := func() string {
		if r.IntN(20) == 0 {
			return pick(r, "null", "{}", `"x"`, "3")
		}
		items := make([]string, r.IntN(12))
		if few {
			items = items[:min(len(items), r.IntN(3))]
		}
		for i := range items {
			items[i] = genItem(r)
		}
		return "[" + sp(r) + strings.Join(items, ","+sp(r)) + sp(r) + "]"
	}
	if r.IntN(6) != 0 {
		members = append(members, `"polygons":`+sp(r)+list())
	}
	if r.IntN(5) == 0 {
		members = append(members, `"nuclei":`+sp(r)+list())
	}
	if r.IntN(12) == 0 {
		members = append(members, `"polygons":`+list()) // duplicate
	}
	if r.IntN(4) == 0 {
		members = append(members, pick(r, `"type"`, `"version"`, `"polygon\u0073"`, `""`)+":"+genValue(r, 1))
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	doc := sp(r) + "{" + sp(r) + strings.Join(members, ","+sp(r)) + sp(r) + "}" + sp(r)
	switch r.IntN(40) {
	case 0:
		doc += pick(r, "x", "{}", "\x00", "]")
	case 1:
		if len(doc) > 2 {
			doc = doc[:r.IntN(len(doc))]
		}
	case 2:
		if len(doc) > 2 {
			k := r.IntN(len(doc))
			doc = doc[:k] + pick(r, ",", "]", "}", `"`, "\\", "\x01", " ") + doc[k+1:]
		}
	case 3:
		doc = pick(r, "[]", "null", "", "  ", "\ufeff{}", `"polygons"`)
	}
	return doc
}

func samePoints(a, b []detection) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i].X) != math.Float64bits(b[i].X) || math.Float64bits(a[i].Y) != math.Float64bits(b[i].Y) ||
			math.Float64bits(a[i].Score) != math.Float64bits(b[i].Score) || a[i].Class != b[i].Class || a[i].BadScore != b[i].BadScore {
			return false
		}
	}
	return true
}

// checkScan requires the scanner, where it answers, to give exactly what
// parseNucleiJSON gives, for every track and mode; it returns how many of
// the four it answered.
func checkScan(t *testing.T, doc []byte) int {
	t.Helper()
	answered := 0
	for _, c := range []Challenge{Track1Task2, Track2Task2} {
		for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
			fast, ok := c.parseNucleiFast(doc, mode)
			if !ok {
				continue
			}
			answered++
			slow, err := c.parseNucleiJSON(doc, mode)
			if err != nil {
				t.Fatalf("track %d %s: the scanner accepted a file parseNucleiJSON refuses (%v):\n%s", c.track, mode, err, doc)
			}
			if !samePoints(fast, slow) {
				t.Fatalf("track %d %s: scanner %v, parseNucleiJSON %v:\n%s", c.track, mode, fast, slow, doc)
			}
		}
	}
	return answered
}

func TestScanMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 4))
	const n = 4000
	answered := 0
	for i := 0; i < n; i++ {
		if checkScan(t, []byte(genNucleiDoc(r))) >= 2 {
			answered++
		}
	}
	// The scanner must handle the bulk of the files, not fall back on all
	// (official mode leaves the items the organisers' code fails on — no
	// name, no path_points, a null name — to parseNucleiJSON, and most
	// random files have one).
	if answered < n/3 {
		t.Fatalf("scanner answered %d of %d files", answered, n)
	}
	t.Logf("scanner answered %d of %d random files", answered, n)
}

func TestScanAnswersUsualFiles(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 5))
	sc := makeCase(r)
	pf := PolygonFile{Polygons: []PolygonItem{}}
	for _, nu := range sc.nuclei {
		pf.Polygons = append(pf.Polygons, PolygonItem{Name: track2Classes[nu.cls], PathPoints: nu.ring, Score: r.Float64()})
	}
	for _, indent := range []bool{false, true} {
		var b []byte
		var err error
		if indent {
			b, err = json.MarshalIndent(pf, "", "  ")
		} else {
			b, err = json.Marshal(pf)
		}
		if err != nil {
			t.Fatal(err)
		}
		if checkScan(t, b) != 4 {
			t.Fatalf("the scanner left a usual file to encoding/json (indent %v)", indent)
		}
		pts, _ := Track2Task2.parseNucleiFast(b, challenge.Reference)
		if len(pts) != len(sc.nuclei) {
			t.Fatalf("%d points, want %d", len(pts), len(sc.nuclei))
		}
	}
	for _, doc := range []string{`{}`, `{"polygons":[]}`, ` {"nuclei":[{"class":"tumor","centroid":[1,2]}]} `,
		`{"polygons":[{"name":"tumor","path_points":[[0,0],[1,0]]}]}`} {
		if checkScan(t, []byte(doc)) != 4 {
			t.Fatalf("the scanner left %s to encoding/json", doc)
		}
	}
	// A null name: the reference skips the item, the organisers fail on
	// it (parseNucleiJSON gives the error).
	if doc := `{"polygons":[{"name":null,"path_points":[[0,0],[1,0],[1,1]]}]}`; checkScan(t, []byte(doc)) != 2 {
		t.Fatalf("the scanner left %s to parseNucleiJSON in reference mode, or answered it in official mode", doc)
	}
}

func FuzzScanNuclei(f *testing.F) {
	r := rand.New(rand.NewPCG(15, 6))
	for i := 0; i < 30; i++ {
		f.Add([]byte(genNucleiDoc(r)))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkScan(t, doc)
	})
}

// TestFloatMatchesParseFloat compares the scanner's one-pass conversion
// with strconv.ParseFloat on random JSON number literals (the exact path of
// jsonscan.Float is checked in its own package).
func TestFloatMatchesParseFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 7))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		return string(b)
	}
	for i := 0; i < 200000; i++ {
		lit := pick(r, "", "-")
		if r.IntN(5) == 0 {
			lit += "0"
		} else {
			lit += string(byte('1'+r.IntN(9))) + digits(r.IntN(17))
		}
		if r.IntN(2) == 0 {
			lit += "." + digits(1+r.IntN(17))
		}
		if r.IntN(4) == 0 {
			lit += pick(r, "e", "E") + pick(r, "", "+", "-") + fmt.Sprint(r.IntN(40))
		}
		if i%7 == 0 {
			lit = strconvG(r.NormFloat64() * math.Pow(10, float64(r.IntN(30)-15)))
		}
		want, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			t.Fatalf("generator wrote %q: %v", lit, err)
		}
		sc := &nucleiScanner{jsonscan.Lexer{B: []byte(lit)}}
		if got, ok := sc.float(); !ok || sc.I != len(lit) || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: float() %v (ok %v, read %d bytes), ParseFloat %v", lit, got, ok, sc.I, want)
		}
	}
}

// BenchmarkScanNuclei parses one indented file of about 100 nuclei, as
// BenchmarkGrade100 writes them.
func BenchmarkScanNuclei(b *testing.B) {
	r := rand.New(rand.NewPCG(15, 8))
	sc := makeCase(r)
	pf := PolygonFile{Polygons: []PolygonItem{}}
	for _, nu := range sc.nuclei {
		pf.Polygons = append(pf.Polygons, PolygonItem{Name: track2Classes[nu.cls], PathPoints: nu.ring, Score: 1})
	}
	data, err := json.MarshalIndent(pf, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for _, name := range []string{"scanner", "encoding-json"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var err error
				if name == "scanner" {
					_, ok := Track2Task2.parseNucleiFast(data, challenge.Reference)
					if !ok {
						b.Fatal("scanner fell back")
					}
				} else {
					_, err = Track2Task2.parseNucleiJSON(data, challenge.Reference)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
