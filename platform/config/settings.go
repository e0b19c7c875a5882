package config

import (
	"cmp"
	"fmt"
	"reflect"
	"strings"
)

// Setting is one environment variable Config reads, as its struct tags
// describe it: the list serve --help prints and the README's
// "Configuration" table must hold, so neither can drift from the struct.
type Setting struct {
	Name    string // the variable: DATABASE_MAX_CONNS
	Default string // the envDefault tag; "" when it has none
	Unset   string // when it has no default, what unset means (the unset tag)
	Meaning string // one line (the help tag)
}

// Settings lists every variable Config reads, in the struct's order.
func Settings() []Setting {
	var out []Setting
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("env"), ",")
		if name == "" || name == "-" {
			continue
		}
		out = append(out, Setting{Name: name, Default: f.Tag.Get("envDefault"), Unset: f.Tag.Get("unset"), Meaning: f.Tag.Get("help")})
	}
	return out
}

// SettingsHelp is Settings as the text of a help screen: a line a
// variable, its meaning and its default (or what unset means).
func SettingsHelp() string {
	settings := Settings()
	width := 0
	for _, s := range settings {
		width = max(width, len(s.Name))
	}
	var b strings.Builder
	for _, s := range settings {
		when := "default: " + s.Default
		if s.Default == "" {
			when = "unset: " + cmp.Or(s.Unset, "not used")
		}
		fmt.Fprintf(&b, "  %-*s  %s (%s)\n", width, s.Name, s.Meaning, when)
	}
	return b.String()
}
