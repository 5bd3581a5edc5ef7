package wiring

import (
	"slices"
	"testing"
)

func TestEveryFunctionHasOneAccessRow(t *testing.T) {
	var names []string
	for _, a := range Accesses() {
		names = append(names, a.Function)
	}
	if !slices.Equal(names, Functions()) {
		t.Errorf("access rows name %v; the route table's functions are %v", names, Functions())
	}
}
