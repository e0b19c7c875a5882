package gls

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

// Track & Trace v1 answer (ecitrackandtrace.yaml, ParcelsResponseDTO).
type trackResponse struct {
	Parcels []struct {
		Requested      string `json:"requested"`
		Unitno         string `json:"unitno"`
		Status         string `json:"status"`
		StatusDateTime string `json:"statusDateTime"`
		Events         []struct {
			Code          string `json:"code"`
			City          string `json:"city"`
			PostalCode    string `json:"postalCode"`
			Country       string `json:"country"`
			Description   string `json:"description"`
			EventDateTime string `json:"eventDateTime"`
		} `json:"events"`
		ErrorCode    string `json:"errorCode"`
		ErrorMessage string `json:"errorMessage"`
	} `json:"parcels"`
}

// Track asks Track & Trace about one parcel number. Its events come back
// with their dotted codes, and the parcel's status word as one more event at
// statusDateTime (listed last, so it wins a tie with the newest event).
func (c *Carrier) Track(ctx context.Context, s carrier.Settings, req carrier.TrackingRequest) (carrier.Tracking, error) {
	e := c.env(s)
	number := strings.TrimSpace(req.TrackingNumber)
	if number == "" || strings.Contains(number, ",") {
		return carrier.Tracking{Recognized: false}, nil
	}
	u := e.track + "/tracking/simple/trackids/" + url.PathEscape(number) + "?showEvents=true"
	res, err := c.call(ctx, e, http.MethodGet, u, "application/json", nil)
	if err != nil {
		return carrier.Tracking{}, err
	}
	if res.Status != http.StatusOK {
		return carrier.Tracking{}, fmt.Errorf("gls: tracking %s: HTTP %d %s", number, res.Status, problemDetail(res))
	}
	var tr trackResponse
	if err := json.Unmarshal(res.Body, &tr); err != nil {
		return carrier.Tracking{}, fmt.Errorf("gls: reading tracking of %s: %w", number, err)
	}
	out := carrier.Tracking{}
	for _, p := range tr.Parcels {
		switch {
		case strings.HasPrefix(p.ErrorCode, "E_404"):
			continue // not known (E_404_01)
		case p.ErrorCode == "E_500_01":
			return carrier.Tracking{}, carrierhttp.Unavailable("tracking %s: %s %s", number, p.ErrorCode, p.ErrorMessage)
		case p.ErrorCode != "":
			return carrier.Tracking{}, &carrier.Rejection{Field: "tracking_number", Message: p.ErrorCode + ": " + p.ErrorMessage}
		}
		out.Recognized = true
		for _, ev := range p.Events {
			out.Events = append(out.Events, carrier.TrackingEvent{
				Code:        ev.Code,
				Status:      statusTable.Status(ev.Code),
				Description: ev.Description,
				Location:    location(ev.PostalCode, ev.City, ev.Country),
				At:          parseTime(ev.EventDateTime),
			})
		}
		if p.Status != "" {
			out.Events = append(out.Events, carrier.TrackingEvent{
				Code:        p.Status,
				Status:      statusTable.Status(p.Status),
				Description: "GLS parcel status " + p.Status,
				At:          parseTime(p.StatusDateTime),
			})
		}
	}
	return out, nil
}

func location(postal, city, country string) string {
	var parts []string
	if pc := strings.TrimSpace(postal + " " + city); pc != "" {
		parts = append(parts, pc)
	}
	if country != "" {
		parts = append(parts, country)
	}
	return strings.Join(parts, ", ")
}

// parseTime reads GLS's ISO 8601 times ("2024-10-07T10:46:14+0200"); zero
// when unreadable.
func parseTime(s string) time.Time {
	for _, layout := range []string{"2006-01-02T15:04:05-0700", time.RFC3339, "2006-01-02T15:04:05.000-0700", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// problemDetail reads a problem JSON {title, detail}, else the status text.
func problemDetail(res *carrierhttp.Response) string {
	var p struct{ Title, Detail string }
	if json.Unmarshal(res.Body, &p) == nil && (p.Title != "" || p.Detail != "") {
		return strings.TrimSpace(p.Title + ": " + p.Detail)
	}
	return http.StatusText(res.Status)
}
