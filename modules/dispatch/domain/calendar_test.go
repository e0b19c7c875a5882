package domain_test

import (
	"reflect"
	"testing"
	"time"

	"shipd/modules/dispatch/domain"
	"shipd/platform/fault"
	"shipd/platform/faulttest"
)

var (
	fields = faulttest.Fields
	one    = faulttest.One
)

// t0 is Monday 30 November 2026, 06:00 UTC: still Sunday the 29th where
// the calendar day begins last (UTC−12).
var t0 = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

// Today is the date where a day begins last, so no merchant's today is in
// the past anywhere: it turns at noon UTC.
func TestTodayTurnsWhereTheDayBeginsLast(t *testing.T) {
	for _, tc := range []struct {
		now  time.Time
		want string
	}{
		{time.Date(2026, 11, 30, 11, 59, 59, 0, time.UTC), "2026-11-29"},
		{time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), "2026-11-30"},
		{time.Date(2026, 11, 30, 23, 0, 0, 0, time.FixedZone("CET", 3600)), "2026-11-30"}, // 22:00 UTC
		{time.Date(2027, 1, 1, 1, 0, 0, 0, time.UTC), "2026-12-31"},
	} {
		got := domain.Today(tc.now)
		if got.Format(domain.DateLayout) != tc.want || got.Location() != time.UTC || got.Hour() != 0 {
			t.Errorf("Today(%v) = %v, want %s at midnight UTC", tc.now, got, tc.want)
		}
	}
}

// Every rule of a date, with the message the API answers; a date that
// passes is read as midnight UTC.
func TestCheckDate(t *testing.T) {
	for _, tc := range []struct {
		date string
		want map[string][]string
	}{
		{"2026-11-29", nil}, // today somewhere (t0 is the 29th in UTC−12)
		{"2026-11-30", nil},
		{"2027-01-28", nil}, // 60 days after the 29th
		{"2027-01-29", one("date", "must be at most 60 days ahead")},
		{"2026-11-28", one("date", "must not be in the past (today is 2026-11-29)")},
		{"", one("date", "is required")},
		{"2026-12-1", one("date", "must be a date YYYY-MM-DD")},
		{"2026-02-30", one("date", "must be a date YYYY-MM-DD")},
		{"30.11.2026", one("date", "must be a date YYYY-MM-DD")},
		{"2026-11-30T00:00:00Z", one("date", "must be a date YYYY-MM-DD")},
	} {
		errs := fault.FieldErrors{}
		d := domain.CheckDate(errs, "date", tc.date, t0)
		if got := fields(t, errs.Err()); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("CheckDate(%q) = %v, want %v", tc.date, got, tc.want)
		}
		if tc.want == nil && (d.Format(domain.DateLayout) != tc.date || d.Location() != time.UTC || !d.Equal(d.Truncate(24*time.Hour))) {
			t.Errorf("CheckDate(%q) read %v", tc.date, d)
		}
	}
}

// A time of day is HH:MM, hours 00 to 23 or the day's end 24:00, in
// exactly the form the API document's pattern allows.
func TestParseTimeOfDay(t *testing.T) {
	for s, want := range map[string]domain.TimeOfDay{"00:00": 0, "09:05": 9*60 + 5, "23:59": 23*60 + 59, "24:00": 24 * 60} {
		got, ok := domain.ParseTimeOfDay(s)
		if !ok || got != want || got.String() != s {
			t.Errorf("ParseTimeOfDay(%q) = %d (%s), %v; want %d", s, got, got, ok, want)
		}
	}
	for _, s := range []string{"", "9:00", "09:0", "0900", "09:60", "24:01", "25:00", "-1:00", "+9:00", "09:+5", "+9:+5",
		" 9:00", "09:00 ", "09:00:00", "٠٩:٠٠"} {
		if got, ok := domain.ParseTimeOfDay(s); ok {
			t.Errorf("ParseTimeOfDay(%q) = %s, want it refused", s, got)
		}
	}
}

// Every rule of a window, on the path of each end.
func TestCheckWindow(t *testing.T) {
	for _, tc := range []struct {
		from, until string
		want        map[string][]string
		window      domain.Window
	}{
		{"09:00", "12:00", nil, domain.Window{From: 540, Until: 720}},
		{"00:00", "24:00", nil, domain.Window{From: 0, Until: 1440}},
		{"", "", map[string][]string{"ready_from": {"is required"}, "ready_until": {"is required"}}, domain.Window{}},
		{"9", "12:00", one("ready_from", "must be a time of day HH:MM"), domain.Window{}},
		{"09:00", "noon", one("ready_until", "must be a time of day HH:MM"), domain.Window{}},
		{"12:00", "12:00", one("ready_until", "must be later than ready_from"), domain.Window{}},
		{"13:00", "12:00", one("ready_until", "must be later than ready_from"), domain.Window{}},
	} {
		errs := fault.FieldErrors{}
		w, ok := domain.CheckWindow(errs, "ready_from", tc.from, "ready_until", tc.until)
		if got := fields(t, errs.Err()); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("CheckWindow(%q, %q) = %v, want %v", tc.from, tc.until, got, tc.want)
		}
		if ok != (tc.want == nil) || (ok && w != tc.window) {
			t.Errorf("CheckWindow(%q, %q) = %v, %v", tc.from, tc.until, w, ok)
		}
	}
}

// A window lies within another when both its ends do; shipd's default
// window stands on weekdays only.
func TestWindowsAndDefaults(t *testing.T) {
	morning := domain.Window{From: 9 * 60, Until: 12 * 60}
	for _, tc := range []struct {
		w    domain.Window
		want bool
	}{
		{morning, true},
		{domain.Window{From: 9*60 + 30, Until: 11 * 60}, true},
		{domain.Window{From: 8*60 + 59, Until: 11 * 60}, false},
		{domain.Window{From: 10 * 60, Until: 12*60 + 1}, false},
	} {
		if got := tc.w.Within(morning); got != tc.want {
			t.Errorf("%s within %s: %v", tc.w, morning, got)
		}
	}
	if morning.String() != "09:00-12:00" || domain.DefaultWindow.String() != "08:00-18:00" {
		t.Errorf("windows read %s and %s", morning, domain.DefaultWindow)
	}
	for day, want := range map[string]int{"2026-11-30": 1, "2026-12-04": 1, "2026-12-05": 0, "2026-12-06": 0} {
		date, _ := domain.ParseDate(day)
		got := domain.DefaultWindows(date)
		if len(got) != want || (want == 1 && got[0] != domain.DefaultWindow) {
			t.Errorf("default windows of %s (a %s): %v", day, date.Weekday(), got)
		}
	}
}
