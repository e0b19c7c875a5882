package postgres_test

import (
	"strings"
	"testing"

	"shipd/platform/postgres"
)

// With every query costly enough to compile (jit_above_cost 0 on the one
// connection), a plain query is compiled and SelectWithoutJIT's is not.
func TestSelectWithoutJITCompilesNothing(t *testing.T) {
	db := oneConnection(t, `SET jit_above_cost = 0`)
	const explain = `EXPLAIN (ANALYZE, FORMAT JSON) SELECT sum(n) FROM generate_series(1, 1000) n`
	var plain []string
	if err := db.SelectContext(t.Context(), &plain, explain); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(plain, ""), `"JIT"`) {
		t.Skip("this PostgreSQL compiles nothing even when told to (built without LLVM): nothing to compare")
	}
	var without []string
	if err := postgres.SelectWithoutJIT(t.Context(), db, &without, explain); err != nil {
		t.Fatal(err)
	}
	if plan := strings.Join(without, ""); plan == "" || strings.Contains(plan, `"JIT"`) {
		t.Errorf("SelectWithoutJIT's plan compiled the query (or is empty):\n%s", plan)
	}
}
