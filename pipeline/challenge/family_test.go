package challenge

import (
	"reflect"
	"strings"
	"testing"
)

// idOnly is a Challenge that only answers ID (the registry needs no more).
type idOnly struct {
	Challenge
	id string
}

func (c idOnly) ID() string { return c.id }

func TestRegisterFamily(t *testing.T) {
	RegisterFamily("zz-family", []idOnly{{id: "zz-family-b"}, {id: "zz-family-a"}})
	Register(idOnly{id: "zz-alone"})
	if got := Family("zz-family-a"); got != "zz-family" {
		t.Errorf("Family(zz-family-a) = %q, want zz-family", got)
	}
	if got := Family("zz-alone"); got != "zz-alone" {
		t.Errorf("Family(zz-alone) = %q, want its own id", got)
	}
	if _, ok := Lookup("zz-family-b"); !ok {
		t.Error("a variant is not registered")
	}
	fams := Families()
	if got := fams["zz-family"]; !reflect.DeepEqual(got, []string{"zz-family-a", "zz-family-b"}) {
		t.Errorf("Families()[zz-family] = %v", got)
	}
	if got := fams["zz-alone"]; !reflect.DeepEqual(got, []string{"zz-alone"}) {
		t.Errorf("Families()[zz-alone] = %v", got)
	}
	for name, call := range map[string]func(){
		"duplicate id": func() { RegisterFamily("other", []idOnly{{id: "zz-family-a"}}) },
		"empty family": func() { RegisterFamily("", []idOnly{{id: "zz-x"}}) },
		"no variants":  func() { RegisterFamily("zz-empty", []idOnly{}) },
		"nil variant":  func() { RegisterFamily("zz-nil", []Challenge{nil}) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "challenge: ") {
					t.Errorf("%s: recovered %v, want a challenge: panic", name, r)
				}
			}()
			call()
		}()
	}
}
