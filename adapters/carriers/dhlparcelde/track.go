package dhlparcelde

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// unifiedAnswer is the part of a Unified tracking answer the adapter reads.
type unifiedAnswer struct {
	Shipments []struct {
		ID     any            `json:"id"`
		Status *unifiedEvent  `json:"status"`
		Events []unifiedEvent `json:"events"`
	} `json:"shipments"`
}

type unifiedEvent struct {
	Timestamp string `json:"timestamp"`
	Location  struct {
		Address struct {
			CountryCode     string `json:"countryCode"`
			PostalCode      string `json:"postalCode"`
			AddressLocality string `json:"addressLocality"`
		} `json:"address"`
	} `json:"location"`
	StatusCode  string `json:"statusCode"`
	Status      string `json:"status"`
	Description string `json:"description"`
}

// Track asks the Unified tracking API about one DHL shipment number.
func (c *Carrier) Track(ctx context.Context, s carrier.Settings, req carrier.TrackingRequest) (carrier.Tracking, error) {
	key := s.String(AssumedTrackingKey)
	if strings.TrimSpace(key) == "" {
		return carrier.Tracking{}, carrier.Reject("clientId", "is required by DHL tracking")
	}
	q := url.Values{"trackingNumber": {req.TrackingNumber}, "service": {"parcel-de"}, "language": {"en"}}
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, c.trackingHost(s)+trackingPath+"?"+q.Encode(), nil)
	if err != nil {
		return carrier.Tracking{}, err
	}
	r.Header.Set("DHL-API-Key", key)
	r.Header.Set("Accept", "application/json")
	res, err := carrierhttp.Do(c.cfg.HTTPClient, r)
	if err != nil {
		return carrier.Tracking{}, err
	}
	switch res.Status {
	case http.StatusOK:
	case http.StatusNotFound:
		return carrier.Tracking{Recognized: false}, nil
	case http.StatusUnauthorized, http.StatusForbidden:
		return carrier.Tracking{}, carrier.Reject("clientId", "DHL tracking refused the API key: %s", statusMessage(res))
	default:
		return carrier.Tracking{}, carrier.Reject("tracking_number", "DHL tracking refused the request: %s", statusMessage(res))
	}
	var a unifiedAnswer
	if err := json.Unmarshal(res.Body, &a); err != nil {
		return carrier.Tracking{}, fmt.Errorf("dhl_parcel_de: tracking: unreadable answer: %v", err)
	}
	if len(a.Shipments) == 0 {
		return carrier.Tracking{Recognized: false}, nil
	}
	sh := a.Shipments[0]
	events := sh.Events
	if len(events) == 0 && sh.Status != nil {
		events = []unifiedEvent{*sh.Status}
	}
	out := carrier.Tracking{Recognized: true}
	for _, e := range events {
		out.Events = append(out.Events, event(e))
	}
	return out, nil
}

func event(e unifiedEvent) carrier.TrackingEvent {
	code := strings.TrimSpace(e.StatusCode)
	desc := strings.TrimSpace(e.Description)
	if desc == "" {
		desc = e.Status
	}
	return carrier.TrackingEvent{
		Code:         code,
		Status:       statusTable.Status(code),
		Description:  desc,
		Location:     location(e),
		At:           parseTime(e.Timestamp),
		CODCollected: codCollected[code],
	}
}

func location(e unifiedEvent) string {
	a := e.Location.Address
	parts := []string{}
	for _, p := range []string{strings.TrimSpace(a.PostalCode + " " + a.AddressLocality), a.CountryCode} {
		if strings.TrimSpace(p) != "" {
			parts = append(parts, strings.TrimSpace(p))
		}
	}
	return strings.Join(parts, ", ")
}

// berlin is the zone of timestamps that come without one (DHL Parcel DE
// scans are German local time); UTC when the zone database is missing.
var berlin = func() *time.Location {
	if l, err := time.LoadLocation("Europe/Berlin"); err == nil {
		return l
	}
	return time.UTC
}()

func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t
	}
	if t, err := time.ParseInLocation("2006-01-02T15:04:05", s, berlin); err == nil {
		return t
	}
	return time.Time{}
}
