package domain

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// The bounds of a subscription's fields, in characters.
const (
	maxNameLength   = 255
	maxURLLength    = 2048 // in bytes
	maxSecretLength = 255
)

// Check names every problem of a new subscription's fields as a validation
// fault, nil when they have none; eventTypes are the event types a
// subscription may choose. NewSubscription checks the same; Check is for
// callers that answer these problems before anything is looked up.
func (f Fields) Check(eventTypes []string) error {
	errs := fault.FieldErrors{}
	checkName(errs, f.Name)
	checkURL(errs, f.URL)
	if f.Events == nil {
		errs.Add("events", "is required")
	} else {
		checkEvents(errs, f.Events, eventTypes)
	}
	// Given empty, not left out: the caller makes one when it is left out.
	if f.Secret == "" {
		errs.Add("secret", "must not be empty; leave it out to have one generated")
	} else {
		checkSecret(errs, f.Secret)
	}
	return errs.Err()
}

// Check names every problem of a change as a validation fault, nil when it
// has none; eventTypes are the event types a subscription may choose. Apply
// checks the same; Check is for callers that answer these problems before
// the subscription is looked up.
func (c Change) Check(eventTypes []string) error {
	errs := fault.FieldErrors{}
	if c.Name != nil {
		checkName(errs, *c.Name)
	}
	if c.URL != nil {
		checkURL(errs, *c.URL)
	}
	if c.Events != nil {
		checkEvents(errs, c.Events, eventTypes)
	}
	if c.Secret != "" {
		checkSecret(errs, c.Secret)
	}
	return errs.Err()
}

// checkName: a name is required, and counted without white space around it,
// as it is kept.
func checkName(errs fault.FieldErrors, name string) {
	switch n := strings.TrimSpace(name); {
	case n == "":
		errs.Add("name", "is required")
	case carrier.NameProblem(n) != "":
		errs.Add("name", carrier.NameProblem(n))
	case utf8.RuneCountInString(n) > maxNameLength:
		errs.Add("name", "must be at most "+strconv.Itoa(maxNameLength)+" characters")
	}
}

func checkURL(errs fault.FieldErrors, u string) {
	if reason := urlProblem(u); reason != "" {
		errs.Add("url", reason)
	}
}

// urlProblem says what is wrong with a delivery URL, or "". Credentials in
// the URL are refused: it is shown in every response and log, and the
// signature is how a receiver knows the sender.
//
// Spaces and control characters are refused wherever they are, the ends
// included, rather than trimmed or escaped: the URL is stored, shown and
// called as the client wrote it, and url.Parse lets a space in the path or
// query, and C1 controls, through. Percent-encoded they are the URL's own
// business (%20 in a path is sent as %20), except in the host, which
// url.Parse decodes.
func urlProblem(s string) string {
	const invalid = "must be a valid URL (absolute, http or https)"
	if s == "" {
		return "is required"
	}
	if len(s) > maxURLLength {
		return "must be at most " + strconv.Itoa(maxURLLength) + " characters"
	}
	if r, ok := spaceOrControl(s); ok {
		return "must not contain spaces or control characters (found " + strconv.QuoteRuneToASCII(r) + "); percent-encode them, as %20 for a space"
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.Opaque != "" {
		return invalid
	}
	if _, ok := spaceOrControl(u.Hostname()); ok {
		return invalid
	}
	if u.User != nil {
		return "must not contain a user name or password; receivers check the signature instead"
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return invalid
		}
	}
	return ""
}

// spaceOrControl finds the first white space (Unicode's, U+00A0 and U+3000
// too) or control character (C0, DEL, C1) of s.
func spaceOrControl(s string) (rune, bool) {
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return r, true
		}
	}
	return 0, false
}

// checkEvents: at least one, at most as many as there are event types
// (a repeat is kept once, but a list longer than every type named once is
// no client's choice, and each item would be answered), each one of
// eventTypes.
func checkEvents(errs fault.FieldErrors, events, eventTypes []string) {
	if len(events) == 0 {
		errs.Add("events", "must contain at least one event type")
	}
	if len(events) > len(eventTypes) {
		errs.Add("events", "must have at most "+strconv.Itoa(len(eventTypes))+" items, one per event type")
		return
	}
	for i, e := range events {
		if !slices.Contains(eventTypes, e) {
			errs.Add("events."+strconv.Itoa(i), "must be one of: "+strings.Join(eventTypes, ", "))
		}
	}
}

// checkSecret: a secret signs every delivery, so one of white space only or
// shorter than MinSecretLength characters is refused.
func checkSecret(errs fault.FieldErrors, secret string) {
	switch n := utf8.RuneCountInString(secret); {
	case strings.TrimSpace(secret) == "":
		errs.Add("secret", "must not be only white space")
	case n < MinSecretLength:
		errs.Add("secret", "must be at least "+strconv.Itoa(MinSecretLength)+" characters")
	case n > maxSecretLength:
		errs.Add("secret", "must be at most "+strconv.Itoa(maxSecretLength)+" characters")
	}
}
