package main

import (
	"net/http"
	"net/url"
	"time"
)

// shipmentProbe follows one shipment from its 201 through what it sets
// off, as its merchant would see it over the API: the list showing it, its
// booking done (status created, with its label), and a tracking parcel
// for its parcel. A lag stays 0 until it is seen.
type shipmentProbe struct {
	s         *service
	from      time.Time     // the 201
	offeredAt time.Duration // from the load's start
	id        string
	reference string
	tracking  string // the parcel's tracking number, known once booked

	list, booking, tracked time.Duration
}

// seen polls what has not shown yet; it holds once all three have.
func (p *shipmentProbe) seen() (bool, error) {
	if p.list == 0 {
		m, err := p.s.call(http.MethodGet, "/v1/shipments?search="+url.QueryEscape(p.reference), "")
		if err != nil {
			return false, err
		}
		if total, _ := m["meta"].(map[string]any)["total"].(float64); total >= 1 {
			p.list = p.since()
		}
	}
	if p.booking == 0 {
		m, err := p.s.call(http.MethodGet, "/v1/shipments/"+p.id, "")
		if err != nil {
			return false, err
		}
		data, _ := m["data"].(map[string]any)
		if data["status"] == "created" && data["has_label"] == true {
			p.booking = p.since()
			if parcels, _ := data["parcels"].([]any); len(parcels) > 0 {
				p.tracking, _ = parcels[0].(map[string]any)["tracking_number"].(string)
			}
		}
	}
	if p.booking != 0 && p.tracked == 0 && p.tracking != "" {
		m, err := p.s.call(http.MethodGet, "/v1/tracking-parcels?search="+url.QueryEscape(p.tracking), "")
		if err != nil {
			return false, err
		}
		if data, _ := m["data"].([]any); len(data) > 0 {
			p.tracked = p.since()
		}
	}
	return p.list != 0 && p.booking != 0 && p.tracked != 0, nil
}

// since is the lag of what was just seen, never 0 (which means unseen).
func (p *shipmentProbe) since() time.Duration { return max(time.Since(p.from), time.Nanosecond) }
