// Package domain is the dispatch module's model: what a merchant's shipping
// day hands to the carrier. Its aggregates are in pickup/ (a courier ordered
// to collect parcels) and manifest/ (the shipments handed over, with the
// document the driver signs); this package holds what both use: dates and
// windows, addresses and contacts, and what the module knows of shipments.
// Pure Go.
package domain

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"shipd/platform/fault"
)

// DateLayout is how the API and the carriers write a calendar date.
const DateLayout = "2006-01-02"

// MaxDaysAhead is how far ahead a pickup may be ordered: past every
// carrier's own horizon we know (DHL Express: 10 days), so the carrier
// judges nearer dates, and a typo of a year is refused at once.
const MaxDaysAhead = 60

// lastTimeZone is where a calendar day begins last (UTC−12): a date before
// today there is in the past everywhere, and no merchant's today is refused.
var lastTimeZone = time.FixedZone("UTC-12", -12*60*60)

// Today is the earliest date a pickup may be ordered for at now.
func Today(now time.Time) time.Time {
	y, m, d := now.In(lastTimeZone).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// ParseDate reads a calendar date "2006-01-02", as midnight UTC.
func ParseDate(s string) (time.Time, bool) {
	d, err := time.Parse(DateLayout, s)
	return d, err == nil
}

// CheckDate adds the problem of a date that is not a calendar date, is in
// the past, or is further ahead than MaxDaysAhead, and returns it.
func CheckDate(errs fault.FieldErrors, path, s string, now time.Time) time.Time {
	d, ok := ParseDate(s)
	today := Today(now)
	switch {
	case s == "":
		errs.Add(path, "is required")
	case !ok:
		errs.Add(path, "must be a date YYYY-MM-DD")
	case d.Before(today):
		errs.Add(path, "must not be in the past (today is "+today.Format(DateLayout)+")")
	case d.After(today.AddDate(0, 0, MaxDaysAhead)):
		errs.Add(path, fmt.Sprintf("must be at most %d days ahead", MaxDaysAhead))
	}
	return d
}

// TimeOfDay is minutes after midnight, local to the pickup address.
type TimeOfDay int

// ParseTimeOfDay reads "15:04" (hours 00 to 23, or 24:00 for a day's end):
// two digits each, as the API document's pattern says (strconv.Atoi alone
// would take "+9:00" for 09:00).
func ParseTimeOfDay(s string) (TimeOfDay, bool) {
	h, m, ok := strings.Cut(s, ":")
	if !ok || !twoDigits(h) || !twoDigits(m) {
		return 0, false
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || mm < 0 || mm > 59 || hh > 24 || (hh == 24 && mm != 0) {
		return 0, false
	}
	return TimeOfDay(hh*60 + mm), true
}

func twoDigits(s string) bool {
	return len(s) == 2 && '0' <= s[0] && s[0] <= '9' && '0' <= s[1] && s[1] <= '9'
}

func (t TimeOfDay) String() string { return fmt.Sprintf("%02d:%02d", int(t)/60, int(t)%60) }

// Window is a time window on one day: ready from, until.
type Window struct {
	From, Until TimeOfDay
}

// CheckWindow adds the problems of a window's two ends (fromPath,
// untilPath) and returns it.
func CheckWindow(errs fault.FieldErrors, fromPath, from, untilPath, until string) (Window, bool) {
	f, okF := ParseTimeOfDay(from)
	u, okU := ParseTimeOfDay(until)
	if from == "" {
		errs.Add(fromPath, "is required")
	} else if !okF {
		errs.Add(fromPath, "must be a time of day HH:MM")
	}
	if until == "" {
		errs.Add(untilPath, "is required")
	} else if !okU {
		errs.Add(untilPath, "must be a time of day HH:MM")
	}
	if okF && okU && u <= f {
		errs.Add(untilPath, "must be later than ready_from")
		return Window{}, false
	}
	return Window{f, u}, okF && okU
}

// Within reports whether w lies inside outer.
func (w Window) Within(outer Window) bool { return w.From >= outer.From && w.Until <= outer.Until }

func (w Window) String() string { return w.From.String() + "-" + w.Until.String() }

// DefaultWindow is the window shipd offers where the carrier does not say
// which it takes: 08:00 to 18:00, Monday to Friday (documented in the API
// and README; the carrier still judges the order).
var DefaultWindow = Window{8 * 60, 18 * 60}

// DefaultWindows are the windows on date where the carrier does not say:
// DefaultWindow on a weekday, none at the weekend.
func DefaultWindows(date time.Time) []Window {
	if wd := date.Weekday(); wd == time.Saturday || wd == time.Sunday {
		return nil
	}
	return []Window{DefaultWindow}
}
