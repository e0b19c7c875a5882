package ports_test

import (
	"testing"
	"time"

	"shipd/modules/shipments/ports"
)

// The pause doubles from a second to five minutes; an attempt count of 0
// (a label step that counted nothing) waits the first pause, and never
// panics on a negative shift.
func TestBackoff(t *testing.T) {
	for attempt, want := range map[int]time.Duration{0: time.Second, 1: time.Second, 2: 2 * time.Second, 5: 16 * time.Second, 9: 256 * time.Second, 10: 5 * time.Minute, 100: 5 * time.Minute} {
		if got := ports.Backoff(attempt); got != want {
			t.Errorf("attempt %d: %v, want %v", attempt, got, want)
		}
	}
}
