package inpost

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"shipd/platform/carrier"
)

// trackingAnswer is what the adapter reads of GET /v1/tracking/{number}.
type trackingAnswer struct {
	TrackingNumber  string `json:"tracking_number"`
	Status          string `json:"status"`
	UpdatedAt       string `json:"updated_at"`
	TrackingDetails []struct {
		Status       string `json:"status"`
		OriginStatus string `json:"origin_status"`
		Agency       string `json:"agency"`
		Datetime     string `json:"datetime"`
	} `json:"tracking_details"`
}

// Track reads one parcel's history; a number ShipX answers 404 for is not
// recognized. ShipX reports no COD collection of its own, so no event sets
// CODCollected (delivery of a COD parcel implies it, but shipd is not told
// which parcels carry COD here).
func (c *Carrier) Track(ctx context.Context, s carrier.Settings, req carrier.TrackingRequest) (carrier.Tracking, error) {
	number := strings.TrimSpace(req.TrackingNumber)
	if number == "" {
		return carrier.Tracking{Recognized: false}, nil
	}
	if !trackingWithAuth {
		s = carrier.Settings{"sandboxMode": s["sandboxMode"]}
	}
	res, err := c.do(ctx, s, http.MethodGet, "/v1/tracking/"+url.PathEscape(number), nil)
	if err != nil {
		return carrier.Tracking{}, err
	}
	switch res.Status {
	case http.StatusOK:
	case http.StatusNotFound:
		return carrier.Tracking{Recognized: false}, nil
	default:
		return carrier.Tracking{}, apiError(res, "")
	}
	var t trackingAnswer
	if err := decode(res, &t); err != nil {
		return carrier.Tracking{}, err
	}
	out := carrier.Tracking{Recognized: true}
	for _, d := range t.TrackingDetails {
		out.Events = append(out.Events, event(d.Status, d.Agency, d.Datetime))
	}
	if len(out.Events) == 0 && t.Status != "" {
		out.Events = append(out.Events, event(t.Status, "", t.UpdatedAt))
	}
	return out, nil
}

func event(code, agency, at string) carrier.TrackingEvent {
	when, _ := time.Parse(time.RFC3339Nano, at) // an unreadable time is the zero time, as in every adapter's tracking
	return carrier.TrackingEvent{
		Code:        code,
		Status:      Statuses.Status(code),
		Description: strings.ReplaceAll(code, "_", " "),
		Location:    agency,
		At:          when,
	}
}
