package usecase_test

import (
	"testing"

	"shipd/platform/usecase"
)

func TestUseCasesAreNamedAfterTheirModule(t *testing.T) {
	for path, want := range map[string]string{
		"shipd/modules/shipments/app/command": "shipments",
		"shipd/modules/tracking/app/query":    "tracking",
		"shipd/platform/usecase_test":         "",
	} {
		got, ok := usecase.ModuleOf(path)
		if got != want || ok != (want != "") {
			t.Errorf("moduleOf(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
}
