package carrier

import (
	"strings"
	"testing"
)

func TestTextAndNameProblems(t *testing.T) {
	cases := []struct {
		in         string
		text, name string // the start of the problem each rule names, "" for none
	}{
		{"Ref 123/ÅÖ-北京", "", ""},
		{"", "", ""},
		{"a\tb", "must not contain control", "must not contain control"},
		{"a\r\nb", "must not contain control", "must not contain control"},
		{"a\x00", "must not contain control", "must not contain control"},
		{"a\u0085", "must not contain control", "must not contain control"},
		{"a\u2028", "must not contain control", "must not contain control"},
		{"abc\u202Etxt", "", "must not contain invisible"},
		{"ab\u200Bc", "", "must not contain invisible"},
		{"\uFEFFabc", "", "must not contain invisible"},
		{"a\u2066b", "", "must not contain invisible"},
	}
	for _, c := range cases {
		if got := TextProblem(c.in); !strings.HasPrefix(got, c.text) || (c.text == "") != (got == "") {
			t.Errorf("TextProblem(%q) = %q, want %q...", c.in, got, c.text)
		}
		if got := NameProblem(c.in); !strings.HasPrefix(got, c.name) || (c.name == "") != (got == "") {
			t.Errorf("NameProblem(%q) = %q, want %q...", c.in, got, c.name)
		}
	}
}
