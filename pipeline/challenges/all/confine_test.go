package all

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// pathOpeners are the calls that open or look up a file by a path the
// caller built. A grader reads the files of a submission only through
// challenge.OpenInside/StatInside/ResolveInside (the confinement rule, see
// pipeline/challenge/inside.go), never through one of these.
var pathOpeners = map[string]*regexp.Regexp{
	"os":        regexp.MustCompile(`^(Open|OpenFile|ReadFile|Stat|Lstat|ReadDir|OpenRoot|Readlink)$`),
	"filepath":  regexp.MustCompile(`^(Glob|Walk|WalkDir|EvalSymlinks)$`),
	"challenge": regexp.MustCompile(`^(ReadCSV|ReadColumns|OpenRegular|ReadFileMax|HashTree)$`),
	"imageio":   regexp.MustCompile(`^(Read|ReadBytes|Read.*File.*|OneBitPictureFile)$`),
	// The format packages under metrics/imageio.
	"nifti":     regexp.MustCompile(`^Read.*File.*$`),
	"metaimage": regexp.MustCompile(`^Read.*File.*$`),
	"nrrd":      regexp.MustCompile(`^Read.*File.*$`),
	"png":       regexp.MustCompile(`^Read.*File.*$`),
	"tiff":      regexp.MustCompile(`^Read.*File.*$`),
}

// pathArg is the argument that holds the path where it is not the first.
var pathArg = map[string]int{"ReadGray8FileInto": 1}

// submissionRoot matches a path expression built from a submission folder.
var submissionRoot = regexp.MustCompile(`\b(submissionDir|subDir|submission|outDir)\b`)

// preparedData matches a path expression built from the prepared data or
// the raw download, which the pipeline wrote and the agent cannot touch.
var preparedData = regexp.MustCompile(`\b(privateDir|publicDir|rawDir|dataDir|adir)\b`)

// allowedByPath are the functions that may open paths that are neither
// visibly prepared data nor a submission root, each with why it is safe.
// A name here that no longer opens anything fails the test too.
const sealedRead = "reads a path challenge.ResolveInside checked inside the submission folder; graders only ever see sealed copies (the grade stage's seal, the endpoint's snapshot) that hold no links and that nothing else writes to"

