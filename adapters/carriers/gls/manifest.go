package gls

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"shipd/platform/carrier"
)

// endOfDayResponse is EndOfDayResponse: the day's shipments as data
// (shipit-farm.yaml), read only to know GLS answered one.
type endOfDayResponse struct {
	Shipments []json.RawMessage `json:"Shipments"`
}

// CreateManifest hands the day over with GLS's end of day (POST
// /rs/shipments/endofday?date=YYYY-MM-DD [V shipit; the date's form C]):
// GLS takes the contact's shipments of that date, every one of them, not
// the request's alone, and answers them as data, no document. Only parcels
// that went through the end of day are found by GLS's tracking [V gls-doc
// rest_tracking.html], so the call is the handover. The manifest's
// reference is the date and it has no Document: shipd draws its own
// handover PDF. The shipments GLS lists are not compared with the
// request's: whether a second call lists the day again is not documented
// [U], so a retried manifest would be refused for nothing.
func (c *Carrier) CreateManifest(ctx context.Context, s carrier.Settings, req carrier.ManifestRequest) (carrier.CarrierManifest, error) {
	if _, err := time.Parse(time.DateOnly, req.Date); err != nil {
		return carrier.CarrierManifest{}, carrier.Reject(carrier.PickupFieldDate, "GLS's end of day is asked by date 2006-01-02, not %q", req.Date)
	}
	if len(req.Shipments) == 0 {
		return carrier.CarrierManifest{}, carrier.Reject(carrier.PickupFieldShipments, "a manifest hands over at least one shipment")
	}
	e := c.env(s)
	res, err := c.call(ctx, e, http.MethodPost, e.base+"/rs/shipments/endofday?date="+url.QueryEscape(req.Date), MediaType, nil)
	if err != nil {
		return carrier.CarrierManifest{}, err
	}
	if res.Status != http.StatusOK {
		return carrier.CarrierManifest{}, refusal("the end of day", res, func(text string) string {
			if strings.Contains(strings.ToLower(text), "date") {
				return carrier.PickupFieldDate
			}
			return ""
		})
	}
	var out endOfDayResponse
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return carrier.CarrierManifest{}, fmt.Errorf("gls: reading the end of day of %s: %w", req.Date, err)
	}
	return carrier.CarrierManifest{Reference: req.Date}, nil
}
