package ports

import (
	"encoding/json"
	"net/http"
	"strconv"

	"shipd/modules/webhooks/app"
	"shipd/modules/webhooks/domain"
	"shipd/platform/fault"
	"shipd/platform/httpapi"
)

// The request bodies carry what the domain checks (domain.Fields and
// domain.Change); the port reads them, and keeps what is the API's own: a
// PUT names the name, "status" is another way to say "active", events must
// be an array of strings. Such problems are answered with the domain's
// verdict on the rest (httpapi.Refusal).

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

// read is the body in the domain's terms (a change; on POST, Fields is
// made of it), or the API's own problems with the domain's verdict on the
// rest.
func (req subscriptionRequest) read(method string) (domain.Change, error) {
	shape := fault.FieldErrors{}
	c := domain.Change{Name: req.Name, URL: req.URL, Active: req.Active}
	if req.Secret != nil {
		c.Secret = *req.Secret
	}
	var unread []string
	if len(req.Events) > 0 && string(req.Events) != "null" {
		var ok bool
		if c.Events, ok = events(req.Events, shape); !ok {
			unread = append(unread, "events")
		}
	}
	if method == http.MethodPut && req.Name == nil {
		// PUT replaces what the client sees of a subscription: the spec has
		// it name the name at least.
		shape.Add("name", "is required")
	}
	if req.Status != nil {
		switch active := *req.Status == "active"; {
		case *req.Status != "active" && *req.Status != "inactive":
			shape.Add("status", "must be active or inactive")
		case req.Active != nil && *req.Active != active:
			shape.Add("status", "contradicts active; send one of them")
		default:
			c.Active = &active
		}
	}
	if len(shape) == 0 {
		return c, nil
	}
	var rules error
	if method == http.MethodPost {
		rules = fields(c, req.Secret != nil).Check(app.EventTypes)
	} else {
		rules = c.Check(app.EventTypes)
	}
	return c, httpapi.Refusal(shape, rules, unread...)
}

// events reads an array of strings; false when it is not one (the problem
// added to shape). An empty array is the domain's to refuse.
func events(raw json.RawMessage, shape fault.FieldErrors) ([]string, bool) {
	var events []string
	if err := json.Unmarshal(raw, &events); err != nil {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			shape.Add("events", "must be an array")
			return nil, false
		}
		for i, item := range items {
			var s string
			if json.Unmarshal(item, &s) != nil {
				shape.Add("events."+strconv.Itoa(i), "must be a string")
			}
		}
		return nil, false
	}
	return events, true
}

// fields are a POST's fields: what it left out is empty, but for a secret
// left out, which stands for one the caller generates (given says whether
// the client sent one), and active, which is true unless said otherwise.
func fields(c domain.Change, given bool) domain.Fields {
	f := domain.Fields{Events: c.Events, Secret: c.Secret, Active: c.Active == nil || *c.Active}
	if c.Name != nil {
		f.Name = *c.Name
	}
	if c.URL != nil {
		f.URL = *c.URL
	}
	if !given {
		f.Secret = domain.GenerateSecret()
	}
	return f
}
