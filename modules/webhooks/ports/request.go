package ports

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"shipd/modules/webhooks/app"
	"shipd/modules/webhooks/domain"
	"shipd/platform/fault"
)

// subscriptionRequest is the body of POST, PUT and PATCH
// /v1/webhook-subscriptions. events is decoded by hand so that a non-array
// is reported with the other fields' problems; status "active"/"inactive"
// is the spec's other way to say active.
type subscriptionRequest struct {
	Name   *string         `json:"name"`
	URL    *string         `json:"url"`
	Events json.RawMessage `json:"events"`
	Secret *string         `json:"secret"`
	Active *bool           `json:"active"`
	Status *string         `json:"status"`
}

// checked is a request that passed its checks; nil fields were absent.
type checked struct {
	Name   *string
	URL    *string
	Events []string
	Secret string
	Active *bool
}

// check validates the body of a POST (name, url and events required), a PUT
// (name required) or a PATCH (nothing required).
func (req subscriptionRequest) check(method string) (checked, error) {
	errs := fault.FieldErrors{}
	var out checked
	present := map[string]bool{"name": req.Name != nil, "url": req.URL != nil, "events": len(req.Events) > 0 && string(req.Events) != "null"}
	var required []string
	switch method {
	case http.MethodPost:
		required = []string{"name", "url", "events"}
	case http.MethodPut:
		required = []string{"name"}
	}
	for _, f := range required {
		if !present[f] {
			errs.Add(f, "is required")
		}
	}
	if req.Name != nil {
		name := strings.TrimSpace(*req.Name)
		switch {
		case name == "":
			errs.Add("name", "is required")
		case utf8.RuneCountInString(name) > 255:
			errs.Add("name", "must be at most 255 characters")
		}
		out.Name = &name
	}
	if req.URL != nil {
		if reason := urlProblem(*req.URL); reason != "" {
			errs.Add("url", reason)
		}
		out.URL = req.URL
	}
	if present["events"] {
		out.Events = checkEvents(req.Events, errs)
	}
	if req.Secret != nil && (*req.Secret != "" || method == http.MethodPost) {
		switch n := utf8.RuneCountInString(*req.Secret); {
		case n == 0:
			errs.Add("secret", "must not be empty; leave it out to have one generated")
		case strings.TrimSpace(*req.Secret) == "":
			errs.Add("secret", "must not be only white space")
		case n < domain.MinSecretLength:
			errs.Add("secret", "must be at least "+strconv.Itoa(domain.MinSecretLength)+" characters")
		case n > 255:
			errs.Add("secret", "must be at most 255 characters")
		}
		out.Secret = *req.Secret
	}
	out.Active = req.Active
	if req.Status != nil {
		switch active := *req.Status == "active"; {
		case *req.Status != "active" && *req.Status != "inactive":
			errs.Add("status", "must be active or inactive")
		case req.Active != nil && *req.Active != active:
			errs.Add("status", "contradicts active; send one of them")
		default:
			out.Active = &active
		}
	}
	return out, errs.Err()
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
	if len(s) > 2048 {
		return "must be at most 2048 characters"
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

func checkEvents(raw json.RawMessage, errs fault.FieldErrors) []string {
	var events []string
	if err := json.Unmarshal(raw, &events); err != nil {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			errs.Add("events", "must be an array")
			return nil
		}
		for i, item := range items {
			var s string
			if json.Unmarshal(item, &s) != nil {
				errs.Add("events."+strconv.Itoa(i), "must be a string")
			}
		}
		return nil
	}
	if len(events) == 0 {
		errs.Add("events", "must contain at least one event type")
	}
	for i, e := range events {
		if !slices.Contains(app.EventTypes, e) {
			errs.Add("events."+strconv.Itoa(i), "must be one of: "+strings.Join(app.EventTypes, ", "))
		}
	}
	return events
}
