package jsonfields_test

import (
	"reflect"
	"slices"
	"testing"

	"shipd/platform/jsonfields"
)

type inner struct {
	Name  string `json:"name"`
	Depth int    `json:"depth"`
}

type outer struct {
	*inner
	Name    string `json:"name"`
	Plain   int
	Skipped int    `json:"-"`
	hidden  string //nolint:unused // unexported: never a member
	Tagged  string `json:"tagged,omitempty"`
}

// The members are encoding/json's: tag names, Go names without one, "-"
// and unexported fields left out, an embedded struct's fields flattened one
// level deeper.
func TestOf(t *testing.T) {
	var got []string
	for f := range jsonfields.Of(reflect.TypeFor[outer]()) {
		got = append(got, f.Name+"@"+string(rune('0'+f.Depth)))
	}
	want := []string{"name@1", "depth@1", "name@0", "Plain@0", "tagged@0"}
	if !slices.Equal(got, want) {
		t.Errorf("members %v, want %v", got, want)
	}
}
