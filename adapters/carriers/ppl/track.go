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
	// Limit and Offset are required by PPL's OpenAPI; one number, one page.
	q := url.Values{"ShipmentNumbers": {req.TrackingNumber}, "Limit": {"10"}, "Offset": {"0"}}
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

// events are the shipment's trackAndTrace events. Each keeps its legacy
// statusId as Code (its textual code when it has none); its status is that
// of its phase (PPL's ShipmentStates, e.g. "Delivered") when the phase
// table maps it, else that of its statusId. A COD-paid phase or statusId
// sets CODCollected.
func events(sh shipmentInfo) []carrier.TrackingEvent {
	if sh.TrackAndTrace == nil {
		return nil
	}
	var out []carrier.TrackingEvent
	for _, e := range sh.TrackAndTrace.Events {
		code := e.Code
		if e.StatusID != nil {
			code = strconv.Itoa(*e.StatusID)
		}
		desc := e.Name
		if desc == "" {
			desc = e.Code
		}
		status := phaseStatuses.Status(e.Phase)
		if status == "" {
			status = eventStatuses.Status(code)
		}
		out = append(out, carrier.TrackingEvent{
			Code:         code,
			Status:       status,
			Description:  desc,
			At:           parseTime(e.EventDate),
			CODCollected: codPaid[code] || e.Phase == phaseCODPaid,
		})
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
