package config_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"shipd/platform/config"
)

// Every variable Config reads has a meaning and a default (or says what
// unset means), and the README's "Configuration" table has a row naming
// it, with the same default; the table names nothing Config does not read.
func TestEverySettingIsInTheREADME(t *testing.T) {
	settings := config.Settings()
	if len(settings) < 30 {
		t.Fatalf("only %d settings found in config.Config: the struct tags are not read", len(settings))
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "\n## Configuration\n")
	if !ok {
		t.Fatal(`README.md has no "## Configuration" section`)
	}
	table, _, _ = strings.Cut(table, "\n## ")
	// A row's first cell names one or more variables; its last cell is the
	// default.
	rows := map[string]string{}
	name := regexp.MustCompile("`([A-Z][A-Z0-9_]+)`")
	for line := range strings.SplitSeq(table, "\n") {
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if !strings.HasPrefix(line, "| `") || len(cells) < 3 {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(cells[0], -1) {
			rows[m[1]] = strings.TrimSpace(cells[len(cells)-1])
		}
	}
	var names []string
	for _, s := range settings {
		names = append(names, s.Name)
		if s.Meaning == "" || (s.Default == "" && s.Unset == "") {
			t.Errorf("%s: meaning %q, default %q, unset %q: give it a help tag, and an envDefault or unset tag", s.Name, s.Meaning, s.Default, s.Unset)
		}
		def, ok := rows[s.Name]
		switch {
		case !ok:
			t.Errorf("%s is read by config.Config but has no row in the README's Configuration table", s.Name)
		case s.Default != "" && !strings.Contains(def, "`"+s.Default+"`"):
			t.Errorf("%s: the README's default is %q, the struct's %q", s.Name, def, s.Default)
		}
	}
	for n := range rows {
		if !slices.Contains(names, n) {
			t.Errorf("the README's Configuration table names %s, which config.Config does not read", n)
		}
	}
}

// The help screen lists every setting with its default.
func TestSettingsHelpListsEverySetting(t *testing.T) {
	help := config.SettingsHelp()
	for _, s := range config.Settings() {
		line := ""
		for l := range strings.SplitSeq(help, "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == s.Name {
				line = l
			}
		}
		want := "(default: " + s.Default + ")"
		if s.Default == "" {
			want = "(unset: " + s.Unset + ")"
		}
		if !strings.Contains(line, s.Meaning) || !strings.HasSuffix(line, want) {
			t.Errorf("%s: help line %q, want its meaning and %s", s.Name, line, want)
		}
	}
}
