package clock_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"shipd/platform/clock"
)

func TestReal(t *testing.T) {
	now := clock.Real{}.Now()
	if now.Location() != time.UTC {
		t.Errorf("location = %v, want UTC", now.Location())
	}
	if now.Nanosecond() != 0 {
		t.Errorf("Now() = %v, want whole seconds", now)
	}
	if d := time.Since(now); d < 0 || d > 5*time.Second {
		t.Errorf("Now() is %v away from the wall clock", d)
	}
}

func TestManual(t *testing.T) {
	start := time.Date(2030, 1, 2, 13, 0, 0, 0, time.FixedZone("CET", 3600))
	m := clock.NewManual(start)
	if got := m.Now(); !got.Equal(start) || got.Location() != time.UTC {
		t.Errorf("Now() = %v, want %v in UTC", got, start)
	}
	if got := m.Now(); !got.Equal(start) {
		t.Errorf("the clock moved by itself: %v", got)
	}
	m.Advance(90 * time.Second)
	if got := m.Now(); !got.Equal(start.Add(90 * time.Second)) {
		t.Errorf("after Advance: %v", got)
	}
	later := time.Date(2031, 6, 1, 0, 0, 0, 0, time.FixedZone("X", -7200))
	m.Set(later)
	if got := m.Now(); !got.Equal(later) || got.Location() != time.UTC {
		t.Errorf("after Set: %v, want %v in UTC", got, later)
	}
}

func TestFromFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "offset")
	c := clock.FromFile(path)
	near := func(want time.Duration) {
		t.Helper()
		// The file is re-read at most every few tens of milliseconds.
		deadline := time.Now().Add(time.Second)
		for {
			got := c.Now().Sub(time.Now().UTC())
			if got > want-2*time.Second && got <= want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("offset %v, want about %v", got, want)
			}
			time.Sleep(5 * time.Millisecond) // between polls: the file is re-read every few tens of ms
		}
	}
	near(0) // no file: the real clock
	if now := c.Now(); now.Location() != time.UTC || now.Nanosecond() != 0 {
		t.Errorf("Now() = %v, want UTC whole seconds", now)
	}
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("5m\n")
	near(5 * time.Minute)
	write("24h")
	near(24 * time.Hour)
	write("not a duration") // kept: a torn write never moves the clock
	near(24 * time.Hour)
	write("-1h")
	near(-time.Hour)
	write("")
	near(0)
}
