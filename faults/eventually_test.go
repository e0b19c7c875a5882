//go:build faults

package faults

import (
	"testing"
	"time"
)

// eventually polls check until it reports nothing wrong ("") or within
// passes, and returns how long that took. The last complaint is the failure
// message, so a timeout says what was still missing. Never a fixed sleep:
// a result that comes early ends the wait early. The pause between polls
// grows from 10 ms to 200 ms, so a long wait does not load the instance it
// watches with list requests.
func eventually(t testing.TB, within time.Duration, what string, check func() string) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(within)
	pause := 10 * time.Millisecond
	for {
		problem := check()
		if problem == "" {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %s", what, within, problem)
		}
		time.Sleep(pause) // between checks, backing off
		pause = min(pause*3/2, 200*time.Millisecond)
	}
}
