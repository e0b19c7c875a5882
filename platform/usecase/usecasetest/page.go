package usecasetest

import (
	"encoding/json"
	"slices"
	"testing"

	"shipd/platform/usecase"
)

// WantPage asks list for q, in a parallel subtest called name, and checks
// the page it answers: the records of the ids want in that order, each
// read as the API's record R (id gives its id), and total matches in all.
func WantPage[Q, R any](t *testing.T, name string, list usecase.QueryHandler[Q, usecase.Page[json.RawMessage]], q Q,
	id func(R) string, want []string, total int,
) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		page, err := list.Handle(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, raw := range page.Records {
			var r R
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id(r))
		}
		if !slices.Equal(ids, want) || page.Total != total {
			t.Errorf("page %v of %d, want %v of %d", ids, page.Total, want, total)
		}
	})
}
