package sandbox

import (
	"strings"
	"testing"
)

// Every code a journey tells is in the status table, except the X- codes
// the unmapped journey exists to show; and every table entry is a standard
// status.
func TestStatusTableCoversTheJourneys(t *testing.T) {
	for j, scans := range journeys {
		for _, sc := range scans {
			_, mapped := statusTable[sc.code]
			if mapped == strings.HasPrefix(sc.code, "X-") {
				t.Errorf("journey %d code %s: mapped %v", j, sc.code, mapped)
			}
		}
	}
	for code, status := range statusTable {
		if !status.Valid() {
			t.Errorf("%s maps to %q", code, status)
		}
	}
}
