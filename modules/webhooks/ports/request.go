package ports

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
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

// check validates the body. required names the fields that must be there
// (create: name, url, events; PUT: name).
func (req subscriptionRequest) check(required ...string) (checked, error) {
	errs := fault.FieldErrors{}
	var out checked
	present := map[string]bool{"name": req.Name != nil, "url": req.URL != nil, "events": len(req.Events) > 0 && string(req.Events) != "null"}
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
		u := strings.TrimSpace(*req.URL)
		if reason := urlProblem(u); reason != "" {
			errs.Add("url", reason)
		}
		out.URL = &u
	}
	if present["events"] {
		out.Events = checkEvents(req.Events, errs)
	}
	if req.Secret != nil && *req.Secret != "" {
		switch n := utf8.RuneCountInString(*req.Secret); {
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
func urlProblem(s string) string {
	const invalid = "must be a valid URL (absolute, http or https)"
	if s == "" {
		return "is required"
	}
	if len(s) > 2048 {
		return "must be at most 2048 characters"
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.Opaque != "" {
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
