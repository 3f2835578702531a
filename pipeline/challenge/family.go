package challenge

import "sort"

// families maps each registered id to the family it was registered under.
var families = map[string]string{}

// RegisterFamily registers the variants of one challenge family, the tasks
// of one Grand Challenge that one package implements from a table (PUMA's
// four tracks and tasks, TopCoW's six, TopBrain's two, PANTHER's two), in
// the table's order. It is the one way a package defines a family and its
// variants, each package passing its own typed table; a challenge with a
// single task is not a family and calls Register. Like Register, it panics on a duplicate id, a nil
// variant, an empty family name or an empty table: programming errors found
// at start-up.
func RegisterFamily[C Challenge](family string, variants []C) {
	if family == "" {
		panic("challenge: RegisterFamily with an empty family name")
	}
	if len(variants) == 0 {
		panic("challenge: RegisterFamily of " + family + " with no variants")
	}
	for _, v := range variants {
		Register(Challenge(v))
		regMu.Lock()
		families[v.ID()] = family
		regMu.Unlock()
	}
}

// Family returns the family a registered challenge belongs to: the name
// given to RegisterFamily, or the id itself for a challenge registered
// alone with Register.
func Family(id string) string {
	regMu.RLock()
	defer regMu.RUnlock()
	if f, ok := families[id]; ok {
		return f
	}
	return id
}

// Families returns each family's registered ids, sorted; a challenge
// registered alone is a family of its own id.
func Families() map[string][]string {
	out := map[string][]string{}
	for _, id := range IDs() {
		f := Family(id)
		out[f] = append(out[f], id)
	}
	for _, ids := range out {
		sort.Strings(ids)
	}
	return out
}
