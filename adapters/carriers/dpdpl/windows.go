package dpdpl

import (
	"context"
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"shipd/platform/carrier"
)

// getCourierOrderAvailabilityV1 and its answer [C axis]: DPD's courier
// windows at a postal code, each with the minutes before its start by which
// it must be ordered.
type (
	availabilityRequest struct {
		XMLName xml.Name   `xml:"dpd:getCourierOrderAvailabilityV1"`
		Place   postalCode `xml:"senderPlaceV1"` // senderPlaceV1 {countryCode, zipCode}
		Auth    authData   `xml:"authDataV1"`
	}
	availabilityResponse struct {
		Return struct {
			Status string `xml:"status"`
			Ranges []struct {
				Offset int    `xml:"offset"`
				Range  string `xml:"range"`
			} `xml:"ranges"`
		} `xml:"return"`
	}
)

func (*availabilityRequest) operationName() string { return "getCourierOrderAvailabilityV1" }

// rangeNotFound is DPD saying it has no windows at the postal code [C qbitz].
const rangeNotFound = "RANGE_NOT_FOUND"

// CourierPickupWindows are DPD's windows at the address's postal code on
// req.Date. DPD answers ranges "HH:MM-HH:MM" per postal code, not per date,
// each with an offset in minutes: a range must be ordered by its start minus
// the offset [Vp dpd-ps]. So every date gets the same ranges, less those
// whose deadline has passed (Warsaw time); a deadline on the day before the
// date, which a time of that day cannot say, is given as 00:00 and the
// window is dropped once it has passed. Which weekdays DPD serves is not
// said [U]: no day is left out. No ranges (RANGE_NOT_FOUND) is no windows.
func (c *Carrier) CourierPickupWindows(ctx context.Context, s carrier.Settings, req carrier.PickupWindowsRequest) ([]carrier.PickupWindow, error) {
	auth, err := authOf(s)
	if err != nil {
		return nil, err
	}
	day, err := time.ParseInLocation(time.DateOnly, req.Date, warsaw)
	if err != nil {
		return nil, carrier.Reject(carrier.PickupFieldDate, "must be a date 2006-01-02, not %q", req.Date)
	}
	zip := postalDigits(req.Address.PostalCode)
	if zip == "" {
		return nil, carrier.Reject(carrier.PickupFieldAddress, "DPD Poland's courier windows are asked by postal code: the address has none")
	}
	country := strings.ToUpper(strings.TrimSpace(req.Address.CountryCode))
	if country == "" {
		country = "PL"
	}
	var out availabilityResponse
	err = c.call(ctx, c.base(s), packageNS, &availabilityRequest{Place: postalCode{CountryCode: country, ZipCode: zip}, Auth: auth}, &out)
	if err != nil {
		return nil, faultError(err, "courier windows request")
	}
	switch out.Return.Status {
	case statusOK:
	case rangeNotFound:
		return []carrier.PickupWindow{}, nil
	default:
		return nil, carrier.Reject(carrier.PickupFieldAddress, "DPD Poland has no courier windows at %s %s: %s", country, zip, out.Return.Status)
	}
	now := time.Now().In(warsaw)
	if c.now != nil {
		now = c.now().In(warsaw)
	}
	windows := []carrier.PickupWindow{}
	for _, r := range out.Return.Ranges {
		fromS, untilS, ok := strings.Cut(r.Range, "-")
		from, errFrom := clock(fromS)
		until, errUntil := clock(untilS)
		if !ok || errFrom != nil || errUntil != nil || until <= from || r.Offset < 0 {
			return nil, fmt.Errorf("dpd_pl: getCourierOrderAvailabilityV1 answered a range %q offset %d that is not HH:MM-HH:MM", r.Range, r.Offset)
		}
		deadline := day.Add(time.Duration(from-r.Offset) * time.Minute)
		if now.After(deadline) {
			continue
		}
		orderBy := "00:00"
		if !deadline.Before(day) {
			orderBy = deadline.Format("15:04")
		}
		windows = append(windows, carrier.PickupWindow{From: hhmm(from), Until: hhmm(until), OrderBy: orderBy})
	}
	return windows, nil
}

// hhmm is minutes after midnight as "15:04".
func hhmm(minutes int) string { return fmt.Sprintf("%02d:%02d", minutes/60, minutes%60) }
