package dhlexpress

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"shipd/platform/carrier"
)

// trackingAnswer is the part of supermodelIoLogisticsExpressTrackingResponse
// the adapter reads.
type trackingAnswer struct {
	Shipments []struct {
		ShipmentTrackingNumber string          `json:"shipmentTrackingNumber"`
		Events                 []trackingEvent `json:"events"`
		Pieces                 []struct {
			TrackingNumber string          `json:"trackingNumber"`
			Events         []trackingEvent `json:"events"`
		} `json:"pieces"`
	} `json:"shipments"`
}

type trackingEvent struct {
	Date        string `json:"date"`
	Time        string `json:"time"`
	GMTOffset   string `json:"GMTOffset"`
	TypeCode    string `json:"typeCode"`
	Description string `json:"description"`
	ServiceArea []struct {
		Code        string `json:"code"`
		Description string `json:"description"`
	} `json:"serviceArea"`
	SignedBy string `json:"signedBy"`
}

// isWaybill tells a waybill (shipment) number, all digits in DHL's
// examples, from a piece number ("JD0146…").
func isWaybill(n string) bool {
	for _, r := range n {
		if r < '0' || r > '9' {
			return false
		}
	}
	return n != ""
}

// Track asks DHL about a piece (the tracking numbers shipd keeps) or a
// whole waybill.
func (c *Carrier) Track(ctx context.Context, s carrier.Settings, req carrier.TrackingRequest) (carrier.Tracking, error) {
	for _, k := range []string{settingKey, settingSecret} {
		if strings.TrimSpace(s.String(k)) == "" {
			return carrier.Tracking{}, carrier.Reject(k, "is required by DHL Express")
		}
	}
	n := strings.TrimSpace(req.TrackingNumber)
	q := url.Values{"trackingView": {"all-checkpoints"}, "levelOfDetail": {"all"}}
	path := "/tracking"
	if isWaybill(n) {
		path = "/shipments/" + url.PathEscape(n) + "/tracking"
		q.Set("requestGMTOffsetPerEvent", "true") // a parameter of this operation only
	} else {
		q.Set("pieceTrackingNumber", n)
	}
	res, err := c.call(ctx, s, http.MethodGet, path, q, nil)
	if err != nil {
		return carrier.Tracking{}, err
	}
	switch res.Status {
	case http.StatusOK:
	case http.StatusNotFound:
		return carrier.Tracking{Recognized: false}, nil
	default:
		return carrier.Tracking{}, rejection(res, "tracking request")
	}
	var a trackingAnswer
	if err := json.Unmarshal(res.Body, &a); err != nil {
		return carrier.Tracking{}, fmt.Errorf("dhl_express: tracking %s: unreadable answer: %v", n, err)
	}
	events, found := eventsOf(a, n)
	if !found {
		return carrier.Tracking{Recognized: false}, nil
	}
	out := carrier.Tracking{Recognized: true}
	for _, e := range events {
		out.Events = append(out.Events, event(e))
	}
	return out, nil
}

// eventsOf are the events of number in the answer: a waybill's own, or a
// piece's own together with its shipment's (DHL reports customs events on
// the shipment only), each once.
func eventsOf(a trackingAnswer, number string) ([]trackingEvent, bool) {
	for _, sh := range a.Shipments {
		if sh.ShipmentTrackingNumber == number {
			return sh.Events, true
		}
		for _, p := range sh.Pieces {
			if p.TrackingNumber != number {
				continue
			}
			seen := map[string]bool{}
			var out []trackingEvent
			for _, e := range append(append([]trackingEvent{}, p.Events...), sh.Events...) {
				key := e.TypeCode + "\x00" + e.Date + "\x00" + e.Time
				if !seen[key] {
					seen[key] = true
					out = append(out, e)
				}
			}
			return out, true
		}
	}
	return nil, false
}

func event(e trackingEvent) carrier.TrackingEvent {
	code := strings.TrimSpace(e.TypeCode)
	desc := strings.TrimSpace(e.Description)
	if by := strings.TrimSpace(e.SignedBy); by != "" {
		desc += " (signed by " + by + ")"
	}
	loc := ""
	if len(e.ServiceArea) > 0 {
		loc = strings.TrimSpace(e.ServiceArea[0].Description)
		if loc == "" {
			loc = strings.TrimSpace(e.ServiceArea[0].Code)
		}
	}
	return carrier.TrackingEvent{
		Code:        code,
		Status:      statusTable.Status(code),
		Description: desc,
		Location:    loc,
		At:          eventTime(e),
	}
}

var offsetPattern = regexp.MustCompile(`([+-])(\d{1,2}):?(\d{2})?`)

// eventTime is the event's local date and time at its GMTOffset when DHL
// sends one, else read as UTC (AssumedEventTimesUTC).
func eventTime(e trackingEvent) time.Time {
	loc := time.UTC
	if m := offsetPattern.FindStringSubmatch(e.GMTOffset); m != nil {
		h, _ := strconv.Atoi(m[2])
		mins, _ := strconv.Atoi(m[3])
		secs := h*3600 + mins*60
		if m[1] == "-" {
			secs = -secs
		}
		loc = time.FixedZone(strings.TrimSpace(e.GMTOffset), secs)
	}
	t, err := time.ParseInLocation("2006-01-02 15:04:05", strings.TrimSpace(e.Date)+" "+strings.TrimSpace(e.Time), loc)
	if err != nil {
		return time.Time{}
	}
	return t
}
