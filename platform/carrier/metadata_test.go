package carrier

import (
	"strings"
	"testing"
)

func TestMetadataBounds(t *testing.T) {
	// levels is an object nesting n levels, objects and arrays in turn.
	levels := func(n int) map[string]any {
		var v any = "leaf"
		for i := n - 1; i >= 0; i-- {
			if i%2 == 0 {
				v = map[string]any{"k": v}
			} else {
				v = []any{1, v}
			}
		}
		return v.(map[string]any)
	}
	cases := []struct {
		name string
		m    map[string]any
		want string // the start of the problem, "" for none
	}{
		{"nil", nil, ""},
		{"flat", map[string]any{"shop": "eu", "n": 1.5, "ok": true, "x": nil}, ""},
		{"8 levels", levels(8), ""},
		{"9 levels", levels(9), "must nest at most 8 levels"},
		{"1000 levels", levels(1000), "must nest at most 8 levels"},
		{"16 KiB", map[string]any{"k": strings.Repeat("a", MaxMetadataBytes-len(`{"k":""}`))}, ""},
		{"one byte more", map[string]any{"k": strings.Repeat("a", MaxMetadataBytes-len(`{"k":""}`)+1)}, "must be at most 16384 bytes as JSON (it is 16385)"},
	}
	for _, c := range cases {
		if got := MetadataProblem(c.m); !strings.HasPrefix(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("%s: MetadataProblem = %q, want %q...", c.name, got, c.want)
		}
	}
}
