package allegro

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// trackingAnswer is Allegro's CarrierParcelTrackingResponse [V].
type trackingAnswer struct {
	CarrierID string `json:"carrierId"`
	Waybills  []struct {
		Waybill         string `json:"waybill"`
		TrackingDetails *struct {
			Statuses []struct {
				OccurredAt  time.Time `json:"occurredAt"`
				Code        string    `json:"code"`
				Description string    `json:"description"`
			} `json:"statuses"`
		} `json:"trackingDetails"`
	} `json:"waybills"`
}

// Track asks Allegro for the history of one waybill. A waybill does not name
// its carrier, so each carrier id the channel's products use is asked in
// turn (usually one); the first with a history answers. None: not
// recognized.
func (c *Carrier) Track(ctx context.Context, s carrier.Settings, req carrier.TrackingRequest) (carrier.Tracking, error) {
	for _, tc := range trackingCarriers(s) {
		t, err := c.track(ctx, s, tc, req.TrackingNumber)
		if err != nil || t.Recognized {
			return t, err
		}
	}
	return carrier.Tracking{}, nil
}

// trackingCarrier is a carrier id to ask and the setting that named it.
type trackingCarrier struct{ id, setting string }

// trackingCarriers are the distinct carrier ids of the channel's methods.
func trackingCarriers(s carrier.Settings) []trackingCarrier {
	courier := trackingCarrier{setting(s, settingCarrierID, AssumedDefaultCarrierID), settingCarrierID}
	point := trackingCarrier{setting(s, settingPointCarrierID, courier.id), settingPointCarrierID}
	if point.id == courier.id {
		return []trackingCarrier{courier}
	}
	return []trackingCarrier{courier, point}
}

func (c *Carrier) track(ctx context.Context, s carrier.Settings, tc trackingCarrier, waybill string) (carrier.Tracking, error) {
	carrierID := tc.id
	path := "/order/carriers/" + url.PathEscape(carrierID) + "/tracking"
	u := c.apiHost(s) + path + "?" + url.Values{"waybill": {waybill}}.Encode()
	res, err := c.call(ctx, s, request{method: http.MethodGet, url: u})
	if err != nil {
		return carrier.Tracking{}, err
	}
	switch res.Status {
	case http.StatusOK:
	case http.StatusBadRequest:
		// "unknown carrier id, missing or too many waybills" [V]: one
		// waybill is sent, so the carrier id is what Allegro refuses.
		return carrier.Tracking{}, carrier.Reject(tc.setting, "Allegro refused tracking with carrier id %q: %s", carrierID, carrierhttp.Snippet(res.Body))
	default:
		return carrier.Tracking{}, answerError("GET "+path, res.Status, res.Body, "")
	}
	var a trackingAnswer
	if err := json.Unmarshal(res.Body, &a); err != nil {
		return carrier.Tracking{}, fmt.Errorf("allegro: GET %s: unreadable answer: %w", path, err)
	}
	for _, w := range a.Waybills {
		if w.Waybill != waybill || w.TrackingDetails == nil {
			continue
		}
		out := carrier.Tracking{Recognized: true}
		for _, st := range w.TrackingDetails.Statuses {
			out.Events = append(out.Events, carrier.TrackingEvent{
				Code:        st.Code,
				Status:      statuses.Status(st.Code),
				Description: st.Description,
				At:          st.OccurredAt,
			})
		}
		return out, nil
	}
	return carrier.Tracking{}, nil
}
