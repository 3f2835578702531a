package config

import "testing"

func TestLoadRepoBenchmark(t *testing.T) {
	b, err := Load("../../benchmark.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Challenges) != 20 {
		t.Fatalf("%d challenges", len(b.Challenges))
	}
}
