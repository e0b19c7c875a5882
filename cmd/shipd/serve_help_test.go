package main_test

import (
	"os/exec"
	"strings"
	"testing"

	"shipd/platform/config"
)

// `shipd serve --help` names every setting the service reads from its
// environment, with its default and meaning (config.SettingsHelp, made
// from the struct's tags, so the list cannot drift from what is read).
func TestServeHelpListsEverySetting(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(binary, "serve", "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("serve --help: %v\n%s", err, out)
	}
	help := string(out)
	settings := config.Settings()
	if len(settings) < 30 {
		t.Fatalf("only %d settings", len(settings))
	}
	for _, s := range settings {
		found := false
		for line := range strings.SplitSeq(help, "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == s.Name && strings.Contains(line, s.Meaning) &&
				(s.Default == "" || strings.Contains(line, "(default: "+s.Default+")")) {
				found = true
			}
		}
		if !found {
			t.Errorf("serve --help has no line for %s with its meaning and default:\n%s", s.Name, help)
		}
	}
}
