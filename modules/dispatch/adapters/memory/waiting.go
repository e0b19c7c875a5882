package memory

import (
	"cmp"
	"slices"
	"time"
)

// longestWaiting are the ids of the rows waiting since before (waiting
// says whether a row waits and since when), the longest waiting first,
// ties by id, at most limit: the Stale of both repositories.
func longestWaiting[S any](rows map[string]S, before time.Time, limit int, waiting func(S) (since time.Time, ok bool)) []string {
	type waiter struct {
		id    string
		since time.Time
	}
	var found []waiter
	for id, s := range rows {
		if since, ok := waiting(s); ok && since.Before(before) {
			found = append(found, waiter{id, since})
		}
	}
	slices.SortFunc(found, func(a, b waiter) int { return cmp.Or(a.since.Compare(b.since), cmp.Compare(a.id, b.id)) })
	var out []string
	for _, w := range found[:min(len(found), max(limit, 0))] {
		out = append(out, w.id)
	}
	return out
}
