package fetch_test

import (
	"context"
	"fmt"
	"os"

	"github.com/rexmle/rexmle/pipeline/fetch"
)

// Example shows the calls a `mage fetch` target makes: a dry run prints the
// plan, a real run downloads and prints the summary. Sources normally come
// from benchmark.toml; these mirror the reference configs.
func Example() {
	sources := []fetch.Source{
		{Challenge: "isles22", Kind: fetch.KindZenodo, Record: "7960856", Files: []string{"ISLES-2022.zip"}, Extract: true},
		{Challenge: "ldct-iqa", Kind: fetch.KindZenodo, Record: "7833096", Extract: true},
		{Challenge: "ldct-iqa", Kind: fetch.KindGDrive, Record: "1DbZfTj4it-3QRTuJO73r1iQyHLRwPS6H", Files: []string{"test_dataset.zip"}, Extract: true},
		{Challenge: "seg_a", Kind: fetch.KindFigshare, Record: "14806362", Extract: true, ExtractToStem: true},
		{Challenge: "topcow-shared", Kind: fetch.KindZenodo, Record: "15692630", Files: []string{"TopCoW2024_Data_Release.zip"}, Extract: true},
	}
	opts := fetch.Options{RawRoot: "data/raw", Token: "a-zenodo-token", Progress: os.Stderr, IsTTY: true}
	ctx := context.Background()
	dryRun := true
	if dryRun {
		plan, err := fetch.Plan(ctx, sources, opts)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return
		}
		plan.Print(os.Stdout)
		return
	}
	sum, err := fetch.Fetch(ctx, sources, opts)
	if sum != nil {
		sum.Print(os.Stdout)
	}
	if err == nil {
		err = sum.Err()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}
