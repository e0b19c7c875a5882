package ppl

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"shipd/platform/carrier"
)

// shipmentInfo is one element of GET /shipment's answer, as far as read.
type shipmentInfo struct {
	ShipmentNumber string `json:"shipmentNumber"`
	ShipmentState  string `json:"shipmentState"`
	LastUpdateDate string `json:"lastUpdateDate"`
	TrackAndTrace  *struct {
		Events []trackEvent `json:"events"`
	} `json:"trackAndTrace"`
}

type trackEvent struct {
	StatusID  *int   `json:"statusId"`
	Code      string `json:"code"`
	Phase     string `json:"phase"`
	Group     string `json:"group"`
	EventDate string `json:"eventDate"`
	Name      string `json:"name"`
}

// Track asks PPL about one parcel (its shipmentNumber).
func (c *Carrier) Track(ctx context.Context, s carrier.Settings, req carrier.TrackingRequest) (carrier.Tracking, error) {
	q := url.Values{"ShipmentNumbers": {req.TrackingNumber}}
	res, err := c.do(ctx, s, call{method: http.MethodGet, url: c.base(s) + "/shipment?" + q.Encode()})
	if err != nil {
		return carrier.Tracking{}, err
	}
	if res.Status == http.StatusNotFound {
		return carrier.Tracking{Recognized: false}, nil
	}
	if res.Status != http.StatusOK {
		return carrier.Tracking{}, answerError("GET /shipment", res)
	}
	var list []shipmentInfo
	if err := json.Unmarshal(res.Body, &list); err != nil {
		return carrier.Tracking{}, fmt.Errorf("ppl: GET /shipment: reading the answer: %w", err)
	}
	for _, sh := range list {
		if strings.EqualFold(sh.ShipmentNumber, req.TrackingNumber) {
			return carrier.Tracking{Recognized: true, Events: events(sh)}, nil
		}
	}
	return carrier.Tracking{Recognized: false}, nil
}

// events are the shipment's trackAndTrace events, Code = statusId, plus its
// shipmentState (Code = the state's name) when that says more than the
// newest mapped event.
func events(sh shipmentInfo) []carrier.TrackingEvent {
	var out []carrier.TrackingEvent
	var newest carrier.TrackingEvent
	if sh.TrackAndTrace != nil {
		for _, e := range sh.TrackAndTrace.Events {
			code := e.Code
			if e.StatusID != nil {
				code = strconv.Itoa(*e.StatusID)
			}
			desc := e.Name
			if desc == "" {
				desc = e.Code
			}
			ev := carrier.TrackingEvent{
				Code:         code,
				Status:       eventStatuses.Status(code),
				Description:  desc,
				At:           parseTime(e.EventDate),
				CODCollected: codPaid[code],
			}
			out = append(out, ev)
			if ev.Status != "" && !ev.At.Before(newest.At) {
				newest = ev
			}
		}
	}
	// The state counts when it is not older than the newest mapped event
	// (a state without a date only when no event is mapped).
	state := stateStatuses.Status(sh.ShipmentState)
	at := parseTime(sh.LastUpdateDate)
	fresh := newest.Status == "" || (!at.IsZero() && !at.Before(newest.At))
	if state != "" && state != newest.Status && fresh {
		out = append(out, carrier.TrackingEvent{Code: sh.ShipmentState, Status: state,
			Description: "shipment state " + sh.ShipmentState, At: at})
	}
	return out
}

// parseTime reads PPL's dates: RFC 3339, or without a zone (Prague time).
func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t
	}
	loc, err := time.LoadLocation("Europe/Prague")
	if err != nil {
		loc = time.UTC
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t
		}
	}
	return time.Time{}
}
