package ports_test

import (
	"os"
	"testing"

	"shipd/platform/postgres/pgtest"
)

// The databases the tests make are dropped while later tests run.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
