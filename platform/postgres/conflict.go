package postgres

import (
	"errors"

	"github.com/lib/pq"
)

// IsConflict reports whether PostgreSQL failed a transaction for meeting
// another one rather than for what it asked: it broke a deadlock (40P01)
// or could not serialise it after a concurrent update (40001). The same
// work tried again in a new transaction passes.
func IsConflict(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && (pqErr.Code == "40P01" || pqErr.Code == "40001")
}