var allowedByPath = map[string]string{
	"cellseg/grade.go:decodePredictionMax":   sealedRead,
	"cellseg/grade.go:readTruth":             "a private label image named by the answers",
	"cellseg/prepare.go:findPairs":           "preparation: reads the raw download or its own synthetic data",
	"cellseg/submit.go:SampleSubmission":     "built-in agents and oracles: read the public data (Perfect: the private answers) to write a submission",
	"cellseg/submit.go:findImage":            "built-in agents and oracles: read the public data (Perfect: the private answers) to write a submission",
	"cellseg/submit.go:greyImage":            "built-in agents and oracles: read the public data (Perfect: the private answers) to write a submission",
	"dentex/prepare.go:findFiles":            "preparation: reads the raw download or its own synthetic data",
	"dentex/prepare.go:loadSource":           "preparation: reads the raw download or its own synthetic data",
	"dentex/prepare.go:readCOCO":             "preparation: reads the raw download or its own synthetic data",
	"dentex/submissions.go:brightComponents": "built-in agents and oracles: read the public data (Perfect: the private answers) to write a submission",
	"isles22/grade.go:readTruth":             "the private ground truth (gtFile, under privateDir)",
	"isles22/prepare.go:Discover":            "preparation: reads the raw download or its own synthetic data",
	"isles22/prepare.go:datasetDir":          "preparation: reads the raw download or its own synthetic data",
	"isles22/prepare.go:isDir":               "preparation: reads the raw download or its own synthetic data",
	"isles22/prepare.go:isFile":              "preparation: reads the raw download or its own synthetic data",
	"isles22/submit.go:Baseline":             "built-in agents and oracles: read the public data (Perfect: the private answers) to write a submission",
	"ldctiqa/prepare.go:globSorted":          "preparation: reads the raw download or its own synthetic data",
	"ldctiqa/prepare.go:readScores":          "preparation: reads the raw download or its own synthetic data",
	"ldctiqa/submissions.go:noiseLevel":      "built-in agents and oracles: read the public data (Perfect: the private answers) to write a submission",
	"medseg/load.go:LoadInto":                "reads a path challenge.ResolveInside checked inside the submission folder; graders only ever see sealed copies (the grade stage's seal, the endpoint's snapshot) that hold no links and that nothing else writes to (a .mhd's detached data file is refused when it leaves the folder)",
	"medseg/load.go:LoadAnswerInto":          "a private answer volume",
	"medseg/submission.go:Answers":           "the private answers (test_labels.csv under privateDir)",
	"panthercommon/load.go:concurrentShape":  "the header of a private answer volume",
	"panthercommon/prepare.go:Discover":      "preparation: reads the raw download or its own synthetic data",
	"panthercommon/prepare.go:isDir":         "preparation: reads the raw download or its own synthetic data",
	"panthercommon/prepare.go:isFile":        "preparation: reads the raw download or its own synthetic data",
	"panthercommon/submit.go:Baseline":       "built-in agents and oracles: read the public data (Perfect: the private answers) to write a submission",
	"panthercommon/submit.go:writeMasks":     "built-in agents and oracles: read the public data (Perfect: the private answers) to write a submission",
	"puma/masks.go:readImageFile":            "reads a path challenge.ResolveInside checked inside the submission folder; graders only ever see sealed copies (the grade stage's seal, the endpoint's snapshot) that hold no links and that nothing else writes to; also reads private truth masks",
	"puma/masks.go:readMaskFileMax":          "reads a path challenge.ResolveInside checked inside the submission folder; graders only ever see sealed copies (the grade stage's seal, the endpoint's snapshot) that hold no links and that nothing else writes to; also reads private truth masks",
	"puma/nuclei.go:readTruthFile":           "a private truth file",
	"puma/prepare.go:cases":                  "preparation: reads the raw download or its own synthetic data",
	"puma/prepare.go:findLabel":              "preparation: reads the raw download or its own synthetic data",
	"puma/prepare.go:readFeatures":           "preparation: reads the raw download or its own synthetic data",
	"puma/synth.go:Synthesize":               "preparation: reads the raw download or its own synthetic data",
	"sega/prepare.go:hasNRRD":                "preparation: reads the raw download or its own synthetic data",
	"sega/prepare.go:isDir":                  "preparation: reads the raw download or its own synthetic data",
	"sega/prepare.go:isFile":                 "preparation: reads the raw download or its own synthetic data",
	"sega/submit.go:Baseline":                "built-in agents and oracles: read the public data (Perfect: the private answers) to write a submission",
	"topcowcommon/edges.go:readFileBytes":    "private truth and prepared files",
	"topcowcommon/grade.go:cropToROI":        "the private ROI box of an answer",
	"topcowcommon/load.go:readGT":            "a private ground-truth volume",
	"topcowcommon/load.go:readPrediction":    sealedRead,
	"topcowcommon/prepare.go:Prepare":        "preparation: reads the raw download or its own synthetic data",
	"topcowcommon/prepare.go:candidates":     "preparation: reads the raw download or its own synthetic data",
	"topcowcommon/prepare.go:dataRoot":       "preparation: reads the raw download or its own synthetic data",
	"topcowcommon/prepare.go:readBoxText":    "preparation: reads the raw download or its own synthetic data",
	"topcowcommon/submit.go:Perfect":         "built-in agents and oracles: read the public data (Perfect: the private answers) to write a submission",
	"usenhance/grade.go:loadGrayMax":         "reads a path challenge.ResolveInside checked inside the submission folder; graders only ever see sealed copies (the grade stage's seal, the endpoint's snapshot) that hold no links and that nothing else writes to; also reads the private ground truth",
	"usenhance/grade.go:loadMode8":           "reads a path challenge.ResolveInside checked inside the submission folder, 8-bit grey, 16-bit grey, grey+alpha, RGB and RGBA PNGs; graders only ever see sealed copies (the grade stage's seal, the endpoint's snapshot) that hold no links and that nothing else writes to; also reads the private ground truth",
	"usenhance/prepare.go:findTrainDir":      "preparation: reads the raw download or its own synthetic data",
	"usenhance/prepare.go:listPairs":         "preparation: reads the raw download or its own synthetic data",
}

func TestGradersOpenSubmissionsThroughTheRule(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join("..", "*", "*", "*.go"))
	files = append(files, more...)
	used := map[string]bool{}
	var bad []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.Contains(f, "test"+string(filepath.Separator)) {
			continue // tests and the test kits (…test/) make and read their own files
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel("..", f)
		rel = filepath.ToSlash(rel)
		for _, d := range af.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := rel + ":" + fn.Name.Name
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) <= 1 && pathArgOf(call) >= len(call.Args) {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pkg, ok := sel.X.(*ast.Ident)
				if !ok || pathOpeners[pkg.Name] == nil || !pathOpeners[pkg.Name].MatchString(sel.Sel.Name) {
					return true
				}
				a := call.Args[pathArg[sel.Sel.Name]]
				arg := string(src[fset.Position(a.Pos()).Offset:fset.Position(a.End()).Offset])
				where := fset.Position(call.Pos()).String()
				switch {
				case submissionRoot.MatchString(arg):
					bad = append(bad, where+": "+name+" opens a submission path itself: "+pkg.Name+"."+sel.Sel.Name+"("+arg+"); use challenge.OpenInside")
				case preparedData.MatchString(arg):
				case allowedByPath[name] != "":
					used[name] = true
				default:
					bad = append(bad, where+": "+name+": "+pkg.Name+"."+sel.Sel.Name+"("+arg+") opens a path that is not visibly prepared data; open submission files with challenge.OpenInside, or add the function to allowedByPath saying why its paths are safe")
				}
				return true
			})
		}
	}
	for name := range allowedByPath {
		if !used[name] {
			bad = append(bad, "allowedByPath lists "+name+", which opens no path any more")
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

func pathArgOf(call *ast.CallExpr) int {
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		return pathArg[sel.Sel.Name]
	}
	return 0
}
